/* Math library calls (clang emits them as LLVM intrinsics with -fno-math-errno) in straight-line
 * code, branches and loops, plus calls of out-of-line helper functions. */
#include "../kernel.h"

/*@ file
family: call
param a: varying range=[-10,10] -- first input
param b: varying range=[-10,10] -- second input
returns: a value computed with math functions
sample: 0, 0
sample: 1, -1
sample: -3, 2
sample: 5, 5
sample: -7.5, -8
sample: 9, 0.5
sample: 0.25, -10
sample: -10, 10
*/

/*@ kernel call01: sqrtf of fabsf, straight-line. */
float call01(float a, float b) {
  return sqrtf(fabsf(a)) * b + sqrtf(a * a + b * b);
}

/*@ kernel call02: sinf and cosf feeding a branch; each arm calls another one of them. */
float call02(float a, float b) {
  float s = sinf(a), c = cosf(b);
  if (s > c) return s * 2.0f + cosf(a * b * 0.1f);
  return c - sinf(b * 0.5f) * s;
}

/*@ kernel call03: expf inside a loop with a varying trip count (0..10). */
float call03(float a, float b) {
  int n = (int)(a + 10.0f) / 2;
  float s = 0.0f;
  for (int i = 0; i < n; ++i) s += expf(b * 0.1f - (float)i * 0.3f);
  return s;
}

/*@ kernel call04: logf of a positive argument and powf with a constant exponent. */
float call04(float a, float b) {
  return logf(1.0f + fabsf(a)) * powf(fabsf(b) + 1.0f, 0.5f) + logf(2.0f + b * b);
}

/*@ kernel call05: floorf, ceilf and roundf (exact operations: no ulp allowance needed). */
float call05(float a, float b) {
  float f = floorf(a * 1.5f), c = ceilf(b * 0.75f), r = roundf(a - b);
  return f * 100.0f + c * 10.0f + r;
}

/*@ kernel call06: fminf and fmaxf clamping, then a branch on the clamped value. */
float call06(float a, float b) {
  float t = fmaxf(-2.0f, fminf(a * b * 0.1f, 2.0f));
  if (t > 1.0f) return fmaxf(a, b) + t;
  return fminf(a, b) - t;
}

/*@ kernel call07: different math calls in the two arms of a divergent branch (sinf vs. expf). */
float call07(float a, float b) {
  float r;
  if (a > 0.0f) r = sinf(a) * b + 1.0f;
  else r = expf(a * 0.5f) - b;
  return r;
}

/*@ kernel call08: powf with a varying exponent and a varying positive base. */
float call08(float a, float b) {
  return powf(fabsf(a) * 0.5f + 0.5f, b * 0.3f);
}

/*@ kernel call09: Newton iteration for a square root next to sqrtf, in a loop that stops when converged (varying trip count). */
float call09(float a, float b) {
  float v = a * a + fabsf(b) + 1.0f;
  float x = v;
  int i = 0;
  while (fabsf(x * x - v) > 1.0e-3f * v && i < 40) {
    x = 0.5f * (x + v / x);
    ++i;
  }
  return (x - sqrtf(v)) * 1000.0f + (float)i;
}

/*@ kernel call10: expf and logf in a loop with a data-dependent exit. */
float call10(float a, float b) {
  float x = a * 0.1f;
  int i;
  for (i = 0; i < 30; ++i) {
    x = logf(1.0f + expf(x)) - 0.3f + b * 0.01f;
    if (x < 0.2f) break;
  }
  return x + (float)i;
}

/*@ kernel call11: fabsf, copysignf and truncf. */
float call11(float a, float b) {
  return copysignf(truncf(a * 2.5f), b) + fabsf(a - b) * 0.5f;
}

/*@ kernel call12: fmodf (an frem instruction) and floorf in a branch. */
float call12(float a, float b) {
  float m = fmodf(a, 3.0f);
  if (m < 0.0f) m = m + 3.0f;
  return m * 10.0f + floorf(b * 0.5f);
}

/* Out-of-line helpers: the packetizer sees calls it cannot inline. */
NOINLINE float smoothstep_helper(float lo, float hi, float x) {
  float t = (x - lo) / (hi - lo);
  t = t < 0.0f ? 0.0f : (t > 1.0f ? 1.0f : t);
  return t * t * (3.0f - 2.0f * t);
}

NOINLINE float poly_helper(float x) {
  return ((0.5f * x - 1.25f) * x + 2.0f) * x - 0.75f;
}

/*@ kernel call13: calls of an out-of-line pure helper (noinline) with varying arguments, once per branch arm. */
float call13(float a, float b) {
  if (a > b) return smoothstep_helper(-10.0f, 10.0f, a) * b;
  return smoothstep_helper(-5.0f, 5.0f, b) + a;
}

/*@ kernel call14: an out-of-line helper called in a loop with a varying trip count (0..10). */
float call14(float a, float b) {
  int n = (int)(b + 10.0f) / 2;
  float s = a * 0.1f;
  for (int i = 0; i < n; ++i) s = poly_helper(s) * 0.25f;
  return s;
}
