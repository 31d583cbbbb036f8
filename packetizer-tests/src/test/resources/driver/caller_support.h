/* What the array-driver C callers share (options_target_caller.c, counter_caller.c, byte_loop_caller.c, auto_rule_caller.c,
 * refill_caller.c, scalable_refill_caller.c, auto_refill_caller.c, auto_refill_script_caller.c): the guard-page
 * allocator (guard_pages.h) and its release, the xorshift64 random numbers (each caller keeps its own seed and what it
 * makes of them), and the tally: G guard bytes (0xA5) in front of every output, the differences found (the first 30
 * printed by fail), the driver calls made, and whether this pass's inputs are coherent. The tests write it next to the caller, which includes it after the system
 * headers and drivers.h. Plain C99 (static inline, no compiler extensions): clang, GCC and the cross compilers build it. */
#ifndef PACKETIZER_TEST_CALLER_SUPPORT_H
#define PACKETIZER_TEST_CALLER_SUPPORT_H
#include <stddef.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>
#include "guard_pages.h"

#define G 64
static int bad, calls;
static int coherent;

/* Unmaps what at_page_end(bytes) returned, the guard page with it. */
static inline void release(void *p, size_t bytes) {
  size_t pg = (size_t)sysconf(_SC_PAGESIZE);
  size_t span = (bytes + pg - 1) / pg * pg;
  if (span == 0) span = pg;
  munmap((char *)p + bytes - span, span + pg);
}

/* One xorshift64 step (shifts 13, 7, 17) of *state; returns the new state. */
static inline unsigned long long xorshift64(unsigned long long *state) {
  unsigned long long x = *state;
  x ^= x << 13; x ^= x >> 7; x ^= x << 17;
  *state = x;
  return x;
}

/* A difference: element i of what's output for n elements (i < 0: the guard bytes in front of it). */
static inline void fail(const char *what, size_t n, long i) {
  if (bad++ < 30) {
    if (i < 0) printf("%s: n=%zu%s: guard bytes in front of the output overwritten\n", what, n, coherent ? " coherent" : "");
    else printf("%s: n=%zu%s: element %ld differs from the scalar function\n", what, n, coherent ? " coherent" : "", i);
  }
}

/* The G guard bytes g in front of an output still 0xA5. */
static inline void guard(const char *what, size_t n, const unsigned char *g) {
  for (int k = 0; k < G; k++) if (g[k] != 0xA5) { fail(what, n, -1); return; }
}
#ifdef CALLER_INPUT_SEED
/* For the callers that define CALLER_INPUT_SEED before including this header (refill_caller.c, scalable_refill_caller.c,
 * counter_caller.c): their inputs and the macros that place them. gen(lo, hi, i) is element i of cur_n in [lo, hi]:
 * random, the whole range from the xorshift64 numbers seeded by CALLER_INPUT_SEED; coherent, a smooth ramp over a narrow
 * band (neighbours need similar work). IN places n inputs before a guard page; OUT/OUTN an output of n/count elements
 * with G guard bytes (0xA5) in front; SAME compares element i with the scalar result byte for byte; FREE/FREE_OUT(N)
 * release them. Each macro expects n (and SAME i) in scope. */
#include <string.h>
static unsigned long long rng = CALLER_INPUT_SEED;
static size_t cur_n;

static double gen(double lo, double hi, size_t i) {
  xorshift64(&rng);
  if (coherent) return lo + (hi - lo) * (0.4 + 0.05 * (cur_n <= 1 ? 0.5 : (double)i / (double)(cur_n - 1)));
  return lo + (hi - lo) * (double)(rng >> 11) / 9007199254740992.0;
}

#define IN(T, name, lo, hi) \
  T *name = at_page_end(n * sizeof(T)); \
  for (size_t i_ = 0; i_ < n; i_++) name[i_] = (T)gen(lo, hi, i_);
#define OUTN(T, name, count) \
  unsigned char *name##_g = at_page_end(G + (count) * sizeof(T)); \
  memset(name##_g, 0xA5, G + (count) * sizeof(T)); \
  T *name = (T *)(name##_g + G);
#define OUT(T, name) OUTN(T, name, n)
#define SAME(what, got, want) \
  do { __typeof__(want) w_ = (want); if (memcmp(&(got), &w_, sizeof w_) != 0) fail(what, n, (long)i); } while (0)
#define FREE(T, name) release(name, n * sizeof(T));
#define FREE_OUTN(T, name, count) release(name##_g, G + (count) * sizeof(T));
#define FREE_OUT(T, name) FREE_OUTN(T, name, n)
#endif
#endif
