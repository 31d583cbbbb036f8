/* Nested loops with several exits: break out of the inner loop, break out of both, return from the
 * inner loop, continue the outer loop from the inner one; exits depend on lane data. */
#include "../kernel.h"

/*@ file
family: loopnsmx
param a: varying range=[-10,10] -- first input
param b: varying range=[-10,10] -- second input
returns: a value that depends on the exits taken
sample: 0, 0
sample: 1, -1
sample: -3, 2
sample: 5, 5
sample: -10, 9.5
sample: 9.9, 0.5
sample: 0.25, -10
sample: -6, -6
*/

/*@ kernel nm01: break out of the inner loop only; the outer loop continues. */
float nm01(float a, float b) {
  float s = 0.0f;
  for (int i = 0; i < 8; ++i) {
    for (int j = 0; j < 10; ++j) {
      s += a * 0.1f + (float)j * 0.2f;
      if (s > b + (float)i) break;
    }
    s = s * 0.5f;
  }
  return s;
}

/*@ kernel nm02: goto out of both loops from the inner loop. */
float nm02(float a, float b) {
  float s = a;
  for (int i = 0; i < 10; ++i) {
    for (int j = 0; j < 10; ++j) {
      s = s * 0.9f + b * 0.1f + (float)(i - j) * 0.05f;
      if (s * s > 50.0f) goto done;
    }
    s = s + 1.0f;
  }
done:
  return s;
}

/*@ kernel nm03: return from inside the inner loop with a value different from the normal result. */
float nm03(float a, float b) {
  float s = 0.0f;
  for (int i = 0; i < 6; ++i) {
    for (int j = 0; j < 6; ++j) {
      s += a * (float)i * 0.1f - b * (float)j * 0.05f;
      if (s > 7.0f) return s * 10.0f + (float)(i * 6 + j);
    }
  }
  return s;
}

/*@ kernel nm04: the inner exit condition depends on lane data and the outer induction variable; the outer loop runs a varying count. */
float nm04(float a, float b) {
  int n = (int)(b + 10.0f) / 2;  /* 0 .. 10 */
  float s = 0.0f;
  for (int i = 0; i < n; ++i) {
    float x = a;
    int j = 0;
    while (x < (float)i * 2.0f && j < 20) {
      x += 1.0f;
      ++j;
    }
    s += (float)j + x * 0.01f;
  }
  return s;
}

/*@ kernel nm05: continue of the outer loop from inside the inner loop (goto to the outer latch). */
float nm05(float a, float b) {
  float s = 0.0f;
  for (int i = 0; i < 8; ++i) {
    for (int j = 0; j < 8; ++j) {
      float t = a + (float)(i * j) * 0.25f;
      if (t > b) goto next_i;
      s += t * 0.1f;
    }
    s = s * 0.9f;
  next_i:
    s += 0.5f;
  }
  return s;
}

/*@ kernel nm06: inner break and outer break on different lane-dependent conditions. */
float nm06(float a, float b) {
  float s = a;
  int i;
  for (i = 0; i < 12; ++i) {
    for (int j = 0; j < 12; ++j) {
      s = s + 0.5f;
      if (s > b + (float)j) break;
    }
    s = s - (float)i * 0.75f;
    if (s < -15.0f) break;
  }
  return s + (float)i;
}

/*@ kernel nm07: an inner loop with two exits to two different blocks in the outer loop body. */
float nm07(float a, float b) {
  float s = 0.0f, x = a;
  for (int i = 0; i < 7; ++i) {
    int j;
    for (j = 0; j < 9; ++j) {
      x = x * 0.9f + b * 0.2f;
      if (x > 6.0f) goto hot;
      if (x < -6.0f) goto cold;
    }
    s += 1.0f;
    continue;
  hot:
    s += x * 0.5f + (float)j;
    x = 0.0f;
    continue;
  cold:
    s -= x * 0.25f;
    x = 1.0f;
  }
  return s + x;
}

