/* Divergent loops whose exit block takes a constant on some exiting edges (issue 16, eleventh round):
 * the packetizer starts the exit value's variable with the constant on every entry into the loop and
 * blends only the other edges. Written for ExitConstantTest; compiled by the bundled clang at plain -O1
 * and -O2. */

/* As in the benchmark's march: a hit returns t from inside the loop, a miss (too far, or out of the
 * uniform number of steps) returns the constant -1. */
float march_miss(float o, float d, int limit) {
  float t = 0.0f;
  for (int i = 0; i < limit; ++i) {
    float p = o + t * d;
    float q = p * p - 4.0f;
    float dist = (q < 0.0f ? -q : q) * 0.25f + 0.01f;
    if (dist < 0.05f) return t;
    t += dist;
    if (t > 20.0f) break;
  }
  return -1.0f;
}

/* Three ways out with two different constants and a value that changes every iteration. */
int search(int x, int y) {
  unsigned s = (unsigned)x;
  for (int i = 0; i < 64; ++i) {
    s = s * 1103515245u + (unsigned)y;
    if ((s >> 20 & 31u) == 7u) return i;
    if ((int)(s >> 8 & 1023u) < (y & 15)) return -2;
  }
  return -1;
}

/* The searching loop nested in a loop with per-lane trip counts: the constant must be there again on
 * every entry into the inner loop, not only on the first. */
int nested_search(int n, int m) {
  int acc = 0;
  int rounds = (n & 7) + 1;
  for (int r = 0; r < rounds; ++r) {
    unsigned x = (unsigned)m + (unsigned)r * 40503u;
    int found = 1000;
    for (int k = 0; k < 24; ++k) {
      x = x * 5u + 3u;
      if ((x >> 9) % 11u == 0u) { found = k; break; }
      if ((x & 255u) == (unsigned)(n & 255)) { found = -7; break; }
    }
    acc += found * (r + 1);
    if (acc > 3000 + m) break;
  }
  return acc;
}

/* A constant that leaves from a loop nested inside the loop that is exited (past both loops at once),
 * and a double. */
double two_level(double a, int n) {
  double v = a;
  for (int i = 0; i < 16; ++i) {
    for (int j = 0; j < (n & 3) + 1; ++j) {
      v = v * 1.5 - 0.75;
      if (v > 1.0e6) return 123.5;
      if (v < -1.0e6) return -0.0;
    }
    if (v > -0.5 && v < 0.5) return v + (double)i;
  }
  return 2.0;
}
