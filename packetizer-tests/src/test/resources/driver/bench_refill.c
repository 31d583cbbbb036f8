/* Lane refill vs the plain array driver, side by side in one run (docs/performance.md, issue 17 §2).
 * Built and run by bin/bench-refill (RefillBenchMain): the drivers come from the generated header.
 * Escape-time kernels (mandelbrot, julia, the sphere tracer march) over the same set of points in
 * two orders: coherent (an image in scan order: neighbours need similar iteration counts) and random
 * (the same points shuffled: the same scalar work, checked for the kernels that return their iteration
 * count, which also get ns per scalar iteration). Each figure is the best of ROUNDS calls over all points, in ns per
 * element. Also saxpy (straight-line): the driver against a hand-written packet loop. Exit 1 when a
 * refill driver's output differs from the plain driver's. */
#define _POSIX_C_SOURCE 200809L
#include <immintrin.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "drivers.h"

#ifndef SIDE
#define SIDE 256 /* bin/bench-refill --side S */
#endif
#define N (SIDE * SIDE)
#define ROUNDS 15

__m256 saxpy_p8(__m256 x, __m256 y, float a);
__m512 saxpy_p16(__m512 x, __m512 y, float a);

__attribute__((noinline)) static void hand8(const float *x, const float *y, float a, float *out, size_t n) {
  for (size_t i = 0; i < n; i += 8) _mm256_storeu_ps(out + i, saxpy_p8(_mm256_loadu_ps(x + i), _mm256_loadu_ps(y + i), a));
}
__attribute__((noinline)) static void hand16(const float *x, const float *y, float a, float *out, size_t n) {
  for (size_t i = 0; i < n; i += 16) _mm512_storeu_ps(out + i, saxpy_p16(_mm512_loadu_ps(x + i), _mm512_loadu_ps(y + i), a));
}

static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9; }
static unsigned long long rng = 88172645463325252ULL;
static unsigned long long next_rand(void) { rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17; return rng; }

/* the kernels' inputs: up to 6 float arrays, in scan order and shuffled */
static float *in[2][6];
static void make_inputs(int k) {
  for (int o = 0; o < 2; o++) for (int j = 0; j < 6; j++) { free(in[o][j]); in[o][j] = aligned_alloc(64, N * sizeof(float)); }
  for (int py = 0; py < SIDE; py++) for (int px = 0; px < SIDE; px++) {
    int i = py * SIDE + px;
    float u = (px + 0.5f) / SIDE, v = (py + 0.5f) / SIDE;
    if (k == 0) { in[0][0][i] = -2.0f + 3.0f * u; in[0][1][i] = -1.5f + 3.0f * v; }
    else if (k == 1) { in[0][0][i] = -1.6f + 3.2f * u; in[0][1][i] = -1.2f + 2.4f * v; }
    else { in[0][0][i] = 0; in[0][1][i] = 1.5f; in[0][2][i] = 6; in[0][3][i] = 2 * u - 1; in[0][4][i] = 0.7f - 2 * v; in[0][5][i] = -1.5f; }
  }
  int *perm = malloc(N * sizeof(int));
  for (int i = 0; i < N; i++) perm[i] = i;
  for (int i = N - 1; i > 0; i--) { int j = (int)(next_rand() % (unsigned)(i + 1)); int t = perm[i]; perm[i] = perm[j]; perm[j] = t; }
  for (int j = 0; j < 6; j++) for (int i = 0; i < N; i++) in[1][j][i] = in[0][j][perm[i]];
  free(perm);
}

/* the auto drivers' state (NAME.state: trial position, elements left in it, back-off level, body in use, cycles of
 * the trial under way, trials decided, ..., [11] the plain watch's alarms; weak: absent with
 * -Dpacketizer.refill.autoBackoff=false) */
