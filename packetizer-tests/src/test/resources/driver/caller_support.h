/* What the array-driver C callers share (options_target_caller.c, byte_loop_caller.c, auto_rule_caller.c,
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
#endif
