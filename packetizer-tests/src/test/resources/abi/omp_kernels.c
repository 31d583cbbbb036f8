/* The definitions GCC's caller (omp_caller.c) calls through their _ZGV variants: compiled by the
 * bundled clang with -fopenmp-simd (clang records the variants of a definition that carries the
 * pragmas, not of a declaration), packetized by GccOmpSimdCallerTest. The pragmas are the ones of
 * omp_kernels.h, which GCC's side includes. */

#pragma omp declare simd notinbranch
#pragma omp declare simd inbranch
float gf(float x, float y) {
  if (x > y) return (x - y) / (y * y + 1.0f);
  return x * 3.0f + y;
}

#pragma omp declare simd uniform(k) linear(i) notinbranch
#pragma omp declare simd uniform(k) linear(i) simdlen(16) notinbranch
#pragma omp declare simd uniform(k) linear(i) simdlen(16) inbranch
int gi(int a, int k, int i) {
  int d = (i % 5) - k;
  int r = a / d;
  for (int j = 0; j < (a & 3); j++) r += j * i;
  return r;
}

#pragma omp declare simd uniform(p) linear(i) inbranch
double gd(const double *p, int i, double x) {
  double v = p[i];
  return v > x ? v * x : v - x * 0.5;
}

/* vector math inside a variant: each ISA's variant calls libmvec's variant for that ISA (the b one
 * made from this AVX-512 module must not call the AVX2 _ZGVdN8v_sinf from SSE code) */
float sinf(float);
#pragma omp declare simd simdlen(8) notinbranch
float gs(float x) { return sinf(x) * 0.5f; }
