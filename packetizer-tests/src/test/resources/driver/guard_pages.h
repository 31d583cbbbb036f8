/* The guard-page allocator shared by the array-driver C callers (driver_caller.c, refill_caller.c, aos_caller.c,
 * auto_refill_caller.c, scalable_refill_caller.c); the tests write it next to the caller, which includes it after the
 * system headers. at_page_end(bytes): `bytes` bytes ending exactly where a PROT_NONE page begins, so that a driver
 * reading or writing one element past the end of an array faults (exit 139) instead of passing unnoticed. */
#ifndef PACKETIZER_TEST_GUARD_PAGES_H
#define PACKETIZER_TEST_GUARD_PAGES_H
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

static void *at_page_end(size_t bytes) {
  size_t pg = (size_t)sysconf(_SC_PAGESIZE);
  size_t span = (bytes + pg - 1) / pg * pg;
  if (span == 0) span = pg;
  char *base = mmap(NULL, span + pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (base == MAP_FAILED) { perror("mmap"); exit(2); }
  if (mprotect(base + span, pg, PROT_NONE) != 0) { perror("mprotect"); exit(2); }
  return base + span - bytes;
}
#endif
