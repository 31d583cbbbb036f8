/* A C program calling lane-refill drivers through the generated header only (no vector types),
 * compiled in its own translation unit by clang and by GCC (RefillDriverCallerTest). For every n
 * from 0 to 3W+1 and a few larger n (the adaptive --refill=auto driver times chunks of 8W, 128W and
 * 8W elements, then runs the rest of an epoch of 2048W in one call), random and coherent inputs, it
 * calls each driver once and compares every element, byte for byte, with the scalar function called once per element here. Every array ends at a PROT_NONE
 * page, and every output has G guard bytes in front that must stay untouched. */
#define _DEFAULT_SOURCE
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "drivers.h"
#define CALLER_INPUT_SEED 88172645463325252ULL
#include "caller_support.h"

long collatz(long v);
int multi_exit(float x, int limit);
float exit_values(float x, int limit);
int nested(int seed, int rounds);
int rows(int seed, int nrows);
int gcd(int a, int b);
double guarded(double x);
bool converges(float c);
int mandelbrot(float x0, float y0, int maxIter);
int julia(float x, float y, float cr, float ci, int maxIter);
float march(float ox, float oy, float oz, float dx, float dy, float dz);

static void run(size_t n) {
  cur_n = n;
  { IN(int64_t, v, 1, 3000) OUT(int64_t, o)
    collatz_map(v, o, n); calls++;
    for (size_t i = 0; i < n; i++) SAME("collatz", o[i], (int64_t)collatz(v[i]));
    guard("collatz", n, o_g); FREE(int64_t, v) FREE_OUT(int64_t, o) }
  { IN(float, x, -3, 3) OUT(int32_t, o)
    multi_exit_map(x, 40, o, n); calls++;
    for (size_t i = 0; i < n; i++) SAME("multi_exit", o[i], (int32_t)multi_exit(x[i], 40));
    guard("multi_exit", n, o_g); FREE(float, x) FREE_OUT(int32_t, o) }
  { IN(float, x, -2.2, 2.2) OUT(float, o)
    exit_values_map(x, 40, o, n); calls++;
    for (size_t i = 0; i < n; i++) SAME("exit_values", o[i], exit_values(x[i], 40));
    guard("exit_values", n, o_g); FREE(float, x) FREE_OUT(float, o) }
  { IN(int32_t, s, -1000, 1000) OUT(int32_t, o)
    nested_map(s, 5, o, n); calls++;
    for (size_t i = 0; i < n; i++) SAME("nested", o[i], (int32_t)nested(s[i], 5));
    guard("nested", n, o_g); FREE(int32_t, s) FREE_OUT(int32_t, o) }
  { IN(int32_t, s, -1000, 1000) OUT(int32_t, o)
    rows_map(s, 6, o, n); calls++;
    for (size_t i = 0; i < n; i++) SAME("rows", o[i], (int32_t)rows(s[i], 6));
    guard("rows", n, o_g); FREE(int32_t, s) FREE_OUT(int32_t, o) }
  { IN(int32_t, a, -1000, 1000) IN(int32_t, c, -1000, 1000) OUT(int32_t, o)
    gcd_map(a, c, o, n); calls++;
    for (size_t i = 0; i < n; i++) SAME("gcd", o[i], (int32_t)gcd(a[i], c[i]));
    guard("gcd", n, o_g); FREE(int32_t, a) FREE(int32_t, c) FREE_OUT(int32_t, o) }
  { IN(double, x, -1, 3) OUT(double, o)
    guarded_map(x, o, n); calls++;
    for (size_t i = 0; i < n; i++) SAME("guarded", o[i], guarded(x[i]));
    guard("guarded", n, o_g); FREE(double, x) FREE_OUT(double, o) }
  { IN(float, c, -2.2, 0.5) OUT(bool, o)
    converges_map(c, o, n); calls++;
    for (size_t i = 0; i < n; i++) SAME("converges", o[i], converges(c[i]));
    guard("converges", n, o_g); FREE(float, c) FREE_OUT(bool, o) }
  { IN(float, x, -2, 1) IN(float, y, -1.5, 1.5) OUT(int32_t, o) OUT(int32_t, a)
    mandelbrot_map(x, y, 150, o, n); calls++;
    mandelbrot_auto(x, y, 150, a, n); calls++;
    for (size_t i = 0; i < n; i++) SAME("mandelbrot", o[i], (int32_t)mandelbrot(x[i], y[i], 150));
    for (size_t i = 0; i < n; i++) SAME("mandelbrot (auto)", a[i], (int32_t)mandelbrot(x[i], y[i], 150));
    guard("mandelbrot", n, o_g); guard("mandelbrot (auto)", n, a_g);
    FREE(float, x) FREE(float, y) FREE_OUT(int32_t, o) FREE_OUT(int32_t, a) }
  { IN(float, x, -1.6, 1.6) IN(float, y, -1.2, 1.2) OUT(int32_t, o)
    julia_map(x, y, -0.8f, 0.156f, 120, o, n); calls++;
    for (size_t i = 0; i < n; i++) SAME("julia", o[i], (int32_t)julia(x[i], y[i], -0.8f, 0.156f, 120));
    guard("julia", n, o_g); FREE(float, x) FREE(float, y) FREE_OUT(int32_t, o) }
  { IN(float, ox, -1, 1) IN(float, oy, 1, 2) IN(float, oz, 4, 6) IN(float, dx, -1, 1) IN(float, dy, -1, 0.5) IN(float, dz, -1.5, -0.5)
    OUT(float, o)
    march_map(ox, oy, oz, dx, dy, dz, o, n); calls++;
    for (size_t i = 0; i < n; i++) SAME("march", o[i], march(ox[i], oy[i], oz[i], dx[i], dy[i], dz[i]));
    guard("march", n, o_g);
    FREE(float, ox) FREE(float, oy) FREE(float, oz) FREE(float, dx) FREE(float, dy) FREE(float, dz) FREE_OUT(float, o) }
}

int main(void) {
  for (coherent = 0; coherent < 2; coherent++) {
    for (size_t n = 0; n <= 3 * W + 1; n++) run(n);
    /* the adaptive driver: past its three timed chunks (8W, 128W, 8W elements), and into the second epoch (2048W) */
    run(144 * W + 1);
    run(2048 * W + 9 * W + 3);
  }
  printf("W=%d: %d driver calls checked, %d differences\n", W, calls, bad);
  return bad != 0;
}
