/*
 * The examples of Karrenberg's thesis "Automatic Packetization" (2009), written down as C.
 * Figure numbers refer to the thesis.
 */
#include "../kernel.h"

/*@ file
family: thesis
type struct.Color = { float, float, float }
*/

typedef struct Color {
  float r, g, b;
} Color;

/*@ kernel scalarFn
desc: Fig 4.2: straight-line code, x = a + b; y = x*x - b; return x + y.
param a: varying range=[-10,10] -- first input
param b: varying range=[-10,10] -- second input
returns: x + y
sample: 0.5, 1
sample: 0.6, 2
sample: 0.7, 3
sample: 0.8, 4
*/
float scalarFn(float a, float b) {
  float x = a + b;
  float y = x * x - b;
  return x + y;
}

/*@ kernel fig23
desc: Fig 2.3: x = 2a, incremented while it is below b, minus 2. Zero or many iterations per lane (at most 100 in range).
param a: varying range=[-25,25] -- start value is 2a
param b: varying range=[-50,50] -- loop bound
returns: the first x >= b, minus 2
sample: 0, 2
sample: 7, 1
sample: 3, 9
sample: -1, -1
*/
float fig23(float a, float b) {
  float x = 2.0f * a;
  while (x < b) ++x;
  return x - 2.0f;
}

/*@ kernel fig47
desc: Fig 4.7: int x incremented while below 8; per-lane trip counts (inputs 0,2,4,6 iterate 8,6,4,2 times). A small checksum of the values passed keeps clang from folding the loop into max(x, 8).
param x: varying range=[-150,20] -- start value
returns: the final x (max(x, 8)) plus 1000 times the checksum
sample: 0
sample: 2
sample: 4
sample: 6
*/
int fig47(int x) {
  int odd = 0;
  while (x < 8) {
    ++x;
    odd ^= x & 1;
    odd += x & 2;
  }
  return x + 1000 * odd;
}

/*@ kernel fig411
desc: Figs 4.11/4.12: a loop with three exits (the latch, a break and a return inside different branches), live values x and i; needs the combined loop-exit mask.
param a: varying range=[-10,10] -- start value
param b: varying range=[-10,10] -- threshold
returns: x at the exit taken, doubled when leaving through the return
sample: 3, 0
sample: -5, 2
sample: 8, 9
sample: 0, 0
*/
float fig411(float a, float b) {
  float x = a;
  int i;
  for (i = 0; i < 50; ++i) {
    if (x > b) {
      x = x * 0.5f - 1.0f;
      if (x < -4.0f) break;
    } else {
      x = x + 1.5f;
      if (x > 9.0f) return x * 2.0f;
    }
  }
  return x + (float)i;
}

/*@ kernel fig414
desc: Fig 4.14: nested loops with a nested if/else cascade in the outer body, float division, and a result Color written through a pointer. Outer trip count varies per lane (y = (a+b)^2 - b, up to 18), inner loop runs 100 times. As in the thesis, z may overflow for some inputs (about 3% give inf or NaN; the same operations give the same bits in every lane).
param a: varying range=[-2,2] -- first input
param b: varying range=[-2,2] -- second input
param color: soa pointee=struct.Color count=1 dir=out init=zero -- result, all three channels set to z
returns: void
sample: 1, 0.5, _
sample: -1.5, 1.5, _
sample: 0.25, 0.25, _
sample: 2, -2, _
*/
void fig414(float a, float b, Color *color) {
  float x = a + b;
  float y = x * x - b;
  float z = y;
  for (int i = 0; i < y; ++i) {
    z += a;
    if (z / a < x) {
      z += a;
    } else {
      z -= b;
      if (a > b) {
        z -= b;
      } else {
        z *= z - y;
        if (b == a) {
          z = a + 3.0f;
        } else {
          ++z;
        }
      }
    }
    for (int j = 0; j < 100; ++j) {
      if (i < j) z += a;
      else z -= 13.2f;
    }
  }
  z = z - y;
  color->r = z;
  color->g = z;
  color->b = z;
}

/*@ kernel fig417
desc: Fig 4.17: store 3.14 to the third member of a Color under a divergent condition; the other members are left alone.
param a: varying range=[-10,10] -- first input
param b: varying range=[-10,10] -- second input
param color: soa pointee=struct.Color count=1 dir=inout init=random[-1,1] -- colour, member b overwritten when a > b
returns: void
sample: 1, 0, _
sample: 0, 1, _
*/
void fig417(float a, float b, Color *color) {
  if (a > b) color->b = 3.14f;
}
