/* A noise kernel as people write it: a static helper (clang: internal fastcc) called eight times,
 * under data-dependent control flow. Compiled with plain -O1 / -O2 (no -fno-* flags). */
static unsigned hash(unsigned x) {
  x ^= x >> 16;
  x *= 0x7feb352dU;
  x ^= x >> 15;
  x *= 0x846ca68bU;
  x ^= x >> 16;
  return x;
}

static __attribute__((noinline)) float grad(int ix, int iy, float fx, float fy) {
  unsigned h = hash((unsigned)ix * 0x1f1f1f1fU ^ hash((unsigned)iy));
  switch (h & 3u) {
    case 0: return fx + fy;
    case 1: return -fx + fy;
    case 2: return fx - fy;
    default: return -fx - fy;
  }
}

static float lerp(float a, float b, float t) { return a + t * (b - a); }

static float fade(float t) { return t * t * (3.0f - 2.0f * t); }

/* value noise with four octaves: grad() (and through it hash()) is called 8 times per call of
 * octave-pair, 16 in all; the octave loop stops early for some lanes */
float noise(float x, float y, int octaves) {
  float sum = 0.0f, amp = 1.0f;
  for (int o = 0; o < octaves; o++) {
    int ix = (int)x, iy = (int)y;
    if (x < 0.0f) ix -= 1;
    if (y < 0.0f) iy -= 1;
    float fx = x - (float)ix, fy = y - (float)iy;
    float u = fade(fx), v = fade(fy);
    float n0 = grad(ix, iy, fx, fy), n1 = grad(ix + 1, iy, fx - 1.0f, fy);
    float n2 = grad(ix, iy + 1, fx, fy - 1.0f), n3 = grad(ix + 1, iy + 1, fx - 1.0f, fy - 1.0f);
    float a = lerp(n0, n1, u), b = lerp(n2, n3, u);
    float n = lerp(a, b, v);
    if (n > 0.5f) {
      float m0 = grad(iy, ix, fy, fx), m1 = grad(iy + 3, ix, fy, fx - 1.0f);
      float m2 = grad(iy, ix + 5, fy - 1.0f, fx), m3 = grad(iy + 7, ix + 1, fy - 1.0f, fx - 1.0f);
      n = 0.5f * (n + lerp(lerp(m0, m1, u), lerp(m2, m3, u), v));
    }
    sum += amp * n;
    if (sum > 2.0f) break;
    amp *= 0.5f;
    x *= 2.0f;
    y *= 2.0f;
  }
  return sum;
}

/* the helper called eight times in a row, under a divergent branch */
static __attribute__((noinline)) int mix(int a, int b) { return (int)hash((unsigned)a * 31u + (unsigned)b); }

int mix8(int x, int y) {
  int r = x;
  if (x > y) {
    r = mix(r, 1); r = mix(r, y); r = mix(r, 3); r = mix(r, 4);
    r = mix(r, 5); r = mix(r, x); r = mix(r, 7); r = mix(r, 8);
  }
  return r;
}