#define STATE(name) extern long long name##_state[14] __asm__(#name ".state") __attribute__((weak));
STATE(mandelbrot_auto8) STATE(mandelbrot_auto16) STATE(julia_auto8) STATE(julia_auto16) STATE(march_auto8) STATE(march_auto16)
static long long *states[3][2] = {{mandelbrot_auto8_state, mandelbrot_auto16_state}, {julia_auto8_state, julia_auto16_state},
                                  {march_auto8_state, march_auto16_state}};
static long long trials_before, alarms_before, watch_before;
/* (st[12]: the watch's word, RefillDriver.STATE_WATCH: bits 16 and up the trials an alarm brought, bits 0-7 its level) */
static void state_mark(long long *st) {
  trials_before = st ? st[6] : 0; alarms_before = st ? st[11] : 0; watch_before = st ? st[12] >> 16 : 0;
}
static void state_print(const char *name, int w, const char *order, long long *st) {
  if (st) printf("%-10s %3d | auto %s: %lld trials in %d calls (%lld by the plain watch, %lld brought by either watch), now %s,"
                 " back-off level %lld, watch level %lld\n", name, w, order, st[6] - trials_before, ROUNDS, st[11] - alarms_before,
                 (st[12] >> 16) - watch_before, st[3] ? "refill" : "plain", st[2], st[12] & 0xFF);
}

typedef void (*runner)(int order, void *out);
#define MANDEL(name) static void name##_run(int o, void *out) { name(in[o][0], in[o][1], 256, out, N); }
#define JULIA(name) static void name##_run(int o, void *out) { name(in[o][0], in[o][1], -0.8f, 0.156f, 256, out, N); }
#define MARCH(name) static void name##_run(int o, void *out) { name(in[o][0], in[o][1], in[o][2], in[o][3], in[o][4], in[o][5], out, N); }
MANDEL(mandelbrot_plain8) MANDEL(mandelbrot_refill8) MANDEL(mandelbrot_auto8)
MANDEL(mandelbrot_plain16) MANDEL(mandelbrot_refill16) MANDEL(mandelbrot_auto16)
JULIA(julia_plain8) JULIA(julia_refill8) JULIA(julia_auto8)
JULIA(julia_plain16) JULIA(julia_refill16) JULIA(julia_auto16)
MARCH(march_plain8) MARCH(march_refill8) MARCH(march_auto8)
MARCH(march_plain16) MARCH(march_refill16) MARCH(march_auto16)

static double best(runner r, int order, void *out) {
  double b = 1e30;
  for (int k = 0; k < ROUNDS; k++) { double t = now(); r(order, out); t = now() - t; if (t < b) b = t; }
  return b / N * 1e9;
}

