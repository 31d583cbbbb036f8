/* A C program calling the --refill=auto driver of mandelbrot built with the scripted clock
 * (-Dpacketizer.refill.autoClockScript=ROWS: no cycle counter; each timed call of a body costs its elements times the cycles
 * per element in row min(trials measured, ROWS - 1) of mandelbrot_auto.clock), through the generated header only, compiled
 * in its own translation unit by clang and by GCC (AutoRefillScriptCallerTest). W: the packet width; E: the driver's epoch
 * in elements; T: a trial's elements; LEAP: RefillDriver.PLAIN_LEAP; MAXLEVEL: RefillDriver.ADAPTIVE_MAX_LEVEL; TOP:
 * RefillDriver.WATCH_MAX_LEVEL; STATE_WORDS: RefillDriver.STATE_FIELDS. Every element of every call is compared with the
 * scalar function; every array ends at a PROT_NONE page, every output has G guard bytes in front.
 * Two scripts from a fresh state, each over 8 epochs in calls of 8W+3 elements:
 * (1) stuck on plain: the first trial disturbed (refill 10 times the plain body's cost), then the real costs (refill 0.3
 *     times plain): refill in use within 3 epochs and kept to the end (the first trial's plain win is confirmed by a
 *     second trial, judged alone, before the back-off grows);
 * (2) plain really wins (refill 1.5 times plain): the plain body throughout, the levels after the three trials
 *     0, LEAP, 2 LEAP (capped at MAXLEVEL).
 * Then the watch's spacing (RefillDriver.adaptiveWatchSpacing), work rising for both bodies alike (from the third trial on
 * each row 2.5 times the one before, refill 1.5 times plain: every trial keeps the plain body, every run's pieces alarm):
 * (3) one call of 48 epochs: exactly the trials of runs of 1, 2, 4, 8, 8, ... epochs and the alarm's tail of half an epoch
 *     (the watch's level rising to TOP with each trial an alarm brought), all but the first two brought by an alarm;
 * (4) five such trials, then an input that turned random (plain 2.5 times dearer again, refill a quarter of it), calls of
 *     8W+3: the levels after the five 0, LEAP, 2 LEAP, ... and the watch's 0, 0, 1, 2, 3 (capped at TOP); refill within
 *     2^TOP + 3 epochs of the change and not before 2^TOP - 1 (the alarm waits that long), the watch's level 0 after it.
 * Then the loss cut (RefillDriver.adaptiveLossCut; TR: a whole trial's refill elements, PROBE: a probe's):
 * (5) refill always 3 times the plain body's cost, 64 epochs in calls of 8W+3: the plain body throughout, 4 trials (two
 *     whole ones, the second confirming the first, then a probe 2^LEAP epochs later that leaps, and a probe 2^MAXLEVEL epochs
 *     after it), the levels after them 0, LEAP, MAXLEVEL, MAXLEVEL, and the refill body ran exactly 2 TR + 2 PROBE elements
 *     in timed calls (the clock's last word).
 * No timing of this host enters the decisions. */
#define _DEFAULT_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "drivers.h"
#include "caller_support.h"

int mandelbrot(float x0, float y0, int maxIter);
extern long long auto_state[STATE_WORDS] __asm__("mandelbrot_auto.state");
extern long long auto_clock[2 + 2 * ROWS] __asm__("mandelbrot_auto.clock");
enum { POS, LEFT, LEVEL, CHOICE, PCYC, RCYC, TRIALS, SAVED, WATCH = 12 };
#define WATCH_LEVEL(s) ((s) & 0xFF)
#define WATCH_TRIALS(s) ((s) >> 16)

static unsigned long long rng = 88172645463325252ULL;

static double uniform(void) { return (double)(xorshift64(&rng) >> 11) / 9007199254740992.0; }

/* what one run saw: the element after which refill was first in use (-1: never), plain again after it, the levels and the
   watch's levels after each trial decided, the element (a call's end) by which each trial was measured */
struct trace { long long first_refill, plain_again; int ntrials, nmeasured; long long levels[64], watch[64], measured_at[64]; };

/* a fresh state and the script's rows {plain, refill cycles per element} (the last of nrows repeated); then n random points
   in calls of `per` */
static struct trace run(const char *what, const long long rows[][2], int nrows, size_t n, size_t per) {
  static struct trace t;
  memset(&t, 0, sizeof t);
  t.first_refill = t.plain_again = -1;
  memset(auto_state, 0, sizeof auto_state);
  auto_clock[0] = 0;
  auto_clock[1 + 2 * ROWS] = 0; /* the refill body's elements in timed calls */
  for (int k = 0; k < ROWS; k++) for (int j = 0; j < 2; j++) auto_clock[1 + 2 * k + j] = rows[k < nrows ? k : nrows - 1][j];
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
    for (; trials < auto_state[TRIALS]; trials++) {
      if (t.ntrials < 64) { t.levels[t.ntrials] = auto_state[LEVEL]; t.watch[t.ntrials] = WATCH_LEVEL(auto_state[WATCH]); }
      t.ntrials++;
    }
    for (; t.nmeasured < auto_clock[0]; t.nmeasured++) if (t.nmeasured < 64) t.measured_at[t.nmeasured] = (long long)(i + c);
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
  for (int k = 0; k < t.ntrials && k < 64; k++) printf(" %lld", t.levels[k]);
  printf(", the watch's");
  for (int k = 0; k < t.ntrials && k < 64; k++) printf(" %lld", t.watch[k]);
  printf(" (%d trials)\n", t.ntrials);
  return t;
}

static void expect(int ok, const char *what) {
  if (!ok) { bad++; printf("FAILED: %s\n", what); }
}

