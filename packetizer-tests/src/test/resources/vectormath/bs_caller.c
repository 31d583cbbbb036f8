/* Calls the packet functions bs_piece8 (W=8, haswell) and bs_piece16 (W=16, x86-64-v4) packetized
   from bs_kernel.c (W16 with -DWIDE -mavx512f), compiled in its own translation unit by GCC or by clang (no system headers:
   GCC vector types, which pass as __m256/__m512), and compares every lane with the scalar bs_piece
   (glibc's expf and logf) bit for bit, special values included; errno as the scalar calls leave it. */
typedef float v8f __attribute__((vector_size(32)));
typedef float v16f __attribute__((vector_size(64)));
typedef unsigned int u32;
int printf(const char *, ...);
int *__errno_location(void);
float bs_piece(float s, float k);
v8f bs_piece8(v8f s, v8f k);
#ifdef WIDE
v16f bs_piece16(v16f s, v16f k);
#endif

static u32 bits(float f) { union { float f; u32 u; } c; c.f = f; return c.u; }
static float flt(u32 u) { union { float f; u32 u; } c; c.u = u; return c.f; }
static u32 state = 12345u;
static u32 next(void) { state = state * 1664525u + 1013904223u; return state; }
static const u32 specials[] = {0x00000000u, 0x80000000u, 0x7f800000u, 0xff800000u, 0x7fc00000u, 0x00000001u, 0x007fffffu,
                               0x00800000u, 0x7f7fffffu, 0x3f800000u, 0xbf800000u, 0x42b17218u, 0xc2cff1b5u, 0x4202422fu, 0xc27c65d9u};

static float input(int it, int k) {
  u32 a = next();
  if (it % 3 == 0) return 0.5f + (float)(a % 100000) * 0.001f;
  if (it % 7 == 0) return flt(specials[(a >> 8) % 15]);
  if (it % 5 == 0) return flt(a);
  return (float)(a % 2000000) * 0.0001f + 0.001f * (float)k;
}

static int check(const float *s, const float *k, const float *out, int w, int *bad) {
  for (int j = 0; j < w; j++) {
    float want = bs_piece(s[j], k[j]);
    if (bits(want) != bits(out[j]) && (*bad)++ < 10)
      printf("W%d lane %d: bs_piece(%a, %a) = %a, packet %a\n", w, j, s[j], k[j], want, out[j]);
  }
  return w;
}

static int run8(int *bad) {
  int checked = 0;
  for (int it = 0; it < 20000; it++) {
    float s[8], k[8], out[8];
    for (int j = 0; j < 8; j++) { s[j] = input(it, j); k[j] = (it % 4 == 1) ? input(it + 1, j) : 1.0f + (float)(next() % 1000) * 0.01f; }
    v8f vs, vk;
    __builtin_memcpy(&vs, s, sizeof s);
    __builtin_memcpy(&vk, k, sizeof k);
    v8f r = bs_piece8(vs, vk);
    __builtin_memcpy(out, &r, sizeof out);
    checked += check(s, k, out, 8, bad);
  }
  return checked;
}

#ifdef WIDE
static int run16(int *bad) {
  int checked = 0;
  for (int it = 0; it < 10000; it++) {
    float s[16], k[16], out[16];
    for (int j = 0; j < 16; j++) { s[j] = input(it, j); k[j] = (it % 4 == 1) ? input(it + 1, j) : 1.0f + (float)(next() % 1000) * 0.01f; }
    v16f vs, vk;
    __builtin_memcpy(&vs, s, sizeof s);
    __builtin_memcpy(&vk, k, sizeof k);
    v16f r = bs_piece16(vs, vk);
    __builtin_memcpy(out, &r, sizeof out);
    checked += check(s, k, out, 16, bad);
  }
  return checked;
}
#endif

/* errno: ordinary lanes leave it alone; a lane whose logf argument is negative sets EDOM (33), as the scalar call does */
static int errnos(void) {
  float s[8] = {1, 2, 3, 4, 5, 6, 7, 8}, k[8] = {1, 1, 1, 1, 1, 1, 1, 1};
  v8f vs, vk;
  __builtin_memcpy(&vs, s, sizeof s);
  __builtin_memcpy(&vk, k, sizeof k);
  *__errno_location() = 0;
  v8f r = bs_piece8(vs, vk);
  int e0 = *__errno_location();
  s[5] = -3.0f;
  __builtin_memcpy(&vs, s, sizeof s);
  *__errno_location() = 0;
  r = bs_piece8(vs, vk);
  int e1 = *__errno_location();
  *__errno_location() = 0;
  float want = bs_piece(-3.0f, 1.0f);
  int e2 = *__errno_location();
  (void) r; (void) want;
  printf("errno: ordinary %d, negative lane %d, scalar %d\n", e0, e1, e2);
  return e0 == 0 && e1 == e2 && e2 != 0;
}

int main(void) {
  int bad = 0, checked = run8(&bad);
#ifdef WIDE
  checked += run16(&bad);
#endif
  int ok = errnos();
  printf("%d lanes checked, %d differences\n", checked, bad);
  return bad != 0 || !ok;
}