/*@ kernel nm08: three nested loops with a return from the innermost. */
float nm08(float a, float b) {
  float s = 0.0f;
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j)
      for (int k = 0; k < 4; ++k) {
        s += a * 0.05f + b * (float)(k - j) * 0.02f + (float)i * 0.01f;
        if (s > 3.0f || s < -3.0f) return s * 100.0f + (float)(i * 16 + j * 4 + k);
      }
  return s;
}

/*@ kernel nm09: inner while(1) with its break in the middle; the outer loop returns early. */
float nm09(float a, float b) {
  float x = a;
  for (int i = 0; i < 10; ++i) {
    int j = 0;
    for (;;) {
      x = x + 0.5f;
      if (x > b || j > 6) break;
      x = x * 1.1f;
      ++j;
    }
    if (x > 8.0f) return x - (float)i;
    x = x - 4.0f;
  }
  return x;
}

/*@ kernel nm10: a flag set in the inner loop stops the outer loop after the inner one finished. */
float nm10(float a, float b) {
  float s = 0.0f;
  int stop = 0;
  int i;
  for (i = 0; i < 10 && !stop; ++i) {
    for (int j = 0; j < 6; ++j) {
      s += a * 0.2f - (float)j * 0.1f;
      if (s > b) stop = 1;
    }
  }
  return s + (float)i * 100.0f;
}

/*@ kernel nm11: the inner exit skips the outer latch update (the outer carried value freezes for lanes that leave). */
float nm11(float a, float b) {
  float acc = b;
  for (int i = 0; i < 8; ++i) {
    float t = acc;
    for (int j = 0; j < 5; ++j) {
      t = t * 0.8f + a;
      if (t > 20.0f) return acc + t;
    }
    acc = t * 0.5f + 1.0f;
  }
  return acc;
}

/*@ kernel nm12: labelled break from the inner loop straight to the code after the outer loop, carrying different live values than the normal exit. */
float nm12(float a, float b) {
  float x = a, y = b;
  int i, j = 0;
  for (i = 0; i < 9; ++i) {
    for (j = 0; j < 9; ++j) {
      x = x + y * 0.1f;
      y = y - 0.25f;
      if (x * y < -20.0f) goto out;
    }
  }
  return x + y;
out:
  return x * 2.0f + (float)(i * 9 + j);
}

/*@ kernel nm13: 2D search for the first (i, j) with a condition on the lane's data; the position is encoded in the result. */
float nm13(float a, float b) {
  for (int i = 0; i < 10; ++i) {
    for (int j = 0; j < 10; ++j) {
      float v = (float)(i * i) * 0.1f - (float)j * a * 0.2f;
      if (v > b) return (float)(i * 10 + j);
    }
  }
  return -1.0f;
}

/*@ kernel nm14: inner do-while with a break, in an outer while with a data-dependent condition. */
float nm14(float a, float b) {
  float x = a;
  int n = 0;
  while (x < b && n < 15) {
    int k = 0;
    do {
      x = x + 0.3f;
      if (x > b) break;
      ++k;
    } while (k < 4);
    x = x + 0.1f;
    ++n;
  }
  return x + (float)n;
}

/*@ kernel nm15: inner and outer exits and a return all depend on lane data. */
float nm15(float a, float b) {
  float x = a, y = b;
  int i;
  for (i = 0; i < 20; ++i) {
    if (x > 20.0f) break;
    for (int j = 0; j < 8; ++j) {
      x = x + y * 0.2f + 0.5f;
      if (x < -20.0f) return x - y;
      if (x > y + 10.0f) break;
    }
    y = y * 0.9f - 0.3f;
  }
  return x + y + (float)i;
}

/*@ kernel nm16: an inner loop exits through a return, the outer loop through a break and its latch. */
float nm16(float a, float b) {
  float s = 0.0f;
  int i = 0;
  while (i < 12) {
    float t = s;
    for (int j = 0; j < 6; ++j) {
      t = t + a * 0.3f - b * 0.1f;
      if (t < -12.0f) return t;
    }
    s = t;
    if (s > 12.0f) break;
    ++i;
  }
  return s + (float)i;
}
