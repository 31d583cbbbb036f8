/* _Float16 as a varying type (compiled with plain -O1 / -O2 by HalfTest): arithmetic, compares,
 * conversions (fpext, fptrunc, to and from integers), loads and stores of <W x half>. */

_Float16 hmix(_Float16 a, _Float16 b) {
  if (a > b) return a * b + (_Float16) 1.5f;
  return a - b / (_Float16) 3.0f;
}

float hconv(_Float16 a, float f) {
  double d = (double) a * f;
  /* (double -> half directly needs libgcc's __truncdfhf2 even with F16C: the JIT does not link it yet) */
  _Float16 t = (_Float16) (float) d;
  return (float) t + (float) a + (float) (double) t;
}

int hcmp(_Float16 a, _Float16 b) {
  int r = (a < b) + 2 * (a == b) + 4 * (a != a) + 8 * (a >= (_Float16) 0);
  return r + (int) a;
}

_Float16 hfromint(int x) { return x > 100 ? (_Float16) x * (_Float16) 0.25f : (_Float16) (x / 3); }

void hbuf(_Float16 *out, const _Float16 *in, int i) {
  _Float16 v = in[i];
  out[i] = v < (_Float16) 0 ? -v * (_Float16) 0.5f : v + in[(i * 5) & 15];
}
