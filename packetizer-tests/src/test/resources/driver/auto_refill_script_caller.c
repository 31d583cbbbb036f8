/* A C program calling the --refill=auto driver of mandelbrot built with the scripted clock
 * (-Dpacketizer.refill.autoClockScript=2: no cycle counter; each timed call of a body costs its elements times the cycles
 * per element in row min(trials measured, 1) of mandelbrot_auto.clock), through the generated header only, compiled in its
 * own translation unit by clang and by GCC (AutoRefillScriptCallerTest). W: the packet width; E: the driver's epoch in
 * elements; LEAP: RefillDriver.PLAIN_LEAP; MAXLEVEL: RefillDriver.ADAPTIVE_MAX_LEVEL. Every element of every call is
 * compared with the scalar function; every array ends at a PROT_NONE page, every output has G guard bytes in front.
 * Two scripts from a fresh state, each over 8 epochs in calls of 8W+3 elements:
 * (1) stuck on plain: the first trial disturbed (refill 10 times the plain body's cost), then the real costs (refill 0.3
 *     times plain): refill in use within 3 epochs and kept to the end (the first trial's plain win is confirmed by a
 *     second trial, judged alone, before the back-off grows);
 * (2) plain really wins (refill 1.5 times plain): the plain body throughout, the levels after the three trials
 *     0, LEAP, 2 LEAP (capped at MAXLEVEL). No timing of this host enters the decisions. */
#define _DEFAULT_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "drivers.h"
#include "guard_pages.h"

int mandelbrot(float x0, float y0, int maxIter);
extern long long auto_state[12] __asm__("mandelbrot_auto.state");
extern long long auto_clock[5] __asm__("mandelbrot_auto.clock");
enum { POS, LEFT, LEVEL, CHOICE, PCYC, RCYC, TRIALS, SAVED };

#define G 64
static int bad, calls;
static unsigned long long rng = 88172645463325252ULL;

static double uniform(void) { rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17; return (double)(rng >> 11) / 9007199254740992.0; }

static void release(void *p, size_t bytes) {
  size_t pg = (size_t)sysconf(_SC_PAGESIZE);
  size_t span = (bytes + pg - 1) / pg * pg;
  if (span == 0) span = pg;
  munmap((char *)p + bytes - span, span + pg);
}

/* what one run saw: the element after which refill was first in use (-1: never), plain again after it, the levels after
   each trial decided */
struct trace { long long first_refill, plain_again; int ntrials; long long levels[16]; };

/* a fresh state and the script {plain, refill cycles per element} x 2 rows; then n random points in calls of `per` */
static struct trace run(const char *what, const long long rows[4], size_t n, size_t per) {
  struct trace t = { -1, -1, 0, {0} };
  memset(auto_state, 0, sizeof auto_state);
  auto_clock[0] = 0;
  for (int k = 0; k < 4; k++) auto_clock[1 + k] = rows[k];
  float *x = at_page_end(n * sizeof(float)), *y = at_page_end(n * sizeof(float));
  unsigned char *g = at_page_end(G + n * sizeof(int32_t));
  memset(g, 0xA5, G + n * sizeof(int32_t));
  int32_t *out = (int32_t *)(g + G);
  for (size_t i = 0; i < n; i++) { x[i] = (float)(-2 + 3 * uniform()); y[i] = (float)(-1.5 + 3 * uniform()); }
  long long trials = 0;
  for (size_t i = 0; i < n; i += per) {
    size_t c = n - i < per ? n - i : per;
    mandelbrot_auto(x + i, y + i, 150, out + i, c);
    calls++;
    for (; trials < auto_state[TRIALS]; trials++) if (t.ntrials < 16) t.levels[t.ntrials++] = auto_state[LEVEL];
    if (auto_state[CHOICE] == 1 && t.first_refill < 0) t.first_refill = (long long)(i + c);
    if (auto_state[CHOICE] != 1 && t.first_refill >= 0 && t.plain_again < 0) t.plain_again = (long long)(i + c);
  }
  for (size_t i = 0; i < n; i++) {
    int32_t want = mandelbrot(x[i], y[i], 150);
    if (memcmp(&out[i], &want, sizeof want) != 0 && bad++ < 20)
      printf("%s: element %zu is %d, the scalar function %d\n", what, i, out[i], want);
  }
  for (int k = 0; k < G; k++) if (g[k] != 0xA5) { if (bad++ < 20) printf("%s: guard bytes overwritten\n", what); break; }
  release(x, n * sizeof(float)); release(y, n * sizeof(float)); release(g, G + n * sizeof(int32_t));
  printf("%s: refill from element %lld, plain again at %lld, levels after the trials", what, t.first_refill, t.plain_again);
  for (int k = 0; k < t.ntrials; k++) printf(" %lld", t.levels[k]);
  printf("\n");
  return t;
}

static void expect(int ok, const char *what) {
  if (!ok) { bad++; printf("FAILED: %s\n", what); }
}

int main(void) {
  size_t n = 8 * (size_t)E, per = 8 * W + 3;
  static const long long stuck[4] = {100, 1000, 100, 30}, plain[4] = {100, 150, 100, 150};
  struct trace t = run("stuck on plain", stuck, n, per);
  expect(t.first_refill >= 0 && t.first_refill <= 3LL * E, "stuck on plain: refill within 3 epochs of a disturbed first trial");
  expect(t.plain_again < 0 && auto_state[CHOICE] == 1, "stuck on plain: refill kept at the real costs");
  t = run("plain wins", plain, n, per);
  long long l3 = 2 * LEAP < MAXLEVEL ? 2 * LEAP : MAXLEVEL;
  expect(t.first_refill < 0, "plain wins: the plain body throughout");
  expect(t.ntrials == 3 && t.levels[0] == 0 && t.levels[1] == LEAP && t.levels[2] == l3,
         "plain wins: three trials, the levels after them 0 (a second trial confirms), LEAP, 2 LEAP");
  printf("W=%d E=%d: %d driver calls checked, %d differences\n", W, E, calls, bad);
  return bad != 0;
}
