/* Atomics as clang emits them from C (compiled with plain -O1 / -O2 by AtomicsTest). Every function is
 * checked against W sequential scalar calls: shared counters' final values, each lane's old value. */
#include <stdatomic.h>

/* a shared counter (uniform address) under a divergent branch: one combined atomic */
int add_shared(int *counter, int x) {
  if (x > 0) return __atomic_fetch_add(counter, x, __ATOMIC_SEQ_CST);
  return -1;
}

long sub_shared(long *counter, long x) { return __atomic_fetch_sub(counter, x, __ATOMIC_ACQ_REL); }

int and_or_xor_shared(int *bits, int x) {
  int a = __atomic_fetch_and(&bits[0], ~(1 << (x & 31)), __ATOMIC_RELAXED);
  int o = __atomic_fetch_or(&bits[1], x, __ATOMIC_RELEASE);
  int e = x & 1 ? __atomic_fetch_xor(&bits[2], x * 7, __ATOMIC_ACQUIRE) : 0;
  return a ^ (o << 1) ^ (e << 2);
}

int minmax_shared(int *m, unsigned *u, int x) {
  int lo = __atomic_fetch_min(&m[0], x, __ATOMIC_SEQ_CST);
  int hi = __atomic_fetch_max(&m[1], x, __ATOMIC_SEQ_CST);
  unsigned ulo = __atomic_fetch_min(&u[0], (unsigned) x, __ATOMIC_RELAXED);
  unsigned uhi = x < 0 ? 0u : __atomic_fetch_max(&u[1], (unsigned) x * 3u, __ATOMIC_RELAXED);
  return lo + 3 * hi + (int) (ulo ^ uhi);
}

/* C11 atomics on shared counters (two: the lanes of one atomic instruction run in lane order, but
 * all lanes of one instruction before any lane of the next, so the old values two instructions see
 * at one location would interleave differently from W sequential calls) */
int c11_shared(atomic_int *c, int x) {
  if (x & 2) return atomic_fetch_add_explicit(&c[0], x, memory_order_relaxed);
  return atomic_fetch_sub(&c[1], 1);
}

/* per-lane addresses that collide (a histogram): one atomic per active lane, in lane order */
int histogram(int *bins, int x) {
  if (x >= 0) return __atomic_fetch_add(&bins[x & 7], x + 1, __ATOMIC_RELAXED);
  return __atomic_exchange_n(&bins[8 + ((-x) & 7)], x, __ATOMIC_SEQ_CST);
}

/* compare-and-swap: lanes compete for slots; only the first lane (in lane order) gets a free slot */
int claim(int *slots, int x, int me) {
  int expected = 0;
  if (__atomic_compare_exchange_n(&slots[x & 3], &expected, me, 0, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED)) return 1000;
  return expected;
}

/* a compare-and-swap loop at one address (atomic maximum of a float): lanes retry until they win */
float cas_max_float(float *m, float x) {
  float old = *m;
  for (;;) {
    float nv = old > x ? old : x;
    int o, n;
    __builtin_memcpy(&o, &old, 4);
    __builtin_memcpy(&n, &nv, 4);
    if (__atomic_compare_exchange_n((int *) m, &o, n, 1, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) return old;
    __builtin_memcpy(&old, &o, 4);
  }
}

/* atomic float add (atomicrmw fadd): not combinable, one per active lane in lane order */
float fadd_shared(_Atomic float *acc, float x) {
  if (x < 100.0f) return atomic_fetch_add_explicit(acc, x, memory_order_relaxed);
  return 0.0f;
}

/* atomic loads and stores through per-lane addresses */
int load_store_lanes(atomic_int *a, int i, int x) {
  int v = atomic_load_explicit(&a[i & 7], memory_order_acquire);
  if (x > 0) atomic_store_explicit(&a[8 + ((i + 1) & 7)], v + x, memory_order_release);
  return v;
}

/* fences: once per packet call */
void publish(float *out, int i, float v) {
  out[i] = v;
  __atomic_thread_fence(__ATOMIC_RELEASE);
  if (v > 0) __atomic_thread_fence(__ATOMIC_SEQ_CST);
}