int main(void) {
  const char *names[3] = {"mandelbrot", "julia", "march"};
  runner rs[3][2][3] = {
      {{mandelbrot_plain8_run, mandelbrot_refill8_run, mandelbrot_auto8_run}, {mandelbrot_plain16_run, mandelbrot_refill16_run, mandelbrot_auto16_run}},
      {{julia_plain8_run, julia_refill8_run, julia_auto8_run}, {julia_plain16_run, julia_refill16_run, julia_auto16_run}},
      {{march_plain8_run, march_refill8_run, march_auto8_run}, {march_plain16_run, march_refill16_run, march_auto16_run}}};
  void *a = aligned_alloc(64, N * 4), *b = aligned_alloc(64, N * 4);
  int bad = 0;
  printf("ns per element, best of %d calls over %d points; coherent = scan order, random = the same points shuffled\n", ROUNDS, N);
  printf("%-10s %3s | %-17s | %-17s | %-17s | %s\n", "kernel", "W", "plain coh / rnd", "refill coh / rnd", "auto coh / rnd",
         "refill vs plain (rnd) | refill rnd vs plain coh, vs refill coh | auto vs plain (coh, rnd) | auto coh after rnd vs plain coh");
  for (int k = 0; k < 3; k++) {
    make_inputs(k);
    for (int wi = 0; wi < 2; wi++) {
      double iters[2] = {0, 0};
      for (int o = 0; o < 2; o++) {
        rs[k][wi][0](o, a); rs[k][wi][1](o, b);
        if (k < 2) for (int i = 0; i < N; i++) iters[o] += ((int *)a)[i]; /* mandelbrot and julia return their iteration count */
        if (memcmp(a, b, N * 4) != 0) { printf("%s W=%d: refill output differs from the plain driver's\n", names[k], 8 << wi); bad = 1; }
        rs[k][wi][2](o, b);
        if (memcmp(a, b, N * 4) != 0) { printf("%s W=%d: auto output differs from the plain driver's\n", names[k], 8 << wi); bad = 1; }
      }
      double pc = best(rs[k][wi][0], 0, a), pr = best(rs[k][wi][0], 1, a);
      double rc = best(rs[k][wi][1], 0, a), rr = best(rs[k][wi][1], 1, a);
      state_mark(states[k][wi]);
      double ac = best(rs[k][wi][2], 0, a);
      state_print(names[k], 8 << wi, "coherent", states[k][wi]);
      state_mark(states[k][wi]);
      double ar = best(rs[k][wi][2], 1, a);
      state_print(names[k], 8 << wi, "random", states[k][wi]);
      /* the order back: coherent calls on the state the random ones left (refill chosen, the trials backed off) */
      state_mark(states[k][wi]);
      double ac2 = best(rs[k][wi][2], 0, a);
      state_print(names[k], 8 << wi, "coherent after random", states[k][wi]);
      printf("%-10s %3d | %7.2f / %7.2f | %7.2f / %7.2f | %7.2f / %7.2f | %.2fx faster | %+4.0f%%, %+4.0f%% | %+4.0f%%, %+4.0f%%"
             " | coh after rnd %+4.0f%%\n",
             names[k], 8 << wi, pc, pr, rc, rr, ac, ar, pr / rr, (rr / pc - 1) * 100, (rr / rc - 1) * 100, (ac / pc - 1) * 100,
             (ar / pr - 1) * 100, (ac2 / pc - 1) * 100);
      if (k < 2) {
        /* the same points in both orders, so the same scalar work: per scalar iteration as well */
        double ic = iters[0] / N, ir = iters[1] / N;
        printf("%-10s %3d | %.2f / %.2f scalar iterations per element (coh / rnd); ns per scalar iteration: plain %.3f / %.3f,"
               " refill %.3f / %.3f\n", "", 8 << wi, ic, ir, pc / ic, pr / ir, rc / ic, rr / ir);
        if (iters[0] != iters[1]) { printf("%s: the two orders do different work\n", names[k]); bad = 1; }
      }
    }
  }
  /* straight-line: the driver (auto: refill not chosen) against a hand-written packet loop */
  size_t n = 4096; int reps = 2000;
  float *x = aligned_alloc(64, n * 4), *y = aligned_alloc(64, n * 4), *out = aligned_alloc(64, n * 4);
  for (size_t i = 0; i < n; i++) { x[i] = i * 0.5f; y[i] = 1.0f / (i + 1); }
  for (int wi = 0; wi < 2; wi++) {
    double bd = 1e30, bh = 1e30;
    for (int r = 0; r < 31; r++) {
      double t = now();
      for (int k = 0; k < reps; k++) { if (wi) saxpy_auto16(x, y, 1.5f, out, n); else saxpy_auto8(x, y, 1.5f, out, n); }
      t = now() - t; if (t < bd) bd = t;
      t = now();
      for (int k = 0; k < reps; k++) { if (wi) hand16(x, y, 1.5f, out, n); else hand8(x, y, 1.5f, out, n); }
      t = now() - t; if (t < bh) bh = t;
    }
    printf("saxpy      %3d | driver (auto) %.3f ns/el, hand-written packet loop %.3f ns/el, driver/hand %.3f\n", 8 << wi,
           bd / reps / n * 1e9, bh / reps / n * 1e9, bd / bh);
  }
  return bad;
}
