/* Functions over other types than float: double, signed and unsigned 8/16/32/64-bit integers,
 * conversions between them, a double result from int parameters. No signed overflow for inputs in
 * range; narrowing conversions of in-range values only. */
#include "../kernel.h"

/*@ file
family: types
*/

/*@ kernel t01: double arithmetic with branches and a loop.
param a: varying range=[-10,10] -- first input
param b: varying range=[-10,10] -- second input
returns: the result in double precision
sample: 0, 0
sample: 1.5, -2.25
sample: -7, 3
sample: 9.75, 9.75
*/
double t01(double a, double b) {
  double s = a * b;
  if (s > 10.0) s = s * 0.5 - a;
  else s = s + b * b * 0.125;
  for (int i = 0; i < 8; ++i) s = s * 0.9 + (double)i * a * 0.01;
  return s;
}

/*@ kernel t02: signed 8-bit: arithmetic in int after promotion, truncated to int8 with wrap-around.
param a: varying range=[-128,127] -- first byte
param b: varying range=[-128,127] -- second byte
returns: the wrapped 8-bit result
sample: 0, 0
sample: 127, 1
sample: -128, -1
sample: 100, -100
*/
int8_t t02(int8_t a, int8_t b) {
  int s = a * 3 + b;
  if (a > b) s = s - b * 2;
  else s = s ^ 0x55;
  return (int8_t)s;
}

/*@ kernel t03: unsigned 16-bit: a loop of multiply-add modulo 2^16 with a varying trip count (b & 15).
param a: varying range=[0,65535] -- start value
param b: varying range=[0,65535] -- multiplier; its low four bits give the trip count
returns: the 16-bit result
sample: 0, 0
sample: 65535, 15
sample: 1234, 7
sample: 40000, 65535
*/
uint16_t t03(uint16_t a, uint16_t b) {
  unsigned x = a;
  for (unsigned i = 0; i < (b & 15u); ++i) x = (x * (b | 1u) + 7u) & 0xffffu;
  return (uint16_t)x;
}

/*@ kernel t04: signed 32-bit: shifts, comparisons and absolute values.
param a: varying range=[-1000000,1000000] -- first input
param b: varying range=[-1000000,1000000] -- second input
returns: the combined value
sample: 0, 0
sample: -1000000, 1000000
sample: 12345, -54321
sample: 7, 7
*/
int32_t t04(int32_t a, int32_t b) {
  int32_t x = a >> 3;
  int32_t y = b < 0 ? -b : b;
  if (x < y) return (x + y) / 2 - (a & 0x3ff);
  return x - (y >> 1) + (b ^ a) % 1024;
}

/*@ kernel t05: signed 64-bit products from floats clamped to range before the conversion.
param a: varying range=[-1000,1000] -- first input (float)
param b: varying range=[-1000,1000] -- second input (float)
returns: a 64-bit integer
sample: 0, 0
sample: 999.5, -999.5
sample: 123.25, 456.75
sample: -1000, -1000
*/
int64_t t05(float a, float b) {
  float ca = fminf(fmaxf(a * 1000.0f, -1.0e6f), 1.0e6f);
  int64_t x = (int64_t)ca;
  int64_t y = (int64_t)(b * 1000.0f);
  int64_t p = x * y;
  if (p > 1000000000LL) p = p / 7;
  return p + x * 16 - y;
}

/*@ kernel t06: unsigned 32-bit division and remainder by a varying divisor guarded against zero.
param a: varying range=[0,4000000000] -- dividend
param b: varying range=[0,100] -- divisor (0 takes the other branch)
returns: quotient times 1000 plus remainder, modulo 2^32
sample: 4000000000, 0
sample: 12345, 7
sample: 100, 100
sample: 0, 3
*/
uint32_t t06(uint32_t a, uint32_t b) {
  if (b == 0u) return a ^ 0xdeadbeefu;
  return (a / b) * 1000u + a % b;
}

/*@ kernel t07: conversions: float to int8 after clamping, int16 to float, double to float.
param a: varying range=[-200,200] -- a float to clamp into int8
param b: varying range=[-32768,32767] -- a 16-bit integer
returns: a float mixing the converted values
sample: 0, 0
sample: 200, -32768
sample: -200, 32767
sample: 127.5, 1
*/
float t07(float a, int16_t b) {
  float c = a > 127.0f ? 127.0f : (a < -128.0f ? -128.0f : a);
  int8_t q = (int8_t)c;
  double d = (double)b * 0.001 + (double)q;
  return (float)d + (float)b * 0.5f;
}

/*@ kernel t08: a double result from two int parameters: a loop computing a partial harmonic-like sum.
param a: varying range=[0,100] -- number of terms
param b: varying range=[1,50] -- offset of the denominators
returns: sum over i < a of 1 / (i + b)
sample: 0, 1
sample: 1, 1
sample: 100, 50
sample: 37, 3
*/
double t08(int a, int b) {
  double s = 0.0;
  for (int i = 0; i < a; ++i) s += 1.0 / (double)(i + b);
  return s;
}

/*@ kernel t09: unsigned 8-bit saturating addition in a loop.
param a: varying range=[0,255] -- start value
param b: varying range=[0,255] -- increment; the loop runs b & 7 times
returns: the saturated byte
sample: 0, 0
sample: 250, 255
sample: 100, 23
sample: 255, 7
*/
uint8_t t09(uint8_t a, uint8_t b) {
  uint8_t x = a;
  for (int i = 0; i < (b & 7); ++i) {
    unsigned s = (unsigned)x + (unsigned)(b >> 2);
    x = s > 255u ? 255u : (uint8_t)s;
  }
  return x;
}

/*@ kernel t10: unsigned 64-bit: bit counting loop (Kernighan) with a data-dependent trip count up to 64.
param a: varying range=[0,9000000000000000000] -- the bits
param b: varying range=[0,63] -- a rotation amount
returns: the number of set bits after rotating, times 100, plus the low byte
sample: 0, 0
sample: 9000000000000000000, 63
sample: 255, 8
sample: 1, 1
*/
uint64_t t10(uint64_t a, uint64_t b) {
  unsigned r = (unsigned)(b & 63u);
  uint64_t x = r == 0u ? a : (a << r) | (a >> (64u - r));
  uint64_t n = 0;
  while (x != 0) {
    x &= x - 1u;
    ++n;
  }
  return n * 100u + (a & 0xffu);
}

/*@ kernel t11: signed 16-bit arithmetic with a branch on the sign and a 32-bit intermediate.
param a: varying range=[-32768,32767] -- first input
param b: varying range=[-32768,32767] -- second input
returns: a 16-bit result (wraps)
sample: 0, 0
sample: -32768, 32767
sample: 1000, -1000
sample: 32767, 32767
*/
int16_t t11(int16_t a, int16_t b) {
  int p = (int)a * (int)b;
  if (p < 0) p = -(p >> 4);
  else p = p >> 6;
  return (int16_t)(p + a - b);
}
