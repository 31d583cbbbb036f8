/* If/else chains and nesting over two varying floats. Each arm does enough work that clang keeps a
 * real branch instead of turning it into a select. */
#include "../kernel.h"

/*@ file
family: if
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

/*@ kernel if01: if/else on a > b, both arms compute different polynomials that join in one phi. */
float if01(float a, float b) {
  float r;
  if (a > b) {
    r = a * a * 0.5f - b * 3.0f + 1.0f;
  } else {
    r = b * b * 0.25f + a * 2.0f - 4.0f;
  }
  return r * 1.5f + a;
}

/*@ kernel if02: if without else: a value is updated only on one side (the phi has the old value on the other edge). */
float if02(float a, float b) {
  float r = a + b;
  if (a < 0.0f) {
    r = r * b - a * 3.0f;
    r = r * 0.5f + b * b;
  }
  return r - 1.0f;
}

/*@ kernel if03: else-if chain over four intervals of a, four paths joining in one block. */
float if03(float a, float b) {
  float r;
  if (a < -5.0f) {
    r = b * 2.0f + a * a;
  } else if (a < 0.0f) {
    r = b * b - a * 3.0f;
  } else if (a < 5.0f) {
    r = a * b + 7.0f * b;
  } else {
    r = a * a * a - b;
  }
  return r + 0.5f;
}

/*@ kernel if04: two-level nesting: the inner condition differs in the two outer arms (sign of b, b > a). */
float if04(float a, float b) {
  float r;
  if (a > 0.0f) {
    if (b > 0.0f) r = a * b + a * 2.0f;
    else r = a - b * b * 0.5f;
  } else {
    if (b > a) r = b * 3.0f - a * a;
    else r = (a + b) * (a - b) + 1.0f;
  }
  return r;
}

/*@ kernel if05: an && condition (clang combines the two tests into one branch condition). */
float if05(float a, float b) {
  float r = a * 0.5f;
  if (a > -2.0f && b < 3.0f) {
    r = r * b + a * a - 2.0f * b;
    r = r * 0.25f;
  } else {
    r = r - b * b + 4.0f * a;
  }
  return r;
}

/*@ kernel if06: an || condition of two products (clang combines the tests into one branch condition). */
float if06(float a, float b) {
  float r = b;
  if (a * a > 20.0f || b * a < -6.0f) {
    r = a * b * 0.125f + b * 3.0f + a;
  } else {
    r = (a - b) * (a + 1.0f) * 0.5f;
  }
  return r - a;
}

/*@ kernel if07: two diamonds in sequence; the second condition depends on the first diamond's result. */
float if07(float a, float b) {
  float x;
  if (a > 1.0f) x = a * b + 2.0f * a - b;
  else x = b * b - 3.0f * a + 1.0f;
  float y;
  if (x > b) y = x * 0.5f - a * a + b;
  else y = x * x * 0.1f + 2.0f * b - a;
  return x + y;
}

/*@ kernel if08: early returns from a chain of tests (three return paths merged by mergereturn). */
float if08(float a, float b) {
  if (a < -8.0f) return b * b + 1.0f;
  float x = a * 2.0f + b * 0.5f;
  if (b > 8.0f) return x * a - 3.0f;
  x = x * x * 0.1f - a * b;
  if (x < 0.0f) return -x * 0.5f + a;
  return x * b;
}

/*@ kernel if09: four levels of nesting along one side, each level with an else arm. */
float if09(float a, float b) {
  float r = 0.0f;
  if (a > -6.0f) {
    r = a + b;
    if (b > -4.0f) {
      r = r * a - b;
      if (a < 4.0f) {
        r = r * 0.5f + b * b;
        if (b < 6.0f) r = r - a * a * 0.25f + 3.0f;
        else r = r + a * 7.0f - b;
      } else {
        r = r * b + a * 2.0f;
      }
    } else {
      r = r * r * 0.1f - a;
    }
  } else {
    r = b * b * 2.0f - a * 3.0f;
  }
  return r;
}

/*@ kernel if10: float equality and integer parity conditions: (int)a even/odd, a == b, and a != 0.
sample: 2, 2
sample: 3, 3
sample: -4, 1
sample: 0, 0
sample: 7.5, -2
sample: -1, -1
sample: 6, 0.5
sample: 0.5, 0.5
*/
float if10(float a, float b) {
  int ia = (int)a;
  float r;
  if ((ia & 1) == 0) {
    r = a * b + (float)ia * 0.5f - 1.0f;
  } else {
    r = a - b * (float)ia + 2.0f;
  }
  if (a == b) {
    r = r * r - a * 3.0f + 0.5f;
  }
  if (a != 0.0f) r = r + 1.0f / a * b - 0.25f * a;
  return r;
}

/*@ kernel if11: selects from ternaries (max, clamp) feeding a real branch. */
float if11(float a, float b) {
  float m = a > b ? a : b;
  float c = m < -2.0f ? -2.0f : (m > 6.0f ? 6.0f : m);
  float r;
  if (c > 3.0f) r = c * a - b * 2.0f + c * c;
  else r = 3.0f * b - c * a - 1.0f;
  return r;
}

/*@ kernel if12: a piecewise function with six pieces; the join phi has six incoming values. */
float if12(float a, float b) {
  float r;
  float t = a + b * 0.5f;
  if (t < -9.0f) r = b * 2.0f - a * a;
  else if (t < -5.0f) r = a * b + 3.0f * a;
  else if (t < -1.0f) r = b * b * 0.5f + a;
  else if (t < 3.0f) r = a * a - b * 4.0f + 2.0f;
  else if (t < 7.0f) r = (a - b) * (a + b) * 0.25f;
  else r = a * 3.0f + b * b * b * 0.01f;
  return r + t;
}

/*@ kernel if13: a uniform branch (on b, the same for all lanes) around divergent branches on a: a packetizer may keep the outer branch.
param a: varying range=[-10,10] -- the varying input
param b: uniform range=[-10,10] -- a uniform input: the outer branch goes the same way in every lane
sample: 3, 2
sample: -3, 2
sample: 0.5, 2
sample: -8, 2
*/
float if13(float a, float b) {
  float r;
  if (b > 0.0f) {
    if (a > b) r = a * b - a * a * 0.5f + 1.0f;
    else r = b * 3.0f + a * 0.25f - a * a;
  } else {
    if (a < b) r = a * 2.0f - b * b + 0.5f * a * b;
    else r = b - a * a * 0.125f + 3.0f * a;
  }
  return r;
}

/*@ kernel if14: a float division guarded by b != 0 in one arm; the other arm is taken for b == 0.
sample: 1, 0
sample: 2, 4
sample: -3, 0
sample: 5, -0.5
*/
float if14(float a, float b) {
  float r;
  if (b != 0.0f) {
    r = a / b + b * 0.5f;
    r = r * r - a;
  } else {
    r = a * a * 0.5f - 3.0f;
    r = r + a * 2.0f;
  }
  return r;
}
