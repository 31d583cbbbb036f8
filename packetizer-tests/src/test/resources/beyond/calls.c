/*
 * Recursive packetization (docs/beyond-the-thesis.md, section 3): calls to functions defined in the
 * module get masked packet versions of those functions. Compiled by RecursivePacketizationTest with
 * BundledClang.KERNEL_FLAGS. record() is left undefined: the differential check supplies it and
 * compares the calls the scalar runs and the packet run make.
 */
#define NOINLINE __attribute__((noinline))

void record(int value);

/* A callee with side effects, called under divergent control: only the lanes that take the branch
 * may call it, and inside it only those with a > 1 record twice. */
NOINLINE void note(int i, float a) {
  if (a > 1.0f) record(i * 10);
  record(i);
}

float side(float a, int i) {
  if (a > 0.0f) note(i, a);
  return a * 2.0f;
}

/* A linear index passed on: the callee's version takes it as linear, so out[i] stays a vector store. */
NOINLINE void put(float *out, int i, float v) { out[i] = v * 2.0f; }

void put_user(float *out, int i, float v) {
  if (v > 0.0f) put(out, i, v);
}

/* A chain A -> B -> C, with a divergent loop in B and divergence in C. */
NOINLINE float chain_c(float x) { return x > 0.0f ? x * 0.5f + 1.0f : -x; }

NOINLINE float chain_b(float x, int k) {
  float s = 0.0f;
  for (int j = 0; j < k; ++j) s += chain_c(x - (float)j);
  return s;
}

float chain_a(float x, int k) { return x < 5.0f ? chain_b(x, k) : chain_c(x); }

/* A callee taking a pointer to the lane's struct (struct-of-arrays in the packet). */
typedef struct {
  float x, y;
  int n;
} Particle;

NOINLINE void bump(Particle *p, float d) {
  if (p->n > 0) p->x += d;
  p->y = p->y * 0.5f + d;
}

void soa_user(Particle *p, float d) {
  if (d > 0.0f) bump(p, d);
  else bump(p, -d * 2.0f);
}

/* A callee that cannot be packetized (a volatile access to a per-lane stack slot): the call falls
 * back to one scalar call per active lane. */
NOINLINE int opaque(int x) {
  volatile int t = x * 3;
  return t + 1;
}

int fallback_user(int x) { return x > 2 ? opaque(x) : x; }

/* Direct recursion (two calls, one left after tail-recursion elimination). */
NOINLINE int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

/* Direct recursion with a uniform parameter (the recursive call keeps it uniform); the alternating
 * sum keeps clang from turning the recursion into a loop. */
NOINLINE int sumdown(int x, int step) { return x <= 0 ? 0 : x - sumdown(x - step, step); }

/* Recursion with side effects before and after the recursive call. */
NOINLINE void countdown(int n) {
  if (n > 0) {
    record(n);
    countdown(n - 1);
    record(-n);
  }
}

/* Mutual recursion. */
NOINLINE int is_odd(int n);
NOINLINE int is_even(int n) { return n == 0 ? 1 : is_odd(n - 1); }
NOINLINE int is_odd(int n) { return n == 0 ? 0 : is_even(n - 1); }
