/* Calls the packet functions shade_piece4 (W=4, x86-64-v2), shade_piece8 (W=8, haswell) and
   shade_piece16 (W=16, znver4; with -DWIDE) packetized from shade_kernel.c, compiled in its own
   translation unit by GCC or by clang (no system headers: GCC vector types, which pass as
   __m128/__m256/__m512), and compares every lane with the scalar shade_piece (glibc's powf, exp2f and
   log2f) bit for bit, special values included; errno as the scalar calls leave it. */
typedef float v4f __attribute__((vector_size(16)));
typedef float v8f __attribute__((vector_size(32)));
typedef float v16f __attribute__((vector_size(64)));
typedef unsigned int u32;
int printf(const char *, ...);
int *__errno_location(void);
float shade_piece(float d, float s);
v4f shade_piece4(v4f d, v4f s);
v8f shade_piece8(v8f d, v8f s);
#ifdef WIDE
v16f shade_piece16(v16f d, v16f s);
#endif

static u32 bits(float f) { union { float f; u32 u; } c; c.f = f; return c.u; }
static float flt(u32 u) { union { float f; u32 u; } c; c.u = u; return c.f; }
static u32 state = 4242u;
static u32 next(void) { state = state * 1664525u + 1013904223u; return state; }
static const u32 specials[] = {0x00000000u, 0x80000000u, 0x7f800000u, 0xff800000u, 0x7fc00000u, 0x00000001u, 0x007fffffu,
                               0x00800000u, 0x7f7fffffu, 0x3f800000u, 0xbf800000u, 0x43000000u, 0xc3160000u, 0x3f7fffffu,
                               0x3f800001u, 0x40000000u};

static float dot(int it) {
  u32 a = next();
  if (it % 7 == 0) return flt(specials[(a >> 8) % 16]);
  if (it % 5 == 0) return flt(a);
  return (float)(a % 2000000) * 0.000001f - 0.3f; /* mostly facing the light, some not */
}

static float shininess(int it) {
  u32 a = next();
  if (it % 11 == 0) return flt(specials[(a >> 8) % 16]);
  if (it % 3 == 0) return (float)(a % 300); /* integer exponents */
  if (it % 13 == 0) return (float)(a % 100000) * 0.01f - 500.0f; /* overflow and underflow */
  return (float)(a % 1000000) * 0.0001f + 1.0f;
}

#define RUN(W, T, FN)                                                                 \
  static int run##W(int *bad, int iters) {                                           \
    int checked = 0;                                                                 \
    for (int it = 0; it < iters; it++) {                                             \
      float d[W], s[W], out[W];                                                      \
      for (int j = 0; j < W; j++) { d[j] = dot(it); s[j] = shininess(it + j); }      \
      T vd, vs;                                                                      \
      __builtin_memcpy(&vd, d, sizeof d);                                            \
      __builtin_memcpy(&vs, s, sizeof s);                                            \
      T r = FN(vd, vs);                                                              \
      __builtin_memcpy(out, &r, sizeof out);                                         \
      for (int j = 0; j < W; j++) {                                                  \
        float want = shade_piece(d[j], s[j]);                                        \
        if (bits(want) != bits(out[j]) && (*bad)++ < 10)                             \
          printf("W%d lane %d: shade_piece(%a, %a) = %a, packet %a\n", W, j, d[j], s[j], want, out[j]); \
        checked++;                                                                   \
      }                                                                              \
    }                                                                                \
    return checked;                                                                  \
  }
RUN(4, v4f, shade_piece4)
RUN(8, v8f, shade_piece8)
#ifdef WIDE
RUN(16, v16f, shade_piece16)
#endif

/* errno: ordinary lanes leave it alone; a lane whose powf overflows sets ERANGE (34), as the scalar call does */
static int errnos(void) {
  float d[8] = {0.5f, 0.6f, 0.7f, 0.8f, 0.9f, 0.4f, 0.3f, 0.2f}, s[8] = {2, 3, 4, 5, 6, 7, 8, 9};
  v8f vd, vs;
  __builtin_memcpy(&vd, d, sizeof d);
  __builtin_memcpy(&vs, s, sizeof s);
  *__errno_location() = 0;
  v8f r = shade_piece8(vd, vs);
  int e0 = *__errno_location();
  d[3] = 10.0f;
  s[3] = 100.0f;
  __builtin_memcpy(&vd, d, sizeof d);
  __builtin_memcpy(&vs, s, sizeof s);
  *__errno_location() = 0;
  r = shade_piece8(vd, vs);
  int e1 = *__errno_location();
  *__errno_location() = 0;
  float want = shade_piece(10.0f, 100.0f);
  int e2 = *__errno_location();
  (void) r; (void) want;
  printf("errno: ordinary %d, overflowing lane %d, scalar %d\n", e0, e1, e2);
  return e0 == 0 && e1 == e2 && e2 != 0;
}

int main(void) {
  int bad = 0, checked = run4(&bad, 40000) + run8(&bad, 20000);
#ifdef WIDE
  checked += run16(&bad, 10000);
#endif
  int ok = errnos();
  printf("%d lanes checked, %d differences\n", checked, bad);
  return bad != 0 || !ok;
}
