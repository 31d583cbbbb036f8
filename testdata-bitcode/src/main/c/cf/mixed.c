/* Mixed control flow: switch statements, phis with many incoming values, guarded integer division
 * and remainder by values derived from b, critical edges, loops around switches. */
#include "../kernel.h"

/*@ file
family: mixed
param a: varying range=[-10,10] -- first input
param b: varying range=[-10,10] -- second input
returns: a value that depends on the path taken
sample: 0, 0
sample: 1, -1
sample: -3, 2
sample: 5, 5
sample: -7.5, -8
sample: 9, 0.5
sample: 0.25, -10
sample: -10, 10
*/

/*@ kernel mix01: switch on (int)a + 10 with six cases and a default; each case computes something different. */
float mix01(float a, float b) {
  float r;
  switch ((int)a + 10) {
  case 0: r = b * 2.0f + 1.0f; break;
  case 3: r = b * b - a; break;
  case 7: r = a * b * 0.5f + 3.0f; break;
  case 10: r = a - b * 4.0f + a * a; break;
  case 12: r = (a + b) * (a - b); break;
  case 15: r = b * 0.125f - a * 3.0f; break;
  default: r = a + b; break;
  }
  return r * 0.5f;
}

/*@ kernel mix02: a phi with eight incoming values: a chain of early exits into one return block. */
float mix02(float a, float b) {
  float t = a * 0.5f + b;
  float r;
  if (t < -12.0f) { r = a * 2.0f; goto out; }
  if (t < -8.0f) { r = b * 3.0f - a; goto out; }
  if (t < -4.0f) { r = a * b; goto out; }
  if (t < 0.0f) { r = a + b * b; goto out; }
  if (t < 4.0f) { r = b - a * a; goto out; }
  if (t < 8.0f) { r = a * 0.25f + b * 0.75f; goto out; }
  if (t < 12.0f) { r = t * t - a; goto out; }
  r = -t;
out:
  return r + 1.0f;
}

/*@ kernel mix03: integer division and remainder by d = (int)b, guarded by d != 0 (a divergent guard: inactive lanes may have d == 0). */
float mix03(float a, float b) {
  int n = (int)(a * 100.0f);
  int d = (int)b;
  int q = 0, r = 0;
  if (d != 0) {
    q = n / d;
    r = n % d;
  }
  return (float)q + (float)r * 0.001f;
}

/*@ kernel mix04: unsigned division and remainder in a loop, by a divisor from b that the loop condition keeps non-zero. */
float mix04(float a, float b) {
  unsigned x = (unsigned)(int)((a + 10.0f) * 1000.0f);  /* 0 .. 20000 */
  unsigned d = (unsigned)(int)(b + 10.0f);             /* 0 .. 20 */
  unsigned digits = 0, sum = 0;
  if (d >= 2) {
    while (x != 0 && digits < 32) {
      sum += x % d;
      x = x / d;
      ++digits;
    }
  }
  return (float)sum + (float)digits * 0.01f;
}

/*@ kernel mix05: critical edges: a conditional branch whose successor has several predecessors (the edge needs splitting before blending). */
float mix05(float a, float b) {
  float x = a;
  if (a > 0.0f) {
    x = a * b + 1.0f;
    if (b > 0.0f) goto join;
    x = x * 0.5f - b;
  } else if (b < -3.0f) {
    x = b * b - a;
    goto join;
  }
  x = x + 10.0f + a * a;
join:
  return x * 2.0f;
}

/*@ kernel mix06: a loop around a switch on the iteration's state (a reducible state machine). */
float mix06(float a, float b) {
  int state = (int)(a + 10.0f) % 4;
  float x = b;
  for (int i = 0; i < 24; ++i) {
    switch (state) {
    case 0: x = x * 0.5f + 1.0f; state = x > 1.5f ? 1 : 2; break;
    case 1: x = x - 0.75f; state = 2; break;
    case 2: x = x * 1.25f + a * 0.1f; state = x > 5.0f ? 3 : 0; break;
    default: x = x - 3.0f; state = 0; break;
    }
  }
  return x + (float)state;
}

