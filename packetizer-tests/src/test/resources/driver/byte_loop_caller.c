/* A C program calling the refill drivers of byte_loop_kernels.c through the generated header only, compiled in its own
 * translation unit by clang and by GCC (RefillBudgetCallerTest). The refill iteration of these byte loops keeps the loop
 * with an iteration budget, so its byte loads read 8-byte windows: a window must never reach past the page the scalar
 * function reads in, and must be reloaded whenever a lane takes a new element. For every n from 0 to 4W+1 and some large
 * n, on random and coherent inputs, every element is compared with the scalar function called here; the text, the
 * string pool and every array end at a PROT_NONE page (the last element reads the last byte before it), and every
 * output has G guard bytes in front that must stay untouched. */
#define _DEFAULT_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "drivers.h"
#include "caller_support.h"

unsigned token_hash(const unsigned char *buf, int off, int len);
unsigned zhash(const char *s);

#define TEXT 700
#define POOL 900
static unsigned long long rng = 0x9E3779B97F4A7C15ULL;

static unsigned next(void) { return (unsigned)(xorshift64(&rng) >> 32); }
/* a text byte: letters, blanks, tabs, newlines and now and then a NUL (the tokenizer stops there) */
static unsigned char text_byte(void) {
  unsigned r = next() % 64;
  return r < 40 ? (unsigned char)('a' + r % 26) : r < 52 ? ' ' : r < 56 ? '\t' : r < 60 ? '\n' : r < 63 ? (unsigned char)(0x80 + r) : 0;
}

static void run(size_t n) {
  /* token_hash: ranges of 0..72 bytes of the text; the last element ends at the text's last byte (no NUL before it) */
  unsigned char *text = at_page_end(TEXT);
  for (int k = 0; k < TEXT; k++) text[k] = text_byte();
  for (int k = TEXT - 72; k < TEXT; k++) if (text[k] == 0) text[k] = 'z';
  int *off = at_page_end(n * sizeof(int)), *len = at_page_end(n * sizeof(int));
  for (size_t i = 0; i < n; i++) {
    len[i] = coherent ? (int)((i / 32) % 73) : (int)(next() % 73);
    off[i] = coherent ? (int)((i / 8) % (TEXT - 72)) : (int)(next() % (TEXT - len[i] + 1));
    if (i + 1 == n) { off[i] = TEXT - 72; len[i] = 72; }
    if (i + 2 == n) { off[i] = TEXT - 1; len[i] = 1; }
  }
  unsigned char *tg = at_page_end(G + n * sizeof(int32_t));
  memset(tg, 0xA5, G + n * sizeof(int32_t));
  int32_t *t = (int32_t *)(tg + G);
  token_hash_refill(text, off, len, t, n); calls++;
  for (size_t i = 0; i < n; i++) if ((unsigned)t[i] != token_hash(text, off[i], len[i])) fail("token_hash", n, (long)i);
  guard("token_hash", n, tg);

  /* zhash: strings of the pool (NULs about every 24 bytes, the pool's last byte a NUL right before its guard page);
   * the last element is the pool's last string, the one before it the empty string at its last byte */
  char *pool = at_page_end(POOL);
  for (int k = 0; k < POOL; k++) pool[k] = (char)(next() % 24 == 0 ? 0 : 'A' + next() % 58);
  pool[POOL - 1] = 0;
  int last = POOL - 2;
  while (last > 0 && pool[last - 1] != 0) last--;
  const char **s = at_page_end(n * sizeof(char *));
  for (size_t i = 0; i < n; i++) {
    s[i] = pool + (coherent ? (i / 4) % POOL : next() % POOL);
    if (i + 1 == n) s[i] = pool + last;
    if (i + 2 == n) s[i] = pool + POOL - 1;
  }
  unsigned char *zg = at_page_end(G + n * sizeof(int32_t));
  memset(zg, 0xA5, G + n * sizeof(int32_t));
  int32_t *z = (int32_t *)(zg + G);
  zhash_refill((void *const *)s, z, n); calls++;
  for (size_t i = 0; i < n; i++) if ((unsigned)z[i] != zhash(s[i])) fail("zhash", n, (long)i);
  guard("zhash", n, zg);
}

int main(void) {
  for (coherent = 0; coherent <= 1; coherent++) {
    for (size_t n = 0; n <= 4 * W + 1; n++) run(n);
    size_t big[] = {1000, 4099, 20000};
    for (int k = 0; k < 3; k++) run(big[k]);
  }
  printf("W=%d: %d driver calls checked, %d differences\n", W, calls, bad);
  return bad != 0;
}
