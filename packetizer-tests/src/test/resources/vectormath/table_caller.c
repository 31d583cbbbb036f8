/* Calls the packet functions of table_kernel.c at W4 (x86-64-v2, 128-bit vectors), W8 (haswell,
   256-bit; twice: the Intel route, gathers and halves, and "8h" the AVX2 vpermd halves route by the knob; "8s" skylake,
   the Intel route again; "8z" znver3, AMD's AVX2: scalar loads) and, with -DWIDE, W8 (x86-64-v4: its lookups are
   AVX-512 permutes behind a 256-bit signature), W16 (znver4, 512-bit) and "16i" (icelake-server), compiled in its own translation unit by GCC or by
   clang (no system headers: GCC vector types), and compares every lane with the scalar functions
   (glibc's expf and logf) bit for bit. The inputs reach every entry of both tables: expf at
   x = i·ln2/32 plus a small offset for every i over its fast path, logf on every 2^-19 step of the
   mantissa's top bits over several exponents; then random bits and special values. */
typedef float v4f __attribute__((vector_size(16)));
typedef float v8f __attribute__((vector_size(32)));
typedef float v16f __attribute__((vector_size(64)));
typedef unsigned int u32;
int printf(const char *, ...);
float tl_exp(float), tl_log(float), tl_mix(float, float);
v4f tl_exp4(v4f), tl_log4(v4f), tl_mix4(v4f, v4f);
v8f tl_exp8(v8f), tl_log8(v8f), tl_mix8(v8f, v8f);
v8f tl_exp8h(v8f), tl_log8h(v8f), tl_mix8h(v8f, v8f); /* W8 haswell, the AVX2 vpermd halves route */
v8f tl_exp8s(v8f), tl_log8s(v8f), tl_mix8s(v8f, v8f); /* W8 skylake: Intel's AVX2 route */
v8f tl_exp8z(v8f), tl_log8z(v8f), tl_mix8z(v8f, v8f); /* W8 znver3: AMD's AVX2 route, scalar loads */
#ifdef WIDE
v8f tl_exp8v(v8f), tl_log8v(v8f), tl_mix8v(v8f, v8f);
v16f tl_exp16(v16f), tl_log16(v16f), tl_mix16(v16f, v16f);
v16f tl_exp16i(v16f), tl_log16i(v16f), tl_mix16i(v16f, v16f); /* W16 icelake-server: Intel's AVX-512, permutes */
#endif

static u32 bits(float f) { union { float f; u32 u; } c; c.f = f; return c.u; }
static float flt(u32 u) { union { float f; u32 u; } c; c.u = u; return c.f; }
static u32 state = 2463534242u;
static u32 next(void) { state ^= state << 13; state ^= state >> 17; state ^= state << 5; return state; }
static const u32 specials[] = {0x00000000u, 0x80000000u, 0x7f800000u, 0xff800000u, 0x7fc00000u, 0x00000001u, 0x007fffffu,
                               0x00800000u, 0x7f7fffffu, 0x3f800000u, 0xbf800000u, 0x42b17218u, 0xc2cff1b5u, 0x4202422fu, 0xc27c65d9u, 0x3f330000u};

#define N 24000
static float xs[N], ys[N];

static void inputs(void) {
  int n = 0;
  /* expf: every table index i (k = round(x*32/ln2), i = k mod 32) over |x| < 88 */
  for (int k = -4060; k <= 4060 && n < 8200; k++) xs[n++] = (float)k * 0.0216608493f + (float)((int)(next() % 2001) - 1000) * 1e-6f;
  /* logf: every 16th subinterval index over 8 exponents (mantissa top bits step 2^-19 apart) */
  for (int e = 0; e < 8 && n < 16400; e++)
    for (u32 m = 0; m < 1024 && n < 16400; m++) xs[n++] = flt(((u32)(120 + 2 * e) << 23) | (m << 13) | (next() & 0x1fffu));
  while (n < N) {
    u32 a = next();
    xs[n++] = (a & 7u) == 0 ? flt(specials[(a >> 8) % 16]) : (a & 1u) ? flt(a) : (float)(int)(a % 200001 - 100000) * 0.001f;
  }
  for (int i = 0; i < N; i++) {
    u32 a = next();
    ys[i] = (a & 3u) == 0 ? flt(a) : xs[(i * 7 + 3) % N] + (float)(a % 1000) * 0.01f;
  }
}

static int bad = 0;
static void cmp(const char *fn, int w, int i, float x, float want, float got) {
  if (bits(want) != bits(got) && bad++ < 10) printf("%s W%d lane %d: input %a: scalar %a, packet %a\n", fn, w, i % w, x, want, got);
}

#define RUN(NAME, W, VT, EXP, LOG, MIX)                                                              \
  static long NAME(void) {                                                                         \
    long checked = 0;                                                                                \
    for (int i = 0; i + W <= N; i += W) {                                                            \
      VT vx, vy, re, rl, rm;                                                                         \
      __builtin_memcpy(&vx, xs + i, sizeof vx);                                                      \
      __builtin_memcpy(&vy, ys + i, sizeof vy);                                                      \
      re = EXP(vx); rl = LOG(vx); rm = MIX(vx, vy);                                                  \
      float oe[W], ol[W], om[W];                                                                     \
      __builtin_memcpy(oe, &re, sizeof oe); __builtin_memcpy(ol, &rl, sizeof ol);                    \
      __builtin_memcpy(om, &rm, sizeof om);                                                          \
      for (int j = 0; j < W; j++) {                                                                  \
        cmp("expf", W, i + j, xs[i + j], tl_exp(xs[i + j]), oe[j]);                                  \
        cmp("logf", W, i + j, xs[i + j], tl_log(xs[i + j]), ol[j]);                                  \
        cmp("mix", W, i + j, xs[i + j], tl_mix(xs[i + j], ys[i + j]), om[j]);                        \
      }                                                                                              \
      checked += 3 * W;                                                                              \
    }                                                                                                \
    return checked;                                                                                  \
  }
RUN(run4, 4, v4f, tl_exp4, tl_log4, tl_mix4)
RUN(run8, 8, v8f, tl_exp8, tl_log8, tl_mix8)
RUN(run8h, 8, v8f, tl_exp8h, tl_log8h, tl_mix8h)
RUN(run8s, 8, v8f, tl_exp8s, tl_log8s, tl_mix8s)
RUN(run8z, 8, v8f, tl_exp8z, tl_log8z, tl_mix8z)
#ifdef WIDE
RUN(run8v, 8, v8f, tl_exp8v, tl_log8v, tl_mix8v)
RUN(run16, 16, v16f, tl_exp16, tl_log16, tl_mix16)
RUN(run16i, 16, v16f, tl_exp16i, tl_log16i, tl_mix16i)
#endif

int main(void) {
  inputs();
  long checked = run4() + run8() + run8h() + run8s() + run8z();
#ifdef WIDE
  checked += run8v() + run16() + run16i();
#endif
  printf("%ld lanes checked, %d differences\n", checked, bad);
  return bad != 0;
}
