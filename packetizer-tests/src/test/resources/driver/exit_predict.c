/* Does a data-dependent, unpredictable exit of the iteration loop make a refill round cost more?
 * The same instructions run twice: R rounds, each = t iterations of a latency-bound AVX-512 chain (a
 * mandelbrot-like z = z*z + c on 16 lanes) whose exit test waits on the chain (like the refill driver's
 * "enough lanes free" test, from a compare of the new z), then a round of vector work (a compress of the
 * state and a masked load, like a compaction round). The trip counts t are the same multiset in both
 * runs: once in a fixed repeating order (predictable: all equal), once shuffled (random).
 * Build: gcc -O2 -mavx512f -mavx512vl exit_predict.c -o exit_predict */
#define _POSIX_C_SOURCE 200809L
#include <immintrin.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9; }
static unsigned long long rng = 88172645463325252ULL;
static unsigned next_rand(void) { rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17; return (unsigned) rng; }
__attribute__((noinline)) static float run(const int *trips, int rounds, const float *in, long *iters) {
  __m512 zx = _mm512_set1_ps(0.1f), zy = _mm512_set1_ps(0.2f), cx = _mm512_set1_ps(0.25f), cy = _mm512_set1_ps(0.1f);
  __m512 big = _mm512_set1_ps(1e30f);
  long it = 0;
  for (int r = 0; r < rounds; r++) {
    int t = trips[r];
    int i = 0;
    for (;;) {
      __m512 x2 = _mm512_mul_ps(zx, zx), y2 = _mm512_mul_ps(zy, zy);
      zy = _mm512_fmadd_ps(_mm512_add_ps(zx, zx), zy, cy);
      zx = _mm512_add_ps(_mm512_sub_ps(x2, y2), cx);
      unsigned dep = _mm512_cmp_ps_mask(_mm512_add_ps(x2, y2), big, _CMP_GT_OQ); /* always 0, known only after the chain */
      i++;
      if (i + (int) __builtin_popcount(dep) >= t) break;
    }
    it += i;
    /* the round: compaction-like vector work on the state */
    __mmask16 keep = (__mmask16) (0xffffu >> (r & 7));
    zx = _mm512_maskz_compress_ps(keep, zx);
    zy = _mm512_maskz_compress_ps(keep, zy);
    __m512 nx = _mm512_maskz_loadu_ps((__mmask16) ~keep, in + (r & 1023) * 16);
    zx = _mm512_mask_mov_ps(zx, (__mmask16) ~keep, _mm512_mul_ps(nx, _mm512_set1_ps(1e-3f)));
    zy = _mm512_mask_mov_ps(zy, (__mmask16) ~keep, _mm512_mul_ps(nx, _mm512_set1_ps(2e-3f)));
  }
  *iters = it;
  return _mm512_reduce_add_ps(zx) + _mm512_reduce_add_ps(zy);
}
int main(int argc, char **argv) {
  int rounds = 1 << 20, lo = argc > 1 ? atoi(argv[1]) : 1, hi = argc > 2 ? atoi(argv[2]) : 8;
  int *fixed = malloc(rounds * sizeof(int)), *shuf = malloc(rounds * sizeof(int));
  float *in = malloc(1024 * 16 * sizeof(float));
  for (int i = 0; i < 1024 * 16; i++) in[i] = (float) (i % 97);
  /* the same multiset: each value lo..hi equally often; fixed: all of value v in one long run (predictable);
   * shuffled: a Fisher-Yates shuffle of it */
  for (int r = 0; r < rounds; r++) fixed[r] = lo + (int) ((long) r * (hi - lo + 1) / rounds);
  for (int r = 0; r < rounds; r++) shuf[r] = fixed[r];
  for (int r = rounds - 1; r > 0; r--) { int j = next_rand() % (r + 1), x = shuf[r]; shuf[r] = shuf[j]; shuf[j] = x; }
  double best[2] = {1e9, 1e9}; long its[2]; float sink = 0;
  for (int rep = 0; rep < 21; rep++)
    for (int k = 0; k < 2; k++) {
      double t = now(); sink += run(k ? shuf : fixed, rounds, in, &its[k]); t = now() - t;
      if (t < best[k]) best[k] = t;
    }
  printf("trips %d..%d: iterations %ld / %ld; ns per round: sorted (predictable) %.2f, shuffled %.2f, difference %.2f ns"
         " (%.1f iterations' worth at %.2f ns/iteration sorted)  [%g]\n", lo, hi, its[0], its[1], best[0] / rounds * 1e9,
         best[1] / rounds * 1e9, (best[1] - best[0]) / rounds * 1e9, (best[1] - best[0]) / rounds * 1e9 / (best[0] / its[0] * 1e9),
         best[0] / its[0] * 1e9, sink);
  return 0;
}
