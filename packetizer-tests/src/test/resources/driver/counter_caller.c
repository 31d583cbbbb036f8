/* A C program calling lane-refill drivers of loops whose result is (a function of) their counter through the generated
 * header only (no vector types), compiled in its own translation unit by clang and by GCC (RefillCounterCallerTest):
 * the counters that the route recognises since the twenty-third round (a 32-bit counter returned as a 64-bit result
 * by sext and zext, a 64-bit counter compared with the widened limit, 2*i+1, limit-i) and count_trunc. For every n from
 * 0 to 3W+1 and two larger n, random and coherent inputs and two limits, it calls each driver once and compares every
 * element, byte for byte, with the scalar function (counter_kernels.c, linked as clang -O2 compiled it). Every array ends
 * at a PROT_NONE page, and every output has G guard bytes in front that must stay untouched. */
#define _DEFAULT_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "drivers.h"
#define CALLER_INPUT_SEED 0x9E3779B97F4A7C15ULL
#include "caller_support.h"

long count_sext(float x, int limit);
unsigned long count_zext(float x, unsigned limit);
int count_limit64(float x, int limit);
int count_affine(float x, int limit);
int count_left(float x, int limit);
int count_trunc(float x, int limit);

/* one kernel: float x in [lo, hi], the uniform limit, a result of type T */
#define KERNEL(name, T, lo, hi) \
  { IN(float, x, lo, hi) OUT(T, o) \
    name##_map(x, limit, o, n); calls++; \
    for (size_t i = 0; i < n; i++) SAME(#name, o[i], (T)name(x[i], limit)); \
    guard(#name, n, o_g); FREE(float, x) FREE_OUT(T, o) }

static void run(size_t n, int limit) {
  cur_n = n;
  KERNEL(count_sext, int64_t, -2, 2)
  KERNEL(count_zext, int64_t, -10, 31)
  KERNEL(count_limit64, int32_t, -5, 41)
  KERNEL(count_affine, int32_t, -10, 45)
  KERNEL(count_left, int32_t, -10, 45)
  KERNEL(count_trunc, int32_t, -4, 22)
}

int main(void) {
  for (coherent = 0; coherent < 2; coherent++) {
    for (int limit = 3; limit <= 45; limit += 42) {
      for (size_t n = 0; n <= 3 * W + 1; n++) run(n, limit);
      run(97, limit);
      run(40 * W + 3, limit);
    }
  }
  printf("W=%d: %d driver calls checked, %d differences\n", W, calls, bad);
  return bad != 0;
}
