/* Divergent loops whose exit test joins a per-lane condition with a UNIFORM step limit (issue 16,
 * march): clang folds `i < limit && !done` into one latch condition (`select c, u, false` or `select c,
 * true, u`), and the packetizer tests the uniform part with a real branch. Written for SplitExitTest;
 * compiled by the bundled clang at plain -O1 and -O2. */

/* Collatz steps of n, at most limit: per-lane trip counts that hit and miss the limit. */
int collatz_limited(int n, int limit) {
  unsigned x = (unsigned)(n < 0 ? -n : n) + 1u;
  int i = 0;
  while (i < limit && x != 1u) {
    x = (x & 1u) ? 3u * x + 1u : x >> 1;
    ++i;
  }
  return i * 100000 + (int)(x & 0xffff);
}

/* A sphere-tracing step loop, as in the benchmark's march: a hit returns from inside the loop, a miss
 * breaks out on a varying distance or runs out of the uniform number of steps. */
float march_limited(float o, float d, int limit) {
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

/* The uniform part first in the condition, a value that changes every iteration live after the loop. */
int bounded_sum(int a, int b, int limit) {
  unsigned s = (unsigned)a;
  int i = 0;
  for (;;) {
    s = s * 3u + (unsigned)b;
    s ^= s >> 7;
    ++i;
    if (i >= limit || (s & 15u) == 3u) break;
  }
  return (int)(s & 0xffffff) + i;
}

/* The limited loop nested in a loop with per-lane trip counts. */
int nested_limited(int n, int m, int limit) {
  int acc = 0;
  int rounds = (n & 7) + 1;
  for (int r = 0; r < rounds; ++r) {
    unsigned x = (unsigned)m + (unsigned)r * 17u;
    int k = 0;
    while (k < limit && (x % 7u) != 0u) {
      x = x * 5u + 3u;
      ++k;
    }
    acc += k * 31 + (int)(x & 255u);
    if (acc > 4000 + m) break;
  }
  return acc;
}
