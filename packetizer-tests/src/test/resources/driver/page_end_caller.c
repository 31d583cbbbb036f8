/* A C program calling the array drivers of page_end_kernels.c through the generated header only, compiled in its own
 * translation unit by clang and by GCC (PageEndWindowCallerTest). The byte loops read 8-byte windows per lane; a window
 * that would cross into the next page is read from the page's last 8 bytes and shifted. The text spans two pages and
 * ends exactly where a PROT_NONE page begins. For every length 0..48 and every lane, one packet in which that lane's
 * string ends at the text's last byte while the other lanes take strings ending near it, crossing the inner page
 * boundary, or anywhere; then random n. Every element is compared with the scalar function called here; every output
 * has G guard bytes in front that must stay untouched, and every array ends at a PROT_NONE page. */
#define _DEFAULT_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "drivers.h"
#include "guard_pages.h"

unsigned fnv_range(const unsigned char *s, int start, int len);
unsigned until_star(const unsigned char *s, int start, int len);

#define G 64
#define TEXT 4800
static int bad, calls;
static unsigned long long rng = 0x2545F4914F6CDD1DULL;

static unsigned next(void) {
  rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
  return (unsigned)(rng >> 32);
}
static void fail(const char *what, size_t n, long i, int start, int len) {
  if (bad++ < 30) {
    if (i < 0) printf("%s: n=%zu: guard bytes in front of the output overwritten\n", what, n);
    else printf("%s: n=%zu: element %ld (lane %ld, start %d, len %d) differs from the scalar function\n", what, n, i,
                i % W, start, len);
  }
}

static void run(unsigned char *text, int *start, int *len, size_t n) {
  unsigned char *fg = at_page_end(G + n * sizeof(int32_t)), *ug = at_page_end(G + n * sizeof(int32_t));
  memset(fg, 0xA5, G + n * sizeof(int32_t));
  memset(ug, 0xA5, G + n * sizeof(int32_t));
  int32_t *f = (int32_t *)(fg + G), *u = (int32_t *)(ug + G);
  fnv_range_map(text, start, len, f, n); calls++;
  until_star_map(text, start, len, u, n); calls++;
  for (size_t i = 0; i < n; i++) {
    if ((unsigned)f[i] != fnv_range(text, start[i], len[i])) fail("fnv_range", n, (long)i, start[i], len[i]);
    if ((unsigned)u[i] != until_star(text, start[i], len[i])) fail("until_star", n, (long)i, start[i], len[i]);
  }
  for (int k = 0; k < G; k++) {
    if (fg[k] != 0xA5) { fail("fnv_range", n, -1, 0, 0); break; }
  }
  for (int k = 0; k < G; k++) {
    if (ug[k] != 0xA5) { fail("until_star", n, -1, 0, 0); break; }
  }
}

/* a string of length l: ending within 24 bytes of the text's end, crossing the inner page boundary, or anywhere */
static void pick(int *s, int *l, int inner) {
  *l = (int)(next() % 49);
  unsigned kind = next() % 3;
  int st = kind == 0 ? TEXT - *l - (int)(next() % 25) : kind == 1 ? inner - 1 - (int)(next() % 8)
                                                      : (int)(next() % (unsigned)(TEXT - *l + 1));
  if (st < 0) st = 0;
  if (st > TEXT - *l) st = TEXT - *l;
  *s = st;
}

int main(void) {
  unsigned char *text = at_page_end(TEXT);
  size_t pg = (size_t)sysconf(_SC_PAGESIZE);
  int inner = (int)(TEXT % pg); /* the index of the first byte of the text's last page */
  for (int k = 0; k < TEXT; k++) text[k] = (unsigned char)(next() % 40 == 0 ? 0x2A : 1 + next() % 255);
  /* every length 0..48 in every lane, ending at the text's last byte */
  size_t n = (size_t)49 * W * W;
  int *start = at_page_end(n * sizeof(int)), *len = at_page_end(n * sizeof(int));
  for (size_t i = 0; i < n; i++) {
    size_t packet = i / W, lane = i % W;
    int l = (int)(packet / W), target = (int)(packet % W);
    if ((int)lane == target) { start[i] = TEXT - l; len[i] = l; }
    else pick(&start[i], &len[i], inner);
  }
  run(text, start, len, n);
  /* random strings of the three kinds, every n from 0 to 4W+1 and a large one */
  for (size_t m = 0; m <= 4 * W + 1; m++) {
    for (size_t i = 0; i < m; i++) pick(&start[i], &len[i], inner);
    run(text, start, len, m);
  }
  for (size_t i = 0; i < n; i++) pick(&start[i], &len[i], inner);
  run(text, start, len, n);
  printf("W=%d: %d driver calls checked, %d differences\n", W, calls, bad);
  return bad != 0;
}
