/* Scalar kernels for the lane-refill drivers (RefillDriverJitTest, RefillDriverCallerTest): loops with
 * per-lane trip counts in the shapes refill must get right. Compiled by the bundled clang with plain
 * -O2 (rotated loops with guards, LCSSA values, clang's own block layout). */
#include <stdbool.h>

/* a divergent loop over 64-bit integers (v) */
long collatz(long v) {
  long steps = 0;
  while (v > 1) {
    v = (v & 1) ? 3 * v + 1 : v / 2;
    steps++;
  }
  return steps;
}

/* several exits with different results: a return inside the loop, a break, the count limit (vu) */
int multi_exit(float x, int limit) {
  float s = x;
  int i = 0;
  for (; i < limit; i++) {
    s = s * 1.37f - 0.61f * (float)i;
    if (s > 1000.0f) return 10000 + i;       /* exit 1 */
    if (s < -50.0f) break;                  /* exit 2 */
    if ((i & 3) == 3 && s * s < 0.01f) return -i; /* exit 3 */
  }
  return i * 2 + (s > 0.0f);                /* exit 4 (limit) and after the break */
}

/* the code after the loop reads other values at each exit, none of them a counter (vu): the escape reads the
 * state (s, p) and a value of the exiting iteration (q); the break a value of that iteration only; the count
 * limit reads t, a live-out no other exit uses. With the result computed at the round (RefillDriver's
 * resultAtRound) a lane's state must be the one it left with, whichever exit it took. */
float exit_values(float x, int limit) {
  float s = x, p = 1.0f, t = 0.0f;
  for (int i = 0; i < limit; i++) {
    float q = s * s - 0.75f;
    if (q > 4.0f) return s * p + q;          /* exit 1 */
    p = p * 0.5f + q;
    if (p < -1.2f) { t = p - s; break; }     /* exit 2 */
    s = q + x * 0.25f;
    t += s;
  }
  return t * 0.5f + (float)limit;            /* exit 3 (limit) and after the break */
}

/* nested loops: refill at the outer one; the inner trip count differs too (vu) */
int nested(int seed, int rounds) {
  int acc = 0;
  unsigned v = (unsigned)seed * 2654435761u;
  for (int r = 0; r < rounds + (seed & 7); r++) {
    int k = 0;
    while ((v & 15) != 0 && k < 40) { v = v * 1103515245u + 12345u; v ^= v >> 11; k++; }
    acc += k * (r + 1);
    v += (unsigned)r + 1;
    if (acc > 5000) break;
  }
  return acc ^ (int)(v & 255);
}

/* work before the loop, the loop inside a divergent branch, work after it (v) */
double guarded(double x) {
  double y = x * x - 2.0;
  if (x > 0.25) {
    double t = y;
    int i = 0;
    while (t > 1e-3 && i < 60) { t = t * 0.7 - 0.01 * x; i++; }
    y = t + i;
  } else {
    y = -y;
  }
  return y * 3.0 + 1.0;
}

/* a bool result from a loop (v) */
bool converges(float c) {
  float z = 0.0f;
  for (int i = 0; i < 64; i++) {
    z = z * z + c;
    if (z > 2.0f || z < -2.0f) return false;
  }
  return true;
}

/* side effects: a call per iteration and a store per iteration into the element's own slots;
 * each element's calls and stores must stay in its own order (luv: element id, log, value) */
int log_count[1024];
int log_val[1024][64];
__attribute__((noinline)) void note(int id, int v) {
  if (id >= 0 && id < 1024 && log_count[id] < 64) log_val[id][log_count[id]++] = v;
}
int traced(int id, float *slots, float x) {
  note(id, -1);                     /* before the loop */
  int i = 0;
  float s = x;
  while (s > 0.5f && i < 30) {
    slots[id * 32 + i] = s;         /* the element's own slots, in order */
    note(id, i);
    s = s * 0.8f - 0.05f;
    i++;
  }
  note(id, 1000 + i);               /* after the loop */
  return i;
}

/* a loop whose trip count differs between lanes inside a loop whose trip count does not (rows of an
 * image, iterations of a solver): refill cuts at the outer (top-level) loop, see docs/drivers.md (vu) */
int rows(int seed, int nrows) {
  int acc = 0;
  unsigned v = (unsigned)seed * 2654435761u;
  for (int r = 0; r < nrows; r++) {
    unsigned t = v + (unsigned)r * 40503u;
    int lim = 20 + (r & 3) * 10;
    int k = 0;
    while ((t & 7) != 0 && k < lim) { t = t * 1103515245u + 12345u; t ^= t >> 13; k++; }
    acc = acc * 3 + k + (int)(t & 3) - r;
  }
  return acc ^ (int)v;
}

/* a remainder by a value of the loop's state (vv): a lane whose element is done holds b == 0, so the
 * iterations must stay masked (an unmasked a % b on that lane would trap) */
int gcd(int a, int b) {
  while (b != 0) {
    int t = a % b;
    a = b;
    b = t;
  }
  return a < 0 ? -a : a;
}

/* no loop: refill has nothing to do (the plain driver, with a remark) (vvu) */
float saxpy(float x, float y, float a) { return a * x + y; }

/* a local array the loop indexes: a stack slot live across the loop (refused: plain driver) (vu) */
int stack_slot(int seed, int n) {
  int buf[8];
  for (int k = 0; k < 8; k++) buf[k] = seed + k;
  int i = 0, s = 0;
  while (s < 1000 && i < n + (seed & 15)) { s += buf[(s + i) & 7]; i++; }
  return s + i;
}
