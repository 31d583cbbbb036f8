/* A C program calling the bilinear fetch's array driver (SlpDriverCallerTest) through the generated
 * header only, compiled in its own translation unit by clang and by GCC. The 64x64 texture ends exactly
 * at a PROT_NONE page (the last texel of the last row is read), so does every input array; the output
 * has G guard bytes in front. Pixel patterns, each at several phases, for every n from 0 to 3W+1 and a
 * long row: random texels; rows magnified x16.8 and x4 (packets of one texel or straddling two: the
 * all-equal and two-valued variants); a row at 1:1, on texel corners and between them, and one ending at
 * the texture's right edge (the consecutive variant); minified x2 and a column (per-lane gathers); two
 * neighbouring texels alternating; one row down every other pixel. Every element is compared bit for bit
 * with the scalar function. */
#define _DEFAULT_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "drivers.h"
#include "guard_pages.h"

float bilinear(const float *t, float u, float v);

#define G 64
#define TEX 64
#define PATTERNS 10
static int bad, calls;
static unsigned long long rng = 88172645463325252ULL;

static float rnd(float lo, float hi) {
  rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
  return lo + (hi - lo) * (float)((rng >> 11) / 9007199254740992.0);
}

/* pixel i of pattern m at phase ph, n pixels in the row: (u, v) within [0, 62.99] */
static void pixel(int m, size_t i, size_t n, int ph, float *u, float *v) {
  float k = (float)(i + (size_t)ph);
  switch (m) {
    case 0: *u = rnd(0, 62.99f); *v = rnd(0, 62.99f); return;
    case 1: *u = 1 + k * (61.0f / 1024); *v = 7.5f; return;              /* x16.8 */
    case 2: *u = 1 + k / 4; *v = 40.25f; return;                          /* x4 */
    case 3: *u = (float)((i + (size_t)ph) % 62); *v = 9; return;          /* 1:1 on texel corners */
    case 4: *u = 0.375f + (float)((i + (size_t)ph) % 62); *v = 20.5f; return; /* 1:1 between texels */
    case 5: *u = 62.5f - (float)(n - 1 - i); if (*u < 0) *u = 0; *v = 62.75f; return; /* 1:1 ending at the right edge, last row */
    case 6: *u = (float)((2 * (i + (size_t)ph)) % 62) + 0.5f; *v = 33; return; /* minified x2 */
    case 7: *u = 12.25f; *v = (float)((i + (size_t)ph) % 62) + 0.125f; return;  /* a column */
    case 8: *u = 20 + (float)((i + (size_t)ph) & 1); *v = 5.5f; return;          /* two neighbours, alternating */
    default: *u = 30.5f; *v = 16 + (float)((i + (size_t)ph) & 1); return;        /* one row down every other pixel */
  }
}

static void run(float *img, size_t n, int m, int ph) {
  float *u = at_page_end(n * sizeof(float)), *v = at_page_end(n * sizeof(float));
  for (size_t i = 0; i < n; i++) {
    pixel(m, i, n, ph, &u[i], &v[i]);
    if (u[i] > 62.99f) u[i] = 62.99f;
  }
  unsigned char *g = at_page_end(G + n * sizeof(float));
  memset(g, 0xA5, G + n * sizeof(float));
  float *out = (float *)(g + G);
  bilinear_map(img, u, v, out, n); calls++;
  for (int k = 0; k < G; k++) if (g[k] != 0xA5) { if (bad++ < 30) printf("n=%zu pattern %d: guard bytes overwritten\n", n, m); break; }
  for (size_t i = 0; i < n; i++) {
    float want = bilinear(img, u[i], v[i]);
    if (memcmp(&out[i], &want, sizeof want) != 0 && bad++ < 30)
      printf("n=%zu pattern %d phase %d: element %zu (u %g, v %g) is %a, the scalar function %a\n", n, m, ph, i, u[i], v[i], out[i], want);
  }
}

int main(void) {
  float *img = at_page_end(TEX * TEX * sizeof(float));
  for (int i = 0; i < TEX * TEX; i++) img[i] = rnd(-1, 1);
  for (int m = 0; m < PATTERNS; m++) {
    for (int ph = 0; ph < 3; ph++) {
      for (size_t n = 0; n <= 3 * W + 1; n++) run(img, n, m, ph * 5);
      run(img, 1000, m, ph * 5);
    }
  }
  printf("W=%d: %d driver calls checked, %d differences\n", W, calls, bad);
  return bad != 0;
}
