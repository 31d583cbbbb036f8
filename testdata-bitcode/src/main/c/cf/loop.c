/* Single loops with uniform (constant) and varying trip counts: zero, one or many iterations per
 * lane. Trip counts stay below 200 for inputs in range. */
#include "../kernel.h"

/*@ file
family: loop
param a: varying range=[-10,10] -- first input
param b: varying range=[-10,10] -- second input
returns: a value accumulated by the loop
sample: 0, 0
sample: 1, -1
sample: -3, 2
sample: 5, 5
sample: -10, 9.5
sample: 9.9, 0.5
sample: 0.25, -10
sample: -6, -6
*/

/*@ kernel loop01: constant trip count 16 (uniform loop): every lane iterates equally, the loop branch stays scalar. */
float loop01(float a, float b) {
  float s = 0.0f;
  for (int i = 0; i < 16; ++i) {
    s = s * 0.5f + a * (float)i - b;
  }
  return s;
}

/*@ kernel loop02: trip count (int)(a + 10) * 2 from 0 to 40: lanes leave the loop at different iterations. */
float loop02(float a, float b) {
  int n = (int)(a + 10.0f) * 2;
  float s = b;
  for (int i = 0; i < n; ++i) {
    s = s * 0.9f + b * 0.25f + (float)i * 0.01f;
  }
  return s;
}

/*@ kernel loop03: while loop on a float condition x < b; x grows by at least 1 per iteration (0 to 20 iterations). */
float loop03(float a, float b) {
  float x = a;
  float acc = 0.0f;
  while (x < b) {
    x = x + 1.0f + 0.05f * x * x;
    acc += x;
  }
  return x + acc * 0.5f;
}

/*@ kernel loop04: do-while: at least one iteration; halving a positive value until it is small (1 to 8 iterations). */
float loop04(float a, float b) {
  float s = b;
  float x = a;
  do {
    s += x * 0.5f + 1.0f;
    x = x * 0.5f;
  } while (x > 0.1f);
  return s - x;
}

/*@ kernel loop05: count-down loop with step 3 from a varying start; the induction variable is used after the loop. */
float loop05(float a, float b) {
  int i;
  float s = 0.0f;
  for (i = (int)(b * 3.0f); i > 0; i -= 3) {
    s += a * (float)i * 0.1f + 1.0f;
  }
  return s + (float)i;
}

/*@ kernel loop06: constant trip count 20 with a divergent if/else in the body (the loop is uniform, the body is not). */
float loop06(float a, float b) {
  float s = 0.0f;
  for (int i = 0; i < 20; ++i) {
    if (s > a) {
      s = s - b * 0.5f - 1.0f;
      s = s * 0.75f;
    } else {
      s = s + 1.0f + (float)i * 0.125f;
      s = s * 1.0625f;
    }
  }
  return s;
}

/*@ kernel loop07: two loop-carried values (a Fibonacci-like recurrence) over a varying count 0..20. */
float loop07(float a, float b) {
  int n = (int)(a + 10.0f);
  float x = 1.0f, y = b * 0.1f;
  for (int i = 0; i < n; ++i) {
    float t = x * 0.5f + y;
    y = x;
    x = t;
  }
  return x - y;
}

/*@ kernel loop08: constant trip count 12 where the loop-carried value is also used after the loop and the last iteration's temporary is live-out. */
float loop08(float a, float b) {
  float s = a, last = 0.0f;
  for (int i = 0; i < 12; ++i) {
    last = s * b * 0.01f + (float)i;
    s = s * 0.5f + last;
  }
  return s + last * 2.0f;
}

/*@ kernel loop09: varying trip count (int)b - (int)a, zero for every lane with b <= a (most lanes skip the loop). */
float loop09(float a, float b) {
  int n = (int)b - (int)a;
  float s = a * b;
  for (int i = 0; i < n; ++i) {
    s = s * 0.875f + (float)(i * i) * 0.01f - a;
  }
  return s;
}

/*@ kernel loop10: float induction variable t from a to b in steps of 0.5 (0 to 40 iterations). */
float loop10(float a, float b) {
  float s = 0.0f;
  for (float t = a; t < b; t += 0.5f) {
    s += t * t * 0.01f + 0.5f;
  }
  return s;
}

/*@ kernel loop11: Collatz steps of an integer derived from a and b (1 to 41): a data-dependent integer loop with an if/else body (at most 111 iterations). */
float loop11(float a, float b) {
  int x = (int)(a + 10.0f) + (int)(b + 10.0f) + 1;
  x = x > 41 ? 41 : x;
  int steps = 0;
  while (x != 1) {
    if (x & 1) x = 3 * x + 1;
    else x = x / 2;
    ++steps;
  }
  return (float)steps + a * 0.5f;
}

/*@ kernel loop12: loop whose exit test is in the middle of the body (a rotated while(1) with the test after the first half). */
float loop12(float a, float b) {
  float x = a;
  float s = 0.0f;
  int i = 0;
  for (;;) {
    x = x * 0.75f + b * 0.25f;
    if (i >= 30 || x * x < 0.01f) break;
    s += x;
    ++i;
  }
  return s + x;
}