/* row k of the rising work: plain 10·2.5^(k-1) (rows 0 and 1: 10), refill 1.5 times that */
static void rising(long long row[2], int k) {
  long long p = 10;
  for (int j = 1; j < k; j++) p = p * 5 / 2;
  row[0] = p;
  row[1] = p * 3 / 2;
}

/* the trials decided in one call of n elements of the rising work: trial 0 (T elements), the fresh state's level-0 run (an
   epoch less T), trial 1, then runs of 2^v epochs, v = 0, 1, 2, ... up to TOP, and the alarm's tail (half an epoch on the
   scripted clock), each followed by a trial */
static int rising_trials(long long n) {
  long long pos = T;
  int trials = 0;
  if (pos > n) return trials;
  trials++;
  pos += E;
  if (pos > n) return trials;
  trials++;
  for (int v = 0;; v = v < TOP ? v + 1 : TOP) {
    pos += (1LL << v) * E + E / 2 + T;
    if (pos > n) return trials;
    trials++;
  }
}

int main(void) {
  size_t n = 8 * (size_t)E, per = 8 * W + 3;
  static const long long stuck[2][2] = {{100, 1000}, {100, 30}}, plain[2][2] = {{100, 150}, {100, 150}};
  struct trace t = run("stuck on plain", stuck, 2, n, per);
  expect(t.first_refill >= 0 && t.first_refill <= 3LL * E, "stuck on plain: refill within 3 epochs of a disturbed first trial");
  expect(t.plain_again < 0 && auto_state[CHOICE] == 1, "stuck on plain: refill kept at the real costs");
  t = run("plain wins", plain, 2, n, per);
  long long l3 = 2 * LEAP < MAXLEVEL ? 2 * LEAP : MAXLEVEL;
  expect(t.first_refill < 0, "plain wins: the plain body throughout");
  expect(t.ntrials == 3 && t.levels[0] == 0 && t.levels[1] == LEAP && t.levels[2] == l3,
         "plain wins: three trials, the levels after them 0 (a second trial confirms), LEAP, 2 LEAP");

  /* (3) rising work, one call of 48 epochs */
  static long long rows[ROWS][2];
  for (int k = 0; k < ROWS; k++) rising(rows[k], k);
  t = run("rising work", (const long long (*)[2])rows, ROWS, 48 * (size_t)E, 48 * (size_t)E);
  int want = rising_trials(48LL * E);
  expect(t.ntrials == want, "rising work: the trials of runs of 1, 2, 4, 8, 8, ... epochs");
  expect(t.first_refill < 0 && auto_state[LEVEL] == MAXLEVEL, "rising work: the plain body throughout, the back-off at its top");
  expect(WATCH_LEVEL(auto_state[WATCH]) == TOP && WATCH_TRIALS(auto_state[WATCH]) == want - 2,
         "rising work: the watch's level at its top, every trial after the second brought by an alarm");
  printf("rising work: %d trials, %d from the rule\n", t.ntrials, want);

  /* (4) the input changes after five trials of rising work, calls of 8W+3 */
  enum { CHANGE = 5 };
  for (int k = CHANGE; k < ROWS; k++) { rising(rows[k], CHANGE); rows[k][1] = rows[k][0] / 4; }
  t = run("input changes", (const long long (*)[2])rows, ROWS, (size_t)(5 + (1 << TOP) * 2 + 24) * E, per);
  int ok = t.ntrials > CHANGE && t.nmeasured >= CHANGE;
  for (int k = 0; ok && k < CHANGE; k++) {
    long long level = k == 0 ? 0 : k * LEAP < MAXLEVEL ? k * LEAP : MAXLEVEL, watch = k < 2 ? 0 : k - 1 < TOP ? k - 1 : TOP;
    ok = t.levels[k] == level && t.watch[k] == watch;
  }
  expect(ok, "input changes: the levels after the first five trials 0, LEAP, 2 LEAP, ..., the watch's 0, 0, 1, 2, 3");
  long long at = t.nmeasured >= CHANGE ? t.measured_at[CHANGE - 1] : -1, took = t.first_refill - at;
  printf("input changes: refill %lld elements (%.2f epochs) after the change at %lld\n", took, (double)took / E, at);
  expect(at > 0 && t.first_refill > 0 && took <= ((1LL << TOP) + 3) * E && took >= ((1LL << TOP) - 1) * E,
         "input changes: refill within 2^TOP + 3 epochs of the change, not before 2^TOP - 1");
  expect(t.plain_again < 0 && auto_state[CHOICE] == 1 && WATCH_LEVEL(auto_state[WATCH]) == 0,
         "input changes: refill kept, the watch's level back at 0");
  /* (5) refill loses badly: probes, and the back-off at its top after the confirming trial */
  static const long long loses[1][2] = {{100, 300}};
  t = run("refill loses", loses, 1, 64 * (size_t)E, per);
  long long spent = auto_clock[1 + 2 * ROWS];
  printf("refill loses: %d trials, %lld refill elements in timed calls (2 TR + 2 PROBE = %lld)\n", t.ntrials, spent, 2LL * TR + 2LL * PROBE);
  expect(t.first_refill < 0 && auto_state[CHOICE] == 0, "refill loses: the plain body throughout");
  expect(t.ntrials == 4 && t.levels[0] == 0 && t.levels[1] == LEAP && t.levels[2] == MAXLEVEL && t.levels[3] == MAXLEVEL,
         "refill loses: four trials, the levels after them 0, LEAP, MAXLEVEL, MAXLEVEL");
  expect(spent == 2LL * TR + 2LL * PROBE, "refill loses: two whole trials and two probes of refill elements");

  printf("W=%d E=%d: %d driver calls checked, %d differences\n", W, E, calls, bad);
  return bad != 0;
}
