/* Scalar kernels for the scalable refill drivers (ScalableRefillDriverTest: --scalable --array-driver --refill
 * on AArch64 SVE and RISC-V V, the vector length known only at run time). Compiled by the bundled clang at -O2
 * for armv8-a+sve without -msve-vector-bits, and for rv64gcv without -mrvv-vector-bits. Per-lane trip counts in
 * the shapes the rounds must get right: 32-bit float state, 64-bit integer state (two SVE registers at W = 4:
 * two compacts and a splice; one RVV register group), a double result, a float result, an int result, masked
 * iterations, a nested loop, stores in the loop (each element's in its order), narrow state (bytes, shorts,
 * a flag), pointer state (a linked-list walk). */

/* escape time (mandelbrot): float state, int result (vvu) */
int escape(float x0, float y0, int maxIter) {
  float x = 0.0f, y = 0.0f;
  int i = 0;
  while (i < maxIter && x * x + y * y <= 4.0f) {
    float xt = x * x - y * y + x0;
    y = 2.0f * x * y + y0;
    x = xt;
    ++i;
  }
  return i;
}

/* 64-bit state and a 64-bit result (v) */
long collatz(long v) {
  long steps = 0;
  while (v > 1) {
    v = (v & 1) ? 3 * v + 1 : v / 2;
    steps++;
  }
  return steps;
}

/* several exits, an int result (vu) */
int multi_exit(float x, int limit) {
  float s = x;
  int i = 0;
  for (; i < limit; i++) {
    s = s * 1.37f - 0.61f * (float)i;
    if (s > 1000.0f) return 10000 + i;
    if (s < -50.0f) break;
    if ((i & 3) == 3 && s * s < 0.01f) return -i;
  }
  return i * 2 + (s > 0.0f);
}

/* work before the loop, the loop in a branch, a double result (v) */
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

/* a float result, a float and an int in the state (vu) */
float damp(float x, int limit) {
  float v = x;
  int k = 0;
  while (k < limit && (v > 0.01f || v < -0.01f)) {
    v = v * -0.61f + 0.001f * (float)k;
    k++;
  }
  return v + (float)k;
}

/* a remainder by a value of the state: the iterations stay masked (vv) */
int gcd(int a, int b) {
  while (b != 0) {
    int t = a % b;
    a = b;
    b = t;
  }
  return a < 0 ? -a : a;
}

/* nested loops: refill at the outer one (vu) */
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

/* side effects: stores in the loop into the element's own 8 slots, the same slot written again every 4
 * iterations, so the slots end as they do only when each element's stores come in its own order (vuv) */
int trail(int id, float *slots, float x) {
  int i = 0;
  float s = x;
  slots[id * 8 + 4] = x;
  while (s > 0.5f && i < 30) {
    slots[id * 8 + (i & 3)] = s;
    s = s * 0.8f - 0.05f;
    i++;
  }
  slots[id * 8 + 5] = (float)i;
  return i;
}

/* narrow state: a byte, a short and a flag live across the loop (v) */
int narrow(int seed) {
  unsigned char b = (unsigned char)seed;
  short h = (short)(seed >> 3);
  _Bool up = seed & 1;
  int i = 0;
  while (b != 7 && i < 50) {
    b = (unsigned char)(b * 13 + (up ? 5 : 3));
    h = (short)(h * 3 - b);
    up = h > 0;
    i++;
  }
  return i * 1000 + (h & 255) + up;
}

/* pointer state: a walk along a linked list, loads through the lane's own pointer (v) */
struct node { struct node *next; int v; };
int walk(const struct node *p) {
  int s = 0, k = 0;
  while (p && k < 40) {
    s += p->v;
    p = p->next;
    k++;
  }
  return s * 64 + k;
}
