/* GCC's side: loops under #pragma omp simd call the declare-simd functions, whose _ZGV variants
 * the packetizer made from clang's bitcode (GCC 12 calls the notinbranch variants; it keeps scalar
 * calls for the conditional ones, whose masked variants CCallerAbiTest calls explicitly); the reference calls the scalar functions through
 * volatile pointers (never vectorized). Prints every element that differs; exit status 1 if any. */
#include <stdio.h>
#include "omp_kernels.h"

#define N 203
static float a[N], b[N], rf[N], rf2[N], ef[N], ef2[N];
static int ai[N], ri[N], ri2[N], ei[N], ei2[N];
static double tab[N + 16], xd[N], rd[N], ed[N];

__attribute__((noinline)) void loop_gf(void) {
#pragma omp simd
  for (int i = 0; i < N; i++) rf[i] = gf(a[i], b[i]);
}

__attribute__((noinline)) void loop_gf_masked(void) {
#pragma omp simd
  for (int i = 0; i < N; i++)
    if (a[i] < 2.5f) rf2[i] = gf(a[i], b[i]);
}

__attribute__((noinline)) void loop_gi(void) {
#pragma omp simd
  for (int i = 0; i < N; i++)
    if (i % 5 != 3) ri[i] = gi(ai[i], 3, i);
}

/* NL: a multiple of every vlen. GCC 12 -O3 -march=x86-64-v4 finishes a 203-iteration loop with one
 * call of _ZGVdN8vul_gi whose linear argument is 0 instead of 192 (objdump: xor %esi,%esi before the
 * call), so the last lanes would be computed for the wrong i: a GCC bug, not ours. */
#define NL 192
__attribute__((noinline)) void loop_gi_unmasked(int k) {
#pragma omp simd
  for (int i = 0; i < NL; i++) ri2[i] = gi(ai[i], k, i);
}

__attribute__((noinline)) void loop_gd(void) {
#pragma omp simd
  for (int i = 0; i < N; i++)
    if (xd[i] != 0.0) rd[i] = gd(tab, i, xd[i]);
}

int main(void) {
  float (*volatile sf)(float, float) = gf;
  int (*volatile si)(int, int, int) = gi;
  double (*volatile sd)(const double *, int, double) = gd;
  for (int i = 0; i < N; i++) {
    a[i] = (float)((i * 7) % 13) * 0.5f - 2.0f;
    b[i] = (float)((i * 5) % 11) * 0.25f - 1.0f;
    ai[i] = i * 37 - 3000;
    xd[i] = (i % 4 == 0) ? 0.0 : (double)((i * 3) % 17) - 6.5;
    rf2[i] = ef2[i] = -7.0f;
    ri[i] = ei[i] = -7;
    rd[i] = ed[i] = -7.0;
  }
  for (int i = 0; i < N + 16; i++) tab[i] = (double)((i * 11) % 23) - 9.0;
  loop_gf();
  loop_gf_masked();
  loop_gi();
  loop_gi_unmasked(7);
  loop_gd();
  int bad = 0;
  for (int i = 0; i < N; i++) {
    ef[i] = sf(a[i], b[i]);
    if (a[i] < 2.5f) ef2[i] = sf(a[i], b[i]);
    if (i % 5 != 3) ei[i] = si(ai[i], 3, i);
    if (i < NL) ei2[i] = si(ai[i], 7, i);
    if (xd[i] != 0.0) ed[i] = sd(tab, i, xd[i]);
    if (rf[i] != ef[i]) { printf("gf %d: %a, scalar %a\n", i, rf[i], ef[i]); bad++; }
    if (rf2[i] != ef2[i]) { printf("gf masked %d: %a, scalar %a\n", i, rf2[i], ef2[i]); bad++; }
    if (ri[i] != ei[i]) { printf("gi masked %d: %d, scalar %d\n", i, ri[i], ei[i]); bad++; }
    if (ri2[i] != ei2[i]) { printf("gi %d: %d, scalar %d\n", i, ri2[i], ei2[i]); bad++; }
    if (rd[i] != ed[i]) { printf("gd masked %d: %a, scalar %a\n", i, rd[i], ed[i]); bad++; }
  }
  printf("%d elements differ\n", bad);
  return bad != 0;
}