/*@ kernel mix07: integer and float mixing: bit operations, shifts and selects on integers derived from a and b. */
float mix07(float a, float b) {
  int ia = (int)(a * 16.0f), ib = (int)(b * 16.0f);
  int m = (ia ^ ib) & 0xff;
  int s = (ia < ib ? ia : ib) >> 2;
  int t = (ia | 3) - (ib & ~5);
  float r = (float)(m + s * 3 - t);
  return ia > 0 ? r * 0.5f : r * 0.25f + 1.0f;
}

/*@ kernel mix08: signed division inside a divergent branch whose condition is not the divisor test: lanes with b in (-1, 1) have d == 0 but never reach the division.
sample: 5, 0.5
sample: 5, 3
sample: -5, -0.25
sample: -7, 7
sample: 2, 0
sample: -2, -9
sample: 9, 1
sample: 0, 0
*/
float mix08(float a, float b) {
  int n = (int)(a * 1000.0f);
  int d = (int)b;
  float r = a;
  if (b >= 1.0f || b <= -1.0f) {
    r = (float)(n / d) + (float)(n % d) * 0.5f;
  } else {
    r = a * b;
  }
  return r;
}

/*@ kernel mix09: many returns from nested conditions and a loop (merged into one exit by mergereturn). */
float mix09(float a, float b) {
  if (a > 8.0f) return a;
  if (b > 8.0f) return b * 2.0f;
  float x = a * b;
  for (int i = 0; i < 10; ++i) {
    x = x * 0.9f + 1.0f;
    if (x > 20.0f) return x - (float)i;
    if (x < -20.0f) return x + (float)i;
  }
  if (x > 0.0f) return x * 0.5f;
  return -x;
}

/*@ kernel mix10: switch with fall-through between cases. */
float mix10(float a, float b) {
  float r = 0.0f;
  switch ((int)(b + 10.0f) / 4) {  /* 0 .. 5 */
  case 0: r += a * 2.0f;
    /* fall through */
  case 1: r += b * 3.0f;
    /* fall through */
  case 2: r = r * 0.5f + a * b;
    break;
  case 3: r = a - b;
    /* fall through */
  case 4: r += 1.0f + a * a;
    break;
  default: r = b * b;
    break;
  }
  return r;
}

/*@ kernel mix11: integer remainder in a Euclid loop: the divisor is the previous remainder, zero exactly when the lane leaves the loop (inactive lanes must not divide). */
float mix11(float a, float b) {
  int x = (int)fabsf(a * 10.0f);
  int y = (int)fabsf(b * 10.0f);
  while (y != 0) {
    int r = x % y;
    x = y;
    y = r;
  }
  return (float)x;
}

/*@ kernel mix12: nested ternaries, short-circuit conditions with side computations and a join with many values. */
float mix12(float a, float b) {
  float x = a > 0.0f ? (b > 0.0f ? a + b : a - b) : (b > a ? b * 2.0f : a * 2.0f);
  float y;
  if ((x > 3.0f && a < 5.0f) || (x < -3.0f && b > -5.0f)) {
    y = x * x * 0.1f - a;
  } else if (x > 0.0f) {
    y = x + b * 0.5f + 1.0f;
    y = y * y * 0.25f;
  } else {
    y = -x * a + 2.0f * b;
  }
  return y;
}

/*@ kernel mix13: a switch with returns in its cases inside a loop (loop exits through the switch). */
float mix13(float a, float b) {
  float x = a;
  for (int i = 0; i < 20; ++i) {
    int k = ((int)(x + 100.0f)) % 5;
    switch (k) {
    case 0: x = x + b * 0.5f; break;
    case 1: x = x * 0.5f - 1.0f; break;
    case 2: if (x > 0.0f) return x * 3.0f; x = x + 2.5f; break;
    case 3: x = x - 0.5f; break;
    default: return x - (float)i;
    }
    if (x > 50.0f || x < -50.0f) break;
  }
  return x;
}
