/* Loops with several exits: break and return inside the body, exits in nested conditions, live
 * values that differ per exit. */
#include "../kernel.h"

/*@ file
family: loopmx
param a: varying range=[-10,10] -- first input
param b: varying range=[-10,10] -- second input
returns: a value that depends on the exit taken
sample: 0, 0
sample: 1, -1
sample: -3, 2
sample: 5, 5
sample: -10, 9.5
sample: 9.9, 0.5
sample: 0.25, -10
sample: -6, -6
*/

/*@ kernel mx01: search loop: break when x drops below a, else run 32 iterations; the exit iteration is used afterwards. */
float mx01(float a, float b) {
  float x = 10.0f;
  int i;
  for (i = 0; i < 32; ++i) {
    x = x * 0.9f + b * 0.05f;
    if (x < a) break;
  }
  return x + (float)i;
}

/*@ kernel mx02: return from inside the loop when the sum passes 10; the normal exit returns a different expression. */
float mx02(float a, float b) {
  float s = 0.0f;
  for (int i = 0; i < 40; ++i) {
    s += a * 0.25f + (float)i * 0.1f;
    if (s > 10.0f) return s * 2.0f + b;
  }
  return -s;
}

/*@ kernel mx03: two breaks on different conditions plus the latch exit: three exits to one block. */
float mx03(float a, float b) {
  float x = a, y = b;
  int i;
  for (i = 0; i < 50; ++i) {
    x = x + y * 0.1f;
    if (x > 15.0f) break;
    y = y - x * 0.05f;
    if (y < -10.5f) break;
  }
  return x * 0.5f + y + (float)i;
}

/*@ kernel mx04: break and continue in the same loop (continue skips the second half of the body). */
float mx04(float a, float b) {
  float s = 0.0f;
  for (int i = 0; i < 60; ++i) {
    float t = a + (float)i * 0.5f;
    if (t < 0.0f) continue;
    s += t * 0.1f + b;
    if (s > 20.0f) break;
  }
  return s;
}

/*@ kernel mx05: while(1) with two exits in the middle of the body (neither at the header nor the latch). */
float mx05(float a, float b) {
  float x = a;
  int n = 0;
  for (;;) {
    x = x * 1.25f + 0.5f;
    if (x > b * 3.0f + 40.0f) break;
    ++n;
    x = x - b * 0.25f;
    if (n > 25) break;
  }
  return x + (float)n;
}

/*@ kernel mx06: three exits to three different blocks (break, return, latch), each computing its own result. */
float mx06(float a, float b) {
  float x = a;
  int i;
  for (i = 0; i < 40; ++i) {
    if (x > b) {
      x = x - 2.0f;
      if (x < -8.0f) break;
    } else {
      x = x * 1.5f + 1.0f;
      if (x > 12.0f) return x * 3.0f - b;
    }
  }
  if (i == 40) return x + 100.0f;
  return x + (float)i;
}

/*@ kernel mx07: one exit depends on a uniform value (c, the same in every lane), the other on the lane's data.
param a: varying range=[-10,10] -- the varying input
param b: varying range=[-10,10] -- another varying input
param c: uniform range=[0,40] -- uniform iteration limit
sample: 1, 2, 25
sample: -5, 7, 25
sample: 9, -9, 25
sample: 0, 0, 25
*/
float mx07(float a, float b, int c) {
  float x = b;
  int i = 0;
  while (i < c) {
    x = x * 0.8f + a;
    if (x > 30.0f || x < -30.0f) break;
    ++i;
  }
  return x + (float)i * 0.5f;
}

/*@ kernel mx08: a value defined only in the body (t) is live out through the break exit. */
float mx08(float a, float b) {
  float s = a;
  float t = 0.0f;
  for (int i = 0; i < 25; ++i) {
    t = s * b * 0.1f + (float)i;
    if (t > 5.0f) break;
    s = s + 0.5f;
  }
  return s + t;
}

/*@ kernel mx09: the break sits three ifs deep in the body. */
float mx09(float a, float b) {
  float x = a;
  int i;
  for (i = 0; i < 45; ++i) {
    x = x + 0.75f;
    if (x > 0.0f) {
      if (b > 0.0f) {
        if (x * b > 20.0f) break;
        x = x + b * 0.1f;
      } else {
        x = x - b * 0.05f;
      }
    }
  }
  return x - (float)i;
}

/*@ kernel mx10: early exit before the loop-carried update: lanes leaving keep the previous value of y. */
float mx10(float a, float b) {
  float y = b;
  for (int i = 0; i < 30; ++i) {
    float cand = y * 0.5f + a;
    if (cand * cand > 64.0f) break;
    y = cand + 1.0f;
  }
  return y;
}

/*@ kernel mx11: integer Euclid loop with a step limit as a second exit: remainder by a value that is never zero inside the loop (the loop exits when it would be).
sample: 8, 6
sample: 7, 3
sample: 0, 5
sample: -10, 4
sample: 9, 9
sample: 6, 0
sample: -3, -7
sample: 1, 10
*/
float mx11(float a, float b) {
  int x = (int)(a * 3.0f) + 31;  /* 1 .. 61 */
  int y = (int)(b * 2.0f) + 21;  /* 1 .. 41 */
  int steps = 0;
  while (y != 0) {
    int r = x % y;
    x = y;
    y = r;
    if (++steps > 5) break;
  }
  return (float)x + (float)steps * 100.0f;
}

/*@ kernel mx12: do-while with a break in the body: at least one iteration, two exits. */
float mx12(float a, float b) {
  float x = a;
  int n = 0;
  do {
    x = x * 0.5f + b;
    ++n;
    if (x < -5.0f) break;
    x = x + 1.0f;
  } while (x < 6.0f && n < 20);
  return x + (float)n;
}

/*@ kernel mx13: exits by goto to two different labels after the loop, each with its own code. */
float mx13(float a, float b) {
  float x = a;
  for (int i = 0; i < 35; ++i) {
    x = x + b * 0.2f + 0.1f;
    if (x > 9.0f) goto high;
    if (x < -9.0f) goto low;
  }
  return x;
high:
  return x * 2.0f - a;
low:
  return x * 0.5f + b;
}

/*@ kernel mx14: four exits to four different blocks, including one from the latch. */
float mx14(float a, float b) {
  float x = a, y = b;
  int i = 0;
  while (i < 12) {
    x = x + y * 0.25f;
    if (x > 10.0f) return x + 1.0f;
    y = y - 0.5f;
    if (y < -10.0f) return y * 2.0f;
    if (x * y > 30.0f) return x * y * 0.1f;
    ++i;
  }
  return x + y;
}
