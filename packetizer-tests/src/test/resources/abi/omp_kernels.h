/* Declarations shared by the definitions (omp_kernels.c, compiled by clang and packetized by us) and
 * GCC's caller (omp_caller.c): GCC calls the _ZGV variants these pragmas name. */

/* float, unmasked and masked, default vlen per ISA (b 4, c/d 8, e 16) */
#pragma omp declare simd notinbranch
#pragma omp declare simd inbranch
float gf(float x, float y);

/* int with a uniform and a linear parameter; simdlen(16): four xmm registers on b, two ymm on c/d.
 * The masked variant divides by zero in lanes the caller masks off. */
#pragma omp declare simd uniform(k) linear(i) notinbranch
#pragma omp declare simd uniform(k) linear(i) simdlen(16) notinbranch
#pragma omp declare simd uniform(k) linear(i) simdlen(16) inbranch
int gi(int a, int k, int i);

/* double, a uniform pointer with a linear index, masked only */
#pragma omp declare simd uniform(p) linear(i) inbranch
double gd(const double *p, int i, double x);
