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

/* Vectors and struct-of-arrays objects through address space 1: loads and stores of whole vectors
 * (composite values, one gather / scatter per element or one wide masked access) and SLP's
 * <4 x float> accesses through a struct-of-arrays pointer, uniform under a divergent branch (masked
 * vector accesses) and different per lane (gathers / scatters). */
typedef float v2f __attribute__((vector_size(8)));

void vec_scatter_as1(v2f *out, int i, float x) {
  AS1 v2f *o = (AS1 v2f *)out;
  if (x > 0.0f) o[(i * 5) & 15] = (v2f){x, x + 1.0f};
}

float vec_gather_as1(const v2f *in, int i) {
  const AS1 v2f *t = (const AS1 v2f *)in;
  v2f v = t[(i * 3) & 15];
  return v[0] * v[1];
}

void vec_consecutive_as1(v2f *out, int i, float x) {
  AS1 v2f *o = (AS1 v2f *)out;
  if (x > 0.0f) o[i] = o[i] * x;
}

struct Q { float a[4]; float b[4]; };

void soa_vec4_as1(struct Q *s0, float x, int k) {
  AS1 struct Q *s = (AS1 struct Q *)s0;
  if (x > 0.0f) {
    s->a[0] = s->a[0] * x + 1.0f;
    s->a[1] = s->a[1] * x + 2.0f;
    s->a[2] = s->a[2] * x + 3.0f;
    s->a[3] = s->a[3] * x + 4.0f;
  }
  AS1 float *p = (k & 1) ? s->a : s->b;
  p[0] = p[0] - x;
  p[1] = p[1] - 2.0f * x;
  p[2] = p[2] - 3.0f * x;
  p[3] = p[3] - 4.0f * x;
}
