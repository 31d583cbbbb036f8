/* Calls the packet functions range_exp, range_exp2 and range_pow of range_kernel.c at W=4 (x86-64-v2: expf and exp2f;
   powf per lane), W=8 (haswell) and W=16 (skylake-avx512, with -DWIDE), compiled in its own translation unit by GCC or
   by clang (no system headers: GCC vector types), on packets whose lanes are drawn from every class around the
   functions' over- and underflow thresholds (each threshold and thousands of neighbours, deep under- and overflow,
   the fast band below them, ordinary values, NaN and infinities now and then), and compares per packet every lane with
   the scalar function (glibc) bit for bit and errno after the packet call with errno after the scalar calls in lane
   order (both set to 0 before). Counts the packets whose special lanes were all over- or underflows (the range lanes
   alone) with errno set. */
typedef float v4f __attribute__((vector_size(16)));
typedef float v8f __attribute__((vector_size(32)));
typedef float v16f __attribute__((vector_size(64)));
typedef unsigned int u32;
int printf(const char *, ...);
int *__errno_location(void);
float expf(float);
float exp2f(float);
float powf(float, float);
double log2(double);
v4f range_exp4(v4f);
v4f range_exp24(v4f);
v8f range_exp8(v8f);
v8f range_exp28(v8f);
v8f range_pow8(v8f, v8f);
#ifdef WIDE
v16f range_exp16(v16f);
v16f range_exp216(v16f);
v16f range_pow16(v16f, v16f);
#endif

static u32 bits(float f) { union { float f; u32 u; } c; c.f = f; return c.u; }
static float flt(u32 u) { union { float f; u32 u; } c; c.u = u; return c.f; }
static u32 state = 2323u;
static u32 next(void) { state = state * 1664525u + 1013904223u; return state ^ (state >> 15); }

/* expf: 88 (the fast path's edge), log 2^-149, log 2^-150, log 2^128, the infinities; exp2f: 128, -149, -150 */
static const u32 exp_edges[] = {0xc2b00000u, 0xc2ce8ed0u, 0xc2cff1b4u, 0x42b00000u, 0x42b17217u, 0xc2afffffu, 0x42afffffu, 0xff800000u, 0x7f800000u};
static const u32 exp2_edges[] = {0xc3000000u, 0xc3150000u, 0xc3160000u, 0x43000000u, 0xc2ffffffu, 0x42ffffffu, 0xff800000u, 0x7f800000u};

static float pick(const u32 *edges, int n, u32 negLo, u32 posLo, int mix) {
  u32 k = next() % 16;
  if (mix && k >= 8) return (float) (next() % 16000) * 0.01f - 80.0f; /* ordinary */
  if (k < 9) return flt(edges[k % n] + (next() % 4001) - 2000);
  if (k < 12) return flt(negLo + next() % (0xff800000u - negLo)); /* (..., -88] or (..., -128]: band, underflow */
  if (k < 14) return flt(posLo + next() % (0x7f800000u - posLo)); /* overflow */
  if (k < 15 && next() % 8 == 0) return flt(next()); /* anything: NaN, negative zero, subnormals */
  return (float) (next() % 16000) * 0.01f - 80.0f;
}

static void pick_pow(float *x, float *y) {
  u32 k = next() % 10;
  *x = (float) (next() % 1000000 + 1) * 0.000001f;
  if (k < 6) { /* y·log2 x near -150, -149, -126, 128 (x > 1 there), deep underflow, or deep overflow */
    double t = k == 0 ? -150 : k == 1 ? -149 : k == 2 ? -126 : k == 3 ? 128 : k == 4 ? -(double) (next() % 40000) * 0.01 : 300;
    if (k == 3 || k == 5) *x = 1.0f + *x * 4.0f;
    *y = flt(bits((float) (t / log2(*x))) + (next() % 201) - 100);
  } else if (k == 6 && next() % 4 == 0) { *x = flt(next()); *y = flt(next()); /* anything */ }
  else *y = (float) (next() % 6000) * 0.01f + 2.0f;
}

static int packets, rangeErrno, bad;

