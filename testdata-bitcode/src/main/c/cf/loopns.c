/* Nested loops: uniform and varying trip counts at each level, inner bounds that depend on the
 * outer induction variable, sequential inner loops, divergent bodies. */
#include "../kernel.h"

/*@ file
family: loopns
param a: varying range=[-10,10] -- first input
param b: varying range=[-10,10] -- second input
returns: a value accumulated by the loop nest
sample: 0, 0
sample: 1, -1
sample: -3, 2
sample: 5, 5
sample: -10, 9.5
sample: 9.9, 0.5
sample: 0.25, -10
sample: -6, -6
*/

/*@ kernel ns01: 8 x 8 loop nest with constant bounds (both loops uniform). */
float ns01(float a, float b) {
  float s = 0.0f;
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 8; ++j)
      s = s * 0.5f + a * (float)i - b * (float)j;
  return s;
}

/*@ kernel ns02: varying outer trip count (0..10), constant inner trip count 6. */
float ns02(float a, float b) {
  int n = (int)(a + 10.0f) / 2;
  float s = b;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < 6; ++j)
      s = s * 0.75f + (float)(i + j) * 0.1f;
  return s;
}

/*@ kernel ns03: constant outer trip count 5, varying inner trip count (0..20) from b. */
float ns03(float a, float b) {
  int m = (int)(b + 10.0f);
  float s = a;
  for (int i = 0; i < 5; ++i)
    for (int j = 0; j < m; ++j)
      s = s * 0.9f + (float)i * 0.5f - (float)j * 0.05f;
  return s;
}

/*@ kernel ns04: triangular nest: the inner loop runs i times, the outer loop a varying 0..12 times. */
float ns04(float a, float b) {
  int n = (int)((a + 10.0f) * 0.6f);
  float s = 0.0f;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < i; ++j)
      s += b * 0.01f + (float)j * 0.1f;
  return s;
}

/*@ kernel ns05: inner trip count depends on the outer induction variable and on a ((i + (int)a) & 7). */
float ns05(float a, float b) {
  int k = (int)(a + 10.0f);
  float s = b;
  for (int i = 0; i < 6; ++i) {
    int m = (i + k) & 7;
    for (int j = 0; j < m; ++j) s = s * 0.8f + 1.0f;
  }
  return s;
}

/*@ kernel ns06: three nested loops with small constant bounds 3 x 4 x 5. */
float ns06(float a, float b) {
  float s = 0.0f;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j)
      for (int k = 0; k < 5; ++k)
        s = s * 0.95f + a * (float)(i - j) + b * (float)k * 0.1f;
  return s;
}

/*@ kernel ns07: a float-conditioned while loop nested in a counted loop (inner trips vary per lane and per outer iteration). */
float ns07(float a, float b) {
  float s = 0.0f;
  for (int i = 0; i < 6; ++i) {
    float x = a + (float)i;
    while (x < b) {
      x += 1.5f;
      s += 0.25f;
    }
    s += x * 0.1f;
  }
  return s;
}

/*@ kernel ns08: two sequential inner loops inside the outer loop (varying counts from a and b). */
float ns08(float a, float b) {
  int m1 = (int)(a + 10.0f) / 3;
  int m2 = (int)(b + 10.0f) / 4;
  float s = 0.0f;
  for (int i = 0; i < 7; ++i) {
    for (int j = 0; j < m1; ++j) s = s * 0.9f + 1.0f;
    for (int j = 0; j < m2; ++j) s = s * 0.95f - 0.5f;
  }
  return s;
}

/*@ kernel ns09: inner loop body with a divergent if/else that depends on both induction variables and a. */
float ns09(float a, float b) {
  float s = 0.0f;
  for (int i = 0; i < 6; ++i) {
    for (int j = 0; j < 6; ++j) {
      if ((float)(i * j) > a + 5.0f) {
        s = s + b * 0.5f - (float)j;
        s = s * 0.9f;
      } else {
        s = s * 0.75f + (float)i + a * 0.1f;
      }
    }
  }
  return s;
}

/*@ kernel ns10: outer while with a data-dependent condition, inner counted loop with a constant bound. */
float ns10(float a, float b) {
  float x = a;
  int n = 0;
  while (x < b + 5.0f && n < 40) {
    for (int j = 0; j < 4; ++j) x = x + 0.125f * (float)(j + 1);
    ++n;
  }
  return x + (float)n * 0.01f;
}

/*@ kernel ns11: do-while inner loop (at least one iteration) in a counted outer loop. */
float ns11(float a, float b) {
  float s = 0.0f;
  for (int i = 0; i < 5; ++i) {
    float x = a + (float)i * 2.0f;
    do {
      x = x * 0.5f;
      s += 1.0f;
    } while (x > 1.0f);
    s += x + b * 0.01f;
  }
  return s;
}

/*@ kernel ns12: the inner loop's result decides whether the outer loop goes on. */
float ns12(float a, float b) {
  float s = a;
  int i = 0;
  do {
    float t = 0.0f;
    for (int j = 0; j < 5; ++j) t += s * 0.1f + (float)j;
    s = s + t * 0.05f - b * 0.1f;
    ++i;
  } while (s < 12.0f && s > -12.0f && i < 30);
  return s + (float)i;
}

/*@ kernel ns13: the inner trip count is the outer loop-carried value (m doubles, capped at 16). */
float ns13(float a, float b) {
  int m = (int)(a + 10.0f) & 3;
  float s = b;
  for (int i = 0; i < 6; ++i) {
    for (int j = 0; j < m; ++j) s = s * 0.875f + 0.5f;
    m = m * 2 + 1;
    if (m > 16) m = 16;
  }
  return s;
}

/*@ kernel ns14: constant outer loop, inner loop that runs zero times for every lane with a < 0. */
float ns14(float a, float b) {
  int m = a > 0.0f ? (int)a : 0;
  float s = 0.0f;
  for (int i = 0; i < 8; ++i) {
    for (int j = 0; j < m; ++j) s += b * 0.1f + (float)i;
    s = s * 0.5f;
  }
  return s;
}

/*@ kernel ns15: integer nest: digit sums of numbers derived from a and b (inner while over digits). */
float ns15(float a, float b) {
  int base = (int)((a + 10.0f) * 50.0f);  /* 0 .. 1000 */
  int step = (int)(b + 10.0f) + 1;        /* 1 .. 21 */
  int total = 0;
  for (int i = 0; i < 10; ++i) {
    int x = base + i * step;
    while (x > 0) {
      total += x % 10;
      x /= 10;
    }
  }
  return (float)total;
}

/*@ kernel ns16: three levels, each with a varying trip count. */
float ns16(float a, float b) {
  int n1 = (int)(a + 10.0f) / 5;   /* 0 .. 4 */
  int n2 = (int)(b + 10.0f) / 5;   /* 0 .. 4 */
  float s = 1.0f;
  for (int i = 0; i <= n1; ++i)
    for (int j = 0; j <= n2; ++j)
      for (int k = 0; k < i + j; ++k)
        s = s * 0.99f + (float)k * 0.01f;
  return s;
}
