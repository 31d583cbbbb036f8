/* A C program using the array drivers through the generated header only (no vector types), compiled
 * in its own translation unit by clang and by GCC (ArrayDriverCallerTest). For every n from 0 to
 * 3W+1 it calls each driver once and compares every element, byte for byte, with the scalar function
 * called once per element here. Every array ends at a PROT_NONE page (a read or write past element
 * n-1 faults), and every output array has G guard bytes in front that must stay untouched. */
#define _DEFAULT_SOURCE
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "drivers.h"
#include "guard_pages.h"

float saxpy(float x, float y, float a);
double ramp(double x, int i);
int clampi(int v, int lo, int hi);
bool positive(float x);
void sq_to(float *dst, int i, float x);
long collatz(long v);
int mandelbrot(float x0, float y0, int maxIter);

#define G 64
static int bad, calls;
static unsigned long long rng = 88172645463325252ULL;

static double rnd(double lo, double hi) {
  rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
  return lo + (hi - lo) * (double)(rng >> 11) / 9007199254740992.0;
}

static void fail(const char *what, size_t n, long i) {
  if (bad++ < 30) {
    if (i < 0) printf("%s: n=%zu: guard bytes in front of the output overwritten\n", what, n);
    else printf("%s: n=%zu: element %ld differs from the scalar function\n", what, n, i);
  }
}

static void guard(const char *what, size_t n, const unsigned char *g) {
  for (int k = 0; k < G; k++) if (g[k] != 0xA5) { fail(what, n, -1); return; }
}

#define IN(T, name, lo, hi) \
  T *name = at_page_end(n * sizeof(T)); \
  for (size_t i_ = 0; i_ < n; i_++) name[i_] = (T)rnd(lo, hi);
#define OUT(T, name) \
  unsigned char *name##_g = at_page_end(G + n * sizeof(T)); \
  memset(name##_g, 0xA5, G + n * sizeof(T)); \
  T *name = (T *)(name##_g + G);
#define SAME(what, got, want) \
  do { __typeof__(want) w_ = (want); if (memcmp(&(got), &w_, sizeof w_) != 0) fail(what, n, (long)i); } while (0)

int main(void) {
  for (size_t n = 0; n <= 3 * W + 1; n++) {
    {
      IN(float, x, -10, 10) IN(float, y, -10, 10) OUT(float, o)
      saxpy_map(x, y, 1.75f, o, n); calls++;
      for (size_t i = 0; i < n; i++) SAME("saxpy", o[i], saxpy(x[i], y[i], 1.75f));
      guard("saxpy", n, o_g);
      /* in place: the output array is the first input array */
      float *xi = at_page_end(n * sizeof(float));
      if (n) memcpy(xi, x, n * sizeof(float));
      saxpy_map(xi, y, -0.5f, xi, n); calls++;
      for (size_t i = 0; i < n; i++) SAME("saxpy in place", xi[i], saxpy(x[i], y[i], -0.5f));
    }
    {
      IN(double, x, -100, 100) OUT(double, o)
      ramp_map(x, -7, o, n); calls++;
      for (size_t i = 0; i < n; i++) SAME("ramp", o[i], ramp(x[i], -7 + 2 * (int)i));
      guard("ramp", n, o_g);
    }
    {
      IN(int32_t, v, -100, 100) OUT(int32_t, o)
      clampi_map(v, -20, 30, o, n); calls++;
      for (size_t i = 0; i < n; i++) SAME("clampi", o[i], (int32_t)clampi(v[i], -20, 30));
      guard("clampi", n, o_g);
    }
    {
      IN(float, x, -1, 1) OUT(bool, o)
      positive_map(x, o, n); calls++;
      for (size_t i = 0; i < n; i++) SAME("positive", o[i], positive(x[i]));
      guard("positive", n, o_g);
    }
    {
      IN(float, x, -5, 5)
      size_t len = 3 + n;
      unsigned char *g = at_page_end(G + len * sizeof(float));
      memset(g, 0xA5, G + len * sizeof(float));
      float *d = (float *)(g + G);
      float *want = malloc(len * sizeof(float));
      memcpy(want, d, len * sizeof(float));
      sq_to_map(d, 3, x, n); calls++;
      for (size_t i = 0; i < n; i++) sq_to(want, 3 + (int)i, x[i]);
      for (size_t i = 0; i < len; i++) SAME("sq_to", d[i], want[i]);
      guard("sq_to", n, g);
      free(want);
    }
    {
      IN(int64_t, v, 1, 1000) OUT(int64_t, o)
      collatz_map(v, o, n); calls++;
      for (size_t i = 0; i < n; i++) SAME("collatz", o[i], (int64_t)collatz(v[i]));
      guard("collatz", n, o_g);
    }
    {
      IN(float, x, -2, 1) IN(float, y, -1.5, 1.5) OUT(int32_t, o)
      mandelbrot_map(x, y, 200, o, n); calls++;
      for (size_t i = 0; i < n; i++) SAME("mandelbrot", o[i], (int32_t)mandelbrot(x[i], y[i], 200));
      guard("mandelbrot", n, o_g);
    }
  }
  printf("W=%d: %d driver calls checked, %d differences\n", W, calls, bad);
  return bad != 0;
}
