/* Irreducible control flow: loops with two entries, made with goto. clang keeps them irreducible at
 * -O2 (TestdataBuilder checks that the compiled CFG is irreducible). */
#include "../kernel.h"

/*@ file
family: irreducible
param a: varying range=[-10,10] -- first input
param b: varying range=[-10,10] -- second input
returns: a value computed in the two-entry loop
sample: 0, 0
sample: 1, -1
sample: -3, 2
sample: 5, 5
sample: -7.5, -8
sample: 9, 0.5
sample: 0.25, -10
sample: -10, 10
*/

/*@ kernel irr01: a loop of two blocks entered at either block depending on the sign of a. */
float irr01(float a, float b) {
  float x = a;
  int n = 0;
  if (a > 0.0f) goto second;
first:
  x = x * 0.5f + b * 0.25f + 1.0f;
  ++n;
second:
  x = x + 0.75f;
  if (x < b + 6.0f && n < 40) goto first;
  return x + (float)n;
}

/*@ kernel irr02: a two-entry loop with an extra exit from the first block; per-lane trip counts. */
float irr02(float a, float b) {
  float x = b;
  int n = 0;
  if (a < b) goto mid;
top:
  x = x - 0.5f;
  if (x < -12.0f) return x * 2.0f;
  ++n;
mid:
  x = x * 1.125f + a * 0.1f;
  if (n < 25 && x < 15.0f) goto top;
  return x - (float)n;
}

/*@ kernel irr03: three blocks in a cycle entered at two points, with a reducible counted loop inside one of them. */
float irr03(float a, float b) {
  float x = a * 0.5f;
  int n = 0;
  if (b > 0.0f) goto B;
A:
  for (int i = 0; i < 3; ++i) x = x * 0.9f + 0.1f * (float)i;
  ++n;
B:
  x = x + b * 0.2f;
C:
  x = x - 0.3f;
  if (n > 30) return x;
  if (x > 2.0f) goto A;
  if (x < -2.0f) { ++n; goto C; }
  return x + (float)n;
}

/*@ kernel irr04: a small state machine: the two loop entries are selected by a switch on a value derived from a. */
float irr04(float a, float b) {
  int state = (int)(a + 10.0f) % 3;  /* 0, 1 or 2 */
  float x = b;
  int n = 0;
  switch (state) {
  case 0: goto s0;
  case 1: goto s1;
  default: goto done;
  }
s0:
  x = x * 0.75f + 1.0f;
  ++n;
s1:
  x = x + 0.5f;
  if (n < 20 && x < 8.0f) goto s0;
done:
  return x + (float)n * 10.0f;
}
