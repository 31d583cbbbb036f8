/* Calls the packet functions price8 and wave8 (W=8, haswell; with -DWIDE also price16 and wave16, x86-64-v4),
   packetized into one module per width from helpers_kernel.c, and compares every lane with the scalar
   functions (glibc's expf, logf, sinf, cosf) bit for bit, special values included. Compiled in its own
   translation unit by GCC or by clang; no system headers (GCC vector types pass as __m256/__m512). */
typedef float v8f __attribute__((vector_size(32)));
typedef float v16f __attribute__((vector_size(64)));
typedef unsigned int u32;
int printf(const char *, ...);
float price(float s, float k);
float wave(float x, float k);
v8f price8(v8f s, v8f k);
v8f wave8(v8f x, v8f k);
#ifdef WIDE
v16f price16(v16f s, v16f k);
v16f wave16(v16f x, v16f k);
#endif

static u32 bits(float f) { union { float f; u32 u; } c; c.f = f; return c.u; }
static float flt(u32 u) { union { float f; u32 u; } c; c.u = u; return c.f; }
static u32 state = 777u;
static u32 next(void) { state = state * 1664525u + 1013904223u; return state; }
static const u32 specials[] = {0x00000000u, 0x80000000u, 0x7f800000u, 0xff800000u, 0x7fc00000u, 0x00000001u, 0x007fffffu,
                               0x00800000u, 0x7f7fffffu, 0x3f800000u, 0xbf800000u, 0x42b17218u, 0x42f00000u, 0x4202422fu, 0xc27c65d9u};

static float input(int it, int j) {
  u32 a = next();
  if (it % 3 == 0) return 0.5f + (float)(a % 100000) * 0.001f;
  if (it % 7 == 0) return flt(specials[(a >> 8) % 15]);
  if (it % 5 == 0) return flt(a);
  if (it % 11 == 0) return (float)(a % 4000000) * 0.0001f - 200.0f;
  return (float)(a % 2000000) * 0.0001f + 0.001f * (float)j;
}

static int bad = 0;

static void compare(const char *what, int w, int j, float x, float k, float want, float got) {
  if (bits(want) != bits(got) && bad++ < 10) printf("%s W%d lane %d (%a, %a): scalar %a, packet %a\n", what, w, j, x, k, want, got);
}

static int run8(void) {
  int checked = 0;
  for (int it = 0; it < 20000; it++) {
    float a[8], b[8], p[8], q[8];
    for (int j = 0; j < 8; j++) { a[j] = input(it, j); b[j] = (it % 4 == 1) ? input(it + 1, j) : 1.0f + (float)(next() % 1000) * 0.01f; }
    v8f va, vb, vp, vq;
    __builtin_memcpy(&va, a, sizeof a);
    __builtin_memcpy(&vb, b, sizeof b);
    vp = price8(va, vb);
    vq = wave8(va, vb);
    __builtin_memcpy(p, &vp, sizeof p);
    __builtin_memcpy(q, &vq, sizeof q);
    for (int j = 0; j < 8; j++) {
      compare("price", 8, j, a[j], b[j], price(a[j], b[j]), p[j]);
      compare("wave", 8, j, a[j], b[j], wave(a[j], b[j]), q[j]);
    }
    checked += 16;
  }
  return checked;
}

#ifdef WIDE
static int run16(void) {
  int checked = 0;
  for (int it = 0; it < 10000; it++) {
    float a[16], b[16], p[16], q[16];
    for (int j = 0; j < 16; j++) { a[j] = input(it, j); b[j] = (it % 4 == 1) ? input(it + 1, j) : 1.0f + (float)(next() % 1000) * 0.01f; }
    v16f va, vb, vp, vq;
    __builtin_memcpy(&va, a, sizeof a);
    __builtin_memcpy(&vb, b, sizeof b);
    vp = price16(va, vb);
    vq = wave16(va, vb);
    __builtin_memcpy(p, &vp, sizeof p);
    __builtin_memcpy(q, &vq, sizeof q);
    for (int j = 0; j < 16; j++) {
      compare("price", 16, j, a[j], b[j], price(a[j], b[j]), p[j]);
      compare("wave", 16, j, a[j], b[j], wave(a[j], b[j]), q[j]);
    }
    checked += 32;
  }
  return checked;
}
#endif

int main(void) {
  int checked = run8();
#ifdef WIDE
  checked += run16();
#endif
  printf("%d lanes checked, %d differences\n", checked, bad);
  return bad != 0;
}
