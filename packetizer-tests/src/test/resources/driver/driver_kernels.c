/* Scalar kernels the array-driver tests map over arrays (ArrayDriverCallerTest): one per parameter
 * and result kind. Compiled by the bundled clang with plain -O2. */
#include <stdbool.h>

/* straight-line float; varying, varying, uniform (vvu) */
float saxpy(float x, float y, float a) { return a * x + y; }

/* double with a linear int parameter (vl2: element k sees i + 2k) */
double ramp(double x, int i) { return x * 0.5 + (double)i * 0.25; }

/* int with branches; varying, uniform, uniform (vuu) */
int clampi(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }

/* bool result (i1 zeroext), stored as one byte per element (v) */
bool positive(float x) { return x > 0.0f; }

/* no result: stores through a uniform pointer at a linear index (ulv) */
void sq_to(float *dst, int i, float x) { dst[i] = x * x; }

/* a divergent loop over 64-bit integers (v) */
long collatz(long v) {
  long steps = 0;
  while (v > 1) {
    v = (v & 1) ? 3 * v + 1 : v / 2;
    steps++;
  }
  return steps;
}
