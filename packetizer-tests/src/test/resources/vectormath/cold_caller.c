/* Calls the packet functions of cold_kernel.c (cold_mix with which = 0: expf, 1: logf, 2: powf) at W4 (x86-64-v2), W8
   (haswell) and W16 (znver4, with -DWIDE), compiled in its own translation unit by GCC or by clang (no
   system headers: GCC vector types), and compares every lane with the scalar function bit for bit on
   hard inputs: NaNs, infinities, zeros, denormals, tiny and huge values, expf's overflow and underflow
   thresholds and the edge of its fast path, points of its 32-entry table (k ln2 / 32) and their
   neighbours, logf's and powf's special cases; each input in every lane. Two sets of modules: the
   real one (suffix none: the helpers verified at run time, the fast path and the shared per-lane
   piece for special lanes) and one packetized with the test hook naming fake_expf, fake_logf and
   fake_powf (suffix _fake: the shared probe fails, every active lane goes through the shared per-lane
   piece and the fakes), compared with the fakes. */
typedef float v4f __attribute__((vector_size(16)));
typedef float v8f __attribute__((vector_size(32)));
typedef float v16f __attribute__((vector_size(64)));
typedef unsigned int u32;
int printf(const char *, ...);
float expf(float);
float logf(float);
float powf(float, float);

static u32 bits(float f) { union { float f; u32 u; } c; c.f = f; return c.u; }
static float flt(u32 u) { union { float f; u32 u; } c; c.u = u; return c.f; }

/* the fakes the _fake modules call: the scalar function's bits with the last one flipped */
float fake_expf(float x) { return flt(bits(expf(x)) ^ 1u); }
float fake_logf(float x) { return flt(bits(logf(x)) ^ 1u); }
float fake_powf(float x, float y) { return flt(bits(powf(x, y)) ^ 1u); }

#define DECL(W, T, S) T cold_mix##W##S(T, T, int);
DECL(4, v4f, ) DECL(8, v8f, ) DECL(4, v4f, _fake) DECL(8, v8f, _fake)
#ifdef WIDE
DECL(16, v16f, ) DECL(16, v16f, _fake)
#endif

static u32 state = 777u;
static u32 next(void) { state = state * 1664525u + 1013904223u; return state; }

#define NHARD 64
static u32 hard[NHARD];

static void fill_hard(void) {
  static const u32 fixed[] = {
    0x00000000u, 0x80000000u, 0x7f800000u, 0xff800000u, 0x7fc00000u, 0xffc00000u, 0x7fa00001u, 0x00000001u,
    0x807fffffu, 0x007fffffu, 0x00800000u, 0x80800000u, 0x7f7fffffu, 0xff7fffffu, 0x3f800000u, 0xbf800000u,
    0x3f7fffffu, 0x3f800001u, 0x30800000u, 0xb0800000u, /* tiny */
    0x42b17217u, 0x42b17218u, 0x42b17216u,             /* expf overflow threshold (~88.72) */
    0xc2cff1b4u, 0xc2cff1b5u, 0xc2ce8ed0u, 0xc2ce8ecfu, /* underflow: zero and denormal results */
    0x42afffffu, 0x42b00000u, 0xc2afffffu, 0xc2b00000u, /* the edge of the fast path |x| < 88 */
    0x4b400000u, 0xcb400000u, 0x43000000u, 0xc3160000u, 0x40000000u, 0x3f000000u, 0x40490fdbu,
  };
  int n = sizeof fixed / sizeof fixed[0], k = 0;
  for (; k < n; k++) hard[k] = fixed[k];
  /* points of expf's table, x = j ln2 / 32 for a few j, and a neighbour on either side */
  for (int j = -5; k + 3 <= NHARD; j += 3) {
    float x = (float) j * 0.021660849392498290f;
    hard[k++] = bits(x);
    hard[k++] = bits(x) + 1u;
    hard[k++] = bits(x) - 1u;
  }
  while (k < NHARD) hard[k++] = next();
}

/* the input of lane j in iteration it: every hard value reaches every lane; then random bits, then ordinary values */
static float input(int it, int j, int w, int salt) {
  if (it < NHARD * 2) return flt(hard[(it + j * (salt + 1)) % NHARD]);
  u32 a = next();
  if (it % 3 == 0) return flt(a);
  return (float) (a % 4000000) * 0.00005f - 100.0f;
}

static int bad = 0;
static void check(const char *what, int w, int j, float x, float y, float want, float got) {
  if (bits(want) != bits(got) && bad++ < 10) printf("%s W%d lane %d: (%a, %a) scalar %a, packet %a\n", what, w, j, x, y, want, got);
}

#define RUN(W, T, S, EXP, LOG, POW)                                            \
  static int run##W##S(int iters) {                                            \
    int checked = 0;                                                           \
    for (int it = 0; it < iters; it++) {                                       \
      float x[W], y[W], e[W], l[W], p[W];                                      \
      for (int j = 0; j < W; j++) { x[j] = input(it, j, W, 0); y[j] = input(it, j, W, 1); } \
      T vx, vy, r;                                                             \
      __builtin_memcpy(&vx, x, sizeof x);                                      \
      __builtin_memcpy(&vy, y, sizeof y);                                      \
      r = cold_mix##W##S(vx, vy, 0); __builtin_memcpy(e, &r, sizeof e);        \
      r = cold_mix##W##S(vx, vy, 1); __builtin_memcpy(l, &r, sizeof l);        \
      r = cold_mix##W##S(vx, vy, 2); __builtin_memcpy(p, &r, sizeof p);        \
      for (int j = 0; j < W; j++) {                                            \
        check("expf" #S, W, j, x[j], 0, EXP(x[j]), e[j]);                      \
        check("logf" #S, W, j, x[j], 0, LOG(x[j]), l[j]);                      \
        check("powf" #S, W, j, x[j], y[j], x[j] > -2.0f ? POW(x[j], y[j]) : -1.0f, p[j]); \
        checked += 3;                                                          \
      }                                                                        \
    }                                                                          \
    return checked;                                                            \
  }
RUN(4, v4f, , expf, logf, powf)
RUN(8, v8f, , expf, logf, powf)
RUN(4, v4f, _fake, fake_expf, fake_logf, powf) /* W4 x86-64-v2: powf stays per lane (no FMA), the scalar powf */
RUN(8, v8f, _fake, fake_expf, fake_logf, fake_powf)
#ifdef WIDE
RUN(16, v16f, , expf, logf, powf)
RUN(16, v16f, _fake, fake_expf, fake_logf, fake_powf)
#endif

int main(void) {
  fill_hard();
  int checked = run4(4000) + run8(4000) + run4_fake(1000) + run8_fake(1000);
#ifdef WIDE
  checked += run16(4000) + run16_fake(1000);
#endif
  printf("%d lanes checked, %d differences\n", checked, bad);
  return bad != 0;
}
