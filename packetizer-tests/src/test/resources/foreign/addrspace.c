/* Loads and stores through pointers in address space 1 (on x86-64 ordinary memory): a gather, a
 * scatter, and consecutive (masked under a divergent branch) loads and stores. */
#define AS1 __attribute__((address_space(1)))

float gather_as1(const float *tab, int i) {
  const AS1 float *t = (const AS1 float *)tab;
  if (i > 20) return t[(i * 7) & 63] * 2.0f;
  return t[i & 63];
}

void consecutive_as1(float *out, const float *in, int i, float x) {
  AS1 float *o = (AS1 float *)out;
  const AS1 float *s = (const AS1 float *)in;
  if (x > 0.0f) o[i] = s[i] * x;
  else o[i] = o[i] + 1.0f;
}

void scatter_as1(int *out, int i, int v) {
  AS1 int *o = (AS1 int *)out;
  if (v > 0) o[(i * 5) & 63] = v;
}
