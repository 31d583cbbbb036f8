/* A C program calling the array drivers of options_target_kernels.c through the generated header only, compiled in its
 * own translation unit by clang and by GCC (OptionsTargetCallerTest). For every n from 0 to 4W+1 and some large n, on
 * random and coherent inputs, every element is compared with the scalar function called here (compiled from the same
 * module for the generic x86-64 it was compiled for); every array ends at a PROT_NONE page and every output has G guard
 * bytes in front that must stay untouched. */
#define _DEFAULT_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "drivers.h"
#include "caller_support.h"

int cell(float x, float y);
unsigned fnv(const unsigned char *s, int start, int len);

#define TEXT 600
static unsigned long long rng = 0x2545F4914F6CDD1DULL;

static unsigned next(void) { return (unsigned)(xorshift64(&rng) >> 32); }
/* a float around the rounding edges: quarters and random fractions in [-3000, 3000], signed zeros */
static float value(size_t i) {
  unsigned r = coherent ? (unsigned)(i / 8) * 2654435761u : next();
  switch (r % 5) {
    case 0: return (float)((int)(r >> 8) % 24001 - 12000) / 4.0f;
    case 1: return (float)((int)(r >> 8) % 6001 - 3000) + (float)(r & 255) / 256.0f;
    case 2: return (r & 256) ? -0.0f : 0.0f;
    case 3: return (float)((int)(r >> 8) % 8001 - 4000) / 0.37f / 10.0f;
    default: return (float)((int)(r >> 8) % 2001 - 1000) / 1.3f;
  }
}

static void run(size_t n) {
  float *x = at_page_end(n * sizeof(float)), *y = at_page_end(n * sizeof(float));
  for (size_t i = 0; i < n; i++) { x[i] = value(i); y[i] = value(i + 7); }
  unsigned char *cg = at_page_end(G + n * sizeof(int32_t));
  memset(cg, 0xA5, G + n * sizeof(int32_t));
  int32_t *c = (int32_t *)(cg + G);
  cell_drv(x, y, c, n); calls++;
  for (size_t i = 0; i < n; i++) if (c[i] != cell(x[i], y[i])) fail("cell", n, (long)i);
  guard("cell", n, cg);

  /* fnv: ranges of 0..48 bytes of the text; the last element ends at the text's last byte */
  unsigned char *text = at_page_end(TEXT);
  for (int k = 0; k < TEXT; k++) text[k] = (unsigned char)next();
  int *off = at_page_end(n * sizeof(int)), *len = at_page_end(n * sizeof(int));
  for (size_t i = 0; i < n; i++) {
    len[i] = coherent ? (int)((i / 16) % 49) : (int)(next() % 49);
    off[i] = coherent ? (int)((i / 8) % (TEXT - 48)) : (int)(next() % (TEXT - len[i] + 1));
    if (i + 1 == n) { off[i] = TEXT - 48; len[i] = 48; }
  }
  unsigned char *fg = at_page_end(G + n * sizeof(int32_t));
  memset(fg, 0xA5, G + n * sizeof(int32_t));
  int32_t *f = (int32_t *)(fg + G);
  fnv_drv(text, off, len, f, n); calls++;
  for (size_t i = 0; i < n; i++) if ((unsigned)f[i] != fnv(text, off[i], len[i])) fail("fnv", n, (long)i);
  guard("fnv", n, fg);
}

int main(void) {
  for (coherent = 0; coherent <= 1; coherent++) {
    for (size_t n = 0; n <= 4 * W + 1; n++) run(n);
    size_t big[] = {1000, 4099};
    for (int k = 0; k < 2; k++) run(big[k]);
  }
  printf("W=%d: %d driver calls checked, %d differences\n", W, calls, bad);
  return bad != 0;
}
