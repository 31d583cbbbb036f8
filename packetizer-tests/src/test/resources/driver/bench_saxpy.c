/* Array driver vs a hand-written packet loop for a straight-line kernel (docs/drivers.md): the best of
   31 rounds of 2000 calls over 4096 floats each. Not run by the tests. */
#define _POSIX_C_SOURCE 200809L
#include <immintrin.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "drivers.h"
__m256 saxpy_simd8(__m256 x, __m256 y, float a);

/* the packet loop a user writes by hand with vector types (n a multiple of 8 here, so it needs no
   remainder) */
__attribute__((noinline)) static void hand(const float *x, const float *y, float a, float *out, size_t n) {
  for (size_t i = 0; i < n; i += 8)
    _mm256_storeu_ps(out + i, saxpy_simd8(_mm256_loadu_ps(x + i), _mm256_loadu_ps(y + i), a));
}
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9; }
int main(void) {
  size_t n = 4096; int reps = 2000, rounds = 31;
  float *x = aligned_alloc(64, n * 4), *y = aligned_alloc(64, n * 4), *o = aligned_alloc(64, n * 4);
  for (size_t i = 0; i < n; i++) { x[i] = i * 0.5f; y[i] = 1.0f / (i + 1); }
  double bd = 1e9, bh = 1e9;
  for (int r = 0; r < rounds; r++) {
    double t = now(); for (int k = 0; k < reps; k++) saxpy_map(x, y, 1.5f, o, n); t = now() - t; if (t < bd) bd = t;
    t = now(); for (int k = 0; k < reps; k++) hand(x, y, 1.5f, o, n); t = now() - t; if (t < bh) bh = t;
  }
  printf("n=%zu: driver %.3f ns/elem, hand-written loop %.3f ns/elem, driver/hand %.3f\n", n, bd / reps / n * 1e9,
         bh / reps / n * 1e9, bd / bh);
}