#define RUN1(W, T, FN, SC, EDGES, NEGLO, POSLO)                                          \
  static void FN##_run(int iters) {                                                     \
    for (int it = 0; it < iters; it++) {                                                \
      float x[W], want[W], got[W];                                                      \
      for (int j = 0; j < W; j++)                                                       \
        x[j] = pick(EDGES, sizeof EDGES / 4, NEGLO, POSLO, (it & 1) && (j % 4 != 0));   \
      *__errno_location() = 0;                                                          \
      for (int j = 0; j < W; j++) want[j] = SC(x[j]);                                   \
      int es = *__errno_location();                                                     \
      T v;                                                                              \
      __builtin_memcpy(&v, x, sizeof x);                                                \
      *__errno_location() = 0;                                                          \
      T r = FN(v);                                                                      \
      int ev = *__errno_location();                                                     \
      __builtin_memcpy(got, &r, sizeof got);                                            \
      int nan = 0;                                                                      \
      for (int j = 0; j < W; j++) {                                                     \
        nan |= x[j] != x[j] || bits(x[j]) == 0xff800000u || bits(x[j]) == 0x7f800000u;  \
        if (bits(want[j]) != bits(got[j]) && bad++ < 10)                                \
          printf(#FN " lane %d: x %a: %a, packet %a\n", j, x[j], want[j], got[j]);      \
      }                                                                                 \
      if (es != ev && bad++ < 10) printf(#FN ": errno %d, packet %d\n", es, ev);        \
      packets++;                                                                        \
      rangeErrno += !nan && es != 0;                                                    \
    }                                                                                   \
  }

#define RUN2(W, T, FN)                                                                  \
  static void FN##_run(int iters) {                                                     \
    for (int it = 0; it < iters; it++) {                                                \
      float x[W], y[W], want[W], got[W];                                                \
      for (int j = 0; j < W; j++) pick_pow(&x[j], &y[j]);                               \
      *__errno_location() = 0;                                                          \
      for (int j = 0; j < W; j++) want[j] = powf(x[j], y[j]);                           \
      int es = *__errno_location();                                                     \
      T vx, vy;                                                                         \
      __builtin_memcpy(&vx, x, sizeof x);                                               \
      __builtin_memcpy(&vy, y, sizeof y);                                               \
      *__errno_location() = 0;                                                          \
      T r = FN(vx, vy);                                                                 \
      int ev = *__errno_location();                                                     \
      __builtin_memcpy(got, &r, sizeof got);                                            \
      int odd = 0;                                                                      \
      for (int j = 0; j < W; j++) {                                                     \
        odd |= !(x[j] > 0.0f && x[j] < 3.0e38f && y[j] == y[j] && y[j] != 0.0f);         \
        if (bits(want[j]) != bits(got[j]) && bad++ < 10)                                \
          printf(#FN " lane %d: powf(%a, %a) = %a, packet %a\n", j, x[j], y[j], want[j], got[j]); \
      }                                                                                 \
      if (es != ev && bad++ < 10) printf(#FN ": errno %d, packet %d\n", es, ev);        \
      packets++;                                                                        \
      rangeErrno += !odd && es != 0;                                                    \
    }                                                                                   \
  }

RUN1(4, v4f, range_exp4, expf, exp_edges, 0xc2b00000u, 0x42b00000u)
RUN1(4, v4f, range_exp24, exp2f, exp2_edges, 0xc3000000u, 0x43000000u)
RUN1(8, v8f, range_exp8, expf, exp_edges, 0xc2b00000u, 0x42b00000u)
RUN1(8, v8f, range_exp28, exp2f, exp2_edges, 0xc3000000u, 0x43000000u)
RUN2(8, v8f, range_pow8)
#ifdef WIDE
RUN1(16, v16f, range_exp16, expf, exp_edges, 0xc2b00000u, 0x42b00000u)
RUN1(16, v16f, range_exp216, exp2f, exp2_edges, 0xc3000000u, 0x43000000u)
RUN2(16, v16f, range_pow16)
#endif

int main(void) {
  range_exp4_run(40000);
  range_exp24_run(40000);
  range_exp8_run(30000);
  range_exp28_run(30000);
  range_pow8_run(30000);
#ifdef WIDE
  range_exp16_run(20000);
  range_exp216_run(20000);
  range_pow16_run(20000);
#endif
  printf("%d packets checked, %d differences; %d with range lanes only and errno set\n", packets, bad, rangeErrno);
  return bad != 0;
}
