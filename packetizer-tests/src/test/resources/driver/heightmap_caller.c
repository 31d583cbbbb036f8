/* A C program calling the height-map kernels' array drivers (TwoValuedDriverCallerTest) through the
 * generated header only, compiled in its own translation unit by clang and by GCC. The 64x64 texture
 * ends exactly at a PROT_NONE page, so does every input array; the output has G guard bytes in front.
 * Pixel patterns: random texels; rows magnified x16.8, x34, x6 and x4 (packets of one texel, of two,
 * of three or more); two neighbouring texels alternating; two far apart in blocks of five; each at several phases and for every n from 0 to 3W+1
 * and a long row. Every element is compared bit for bit with the scalar function. */
#define _DEFAULT_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "drivers.h"
#include "guard_pages.h"

float hlight(const float *img, float u, float v);
float hshade(const float *img, float u, float v);

#define G 64
#define TEX 64
static int bad, calls;
static unsigned long long rng = 88172645463325252ULL;

static float rnd(float lo, float hi) {
  rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
  return lo + (hi - lo) * (float)((rng >> 11) / 9007199254740992.0);
}

/* pixel i of pattern m at phase ph: (u, v) within [1, 62] */
static void pixel(int m, size_t i, int ph, float *u, float *v) {
  float k = (float)(i + (size_t)ph);
  switch (m) {
    case 0: *u = rnd(1, 62.99f); *v = rnd(1, 62.99f); return;
    case 1: *u = 1 + k * (61.0f / 1024); *v = 7.5f; return;   /* x16.8 */
    case 2: *u = 1 + k * (30.0f / 1024); *v = 30.25f; return; /* x34 */
    case 3: *u = 1 + k / 6; *v = 11 + k / 2048; return;       /* x6: W16 packets of three texels */
    case 4: *u = 1 + k / 4; *v = 40; return;                  /* x4 */
    case 5: *u = 20 + (float)((i + (size_t)ph) & 1); *v = 5.5f; return;                   /* two neighbours, alternating */
    default: if (((i + (size_t)ph) / 5) & 1) { *u = 60.5f; *v = 58; } else { *u = 3; *v = 3.75f; } return; /* two far apart, in blocks of 5 */
  }
}

static void run(const char *what, void (*map)(void *, const float *, const float *, float *, size_t),
                float (*scalar)(const float *, float, float), float *img, size_t n, int m, int ph) {
  float *u = at_page_end(n * sizeof(float)), *v = at_page_end(n * sizeof(float));
  for (size_t i = 0; i < n; i++) {
    pixel(m, i, ph, &u[i], &v[i]);
    if (u[i] > 62.99f) u[i] = 62.99f;
  }
  unsigned char *g = at_page_end(G + n * sizeof(float));
  memset(g, 0xA5, G + n * sizeof(float));
  float *out = (float *)(g + G);
  map(img, u, v, out, n); calls++;
  for (int k = 0; k < G; k++) if (g[k] != 0xA5) { if (bad++ < 30) printf("%s: n=%zu pattern %d: guard bytes overwritten\n", what, n, m); break; }
  for (size_t i = 0; i < n; i++) {
    float want = scalar(img, u[i], v[i]);
    if (memcmp(&out[i], &want, sizeof want) != 0 && bad++ < 30)
      printf("%s: n=%zu pattern %d phase %d: element %zu (u %g, v %g) is %a, the scalar function %a\n", what, n, m, ph, i, u[i], v[i], out[i], want);
  }
}

int main(void) {
  float *img = at_page_end(TEX * TEX * sizeof(float));
  for (int i = 0; i < TEX * TEX; i++) img[i] = rnd(-1, 1);
  for (int m = 0; m < 7; m++) {
    for (int ph = 0; ph < 3; ph++) {
      for (size_t n = 0; n <= 3 * W + 1; n++) {
        run("hlight", hlight_map, hlight, img, n, m, ph * 5);
        run("hshade", hshade_map, hshade, img, n, m, ph * 5);
      }
      run("hlight", hlight_map, hlight, img, 1000, m, ph * 5);
      run("hshade", hshade_map, hshade, img, 1000, m, ph * 5);
    }
  }
  printf("W=%d: %d driver calls checked, %d differences\n", W, calls, bad);
  return bad != 0;
}
