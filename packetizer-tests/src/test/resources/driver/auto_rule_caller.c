/* A C program calling the --refill=auto drivers of auto_rule_kernels.c through the generated header only (no vector
 * types), compiled in its own translation unit by clang and by GCC (AutoRuleCallerTest). The kernels' loops hold a short
 * share of their instructions, which the sixteenth round's rule refused and the weighted rule gives the adaptive driver:
 * with short epochs (E elements) the larger n run many paired trials, each running both bodies (the plain and the refill
 * one) on the same elements, the first into the output. For every n from 0 to 4W+1 and several n across epochs, random
 * and coherent inputs, every element is compared, byte for byte, with the scalar function called here. Every array
 * (the byte table too) ends at a PROT_NONE page, and every output has G guard bytes in front that must stay untouched. */
#define _DEFAULT_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "drivers.h"
#include "caller_support.h"

unsigned tail_hash(const unsigned char *buf, int off, int len, unsigned seed);
float newton_poly(float a, float b);

#define TABLE 320
static unsigned long long rng = 88172645463325252ULL;

static unsigned next(void) { return (unsigned)(xorshift64(&rng) >> 32); }

static void run(size_t n) {
  /* tail_hash: offsets 0..256 and lengths 0..64 (random), or slowly growing ones (coherent): the last byte read is the
   * table's last, before its guard page */
  unsigned char *buf = at_page_end(TABLE);
  for (int k = 0; k < TABLE; k++) buf[k] = (unsigned char)next();
  int *off = at_page_end(n * sizeof(int)), *len = at_page_end(n * sizeof(int));
  for (size_t i = 0; i < n; i++) {
    off[i] = coherent ? (int)((i / 16) % 257) : (int)(next() % 257);
    len[i] = coherent ? (int)((i / 64) % 65) : (int)(next() % 65);
    if (i + 1 == n) { off[i] = TABLE - 64; len[i] = 64; }
  }
  unsigned char *hg = at_page_end(G + n * sizeof(int32_t));
  memset(hg, 0xA5, G + n * sizeof(int32_t));
  int32_t *h = (int32_t *)(hg + G);
  tail_hash_auto(buf, off, len, 0x5EEDu, h, n); calls++;
  for (size_t i = 0; i < n; i++) if ((unsigned)h[i] != tail_hash(buf, off[i], len[i], 0x5EEDu)) fail("tail_hash", n, (long)i);
  guard("tail_hash", n, hg);
  release(buf, TABLE); release(off, n * sizeof(int)); release(len, n * sizeof(int)); release(hg, G + n * sizeof(int32_t));

  /* newton_poly: a in [0, 4096) (random) or a slow ramp (coherent): 1 to 40 iterations */
  float *a = at_page_end(n * sizeof(float)), *b = at_page_end(n * sizeof(float));
  for (size_t i = 0; i < n; i++) {
    a[i] = coherent ? (float)(i % 4096) * 0.75f : (float)(next() % 4096000) / 1000.0f;
    b[i] = (float)(next() % 2000) / 1000.0f - 1.0f;
  }
  unsigned char *qg = at_page_end(G + n * sizeof(float));
  memset(qg, 0xA5, G + n * sizeof(float));
  float *q = (float *)(qg + G);
  newton_poly_auto(a, b, q, n); calls++;
  for (size_t i = 0; i < n; i++) {
    float want = newton_poly(a[i], b[i]);
    if (memcmp(&q[i], &want, sizeof want) != 0) fail("newton_poly", n, (long)i);
  }
  guard("newton_poly", n, qg);
  release(a, n * sizeof(float)); release(b, n * sizeof(float)); release(qg, G + n * sizeof(float));
}

int main(void) {
  size_t e = E;
  for (coherent = 0; coherent <= 1; coherent++) {
    for (size_t n = 0; n <= 4 * W + 1; n++) run(n);
    /* across epochs: every call runs trials (the state carries over between calls) */
    size_t big[] = {3 * e + W + 1, 7 * e + 5, 16 * e, 16 * e + 3};
    for (int r = 0; r < 3; r++) for (int k = 0; k < 4; k++) run(big[k]);
  }
  printf("W=%d E=%zu: %d driver calls checked, %d differences\n", W, e, calls, bad);
  return bad != 0;
}
