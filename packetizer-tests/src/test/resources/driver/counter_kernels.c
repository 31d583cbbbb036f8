/* Loops whose result is their counter as a lane leaves them (RefillDriver's counterResult: RefillSplit.counterSlot
 * finds the counter, the driver keeps it and reads the results from it, computing the result from it where the function
 * does: RefillSplit.resultSteps), in the shapes clang -O2 gives them, and one loop whose result is not a function of its
 * counter alone (the result is carried as before).
 * RefillDriverJitTest.counterResultsMatchTheScalarFunction compiles them with the bundled clang. */

/* the counter before its increment at the escape, the limit (which the latch compared equal to the increment) at the
 * count, as mandelbrot (vu) */
int count_early(float x, int limit) {
  float z = 0.0f;
  int i = 0;
  for (; i < limit; i++) {
    if (z * z > 4.0f + x) return i;
    z = z * z * 0.5f + x;
  }
  return limit;
}

/* the counter after its increment at both exits: a loop with a break after the increment (vu) */
int count_late(float x, int limit) {
  float z = x;
  int n = 0;
  do {
    z = z * z - 1.5f + 0.01f * (float)n;
    n++;
    if (z > 3.0f || z < -3.0f) break;
  } while (n < limit);
  return n;
}

/* a counter that steps down by 3 (vu) */
int count_down(float x, int limit) {
  int left = limit * 3;
  float z = x;
  while (left > 0 && z < 10.0f) {
    z = z * 1.21f + 0.3f;
    left -= 3;
  }
  return left;
}

/* a 64-bit counter stepping by 2 next to 32-bit state (the active mask in 32-bit lanes, the counter in 64) (vu) */
long count_step(float x, int limit) {
  long k = 0;
  float z = x;
  while (k < 2L * limit && z * z < 9.0f) {
    z = z * 0.9f + 1.3f - z * z * 0.2f;
    k += 2;
  }
  return k;
}

/* masked iterations (a remainder by a value of the state) with the counter as the result (vv) */
int count_div(int a, int b) {
  int n = 0;
  while (b != 0 && n < 30) {
    int t = a % b;
    a = b;
    b = t;
    n++;
  }
  return n;
}

/* a result that is not a function of the counter alone (the counter and a value of the loop's state): the result is
 * carried as before (vu) */
int not_counter(float x, int limit) {
  float z = x;
  int i = 0;
  while (i < limit && z < 50.0f) {
    z = z * 1.1f + 0.7f;
    i++;
  }
  return 2 * i + (z > 20.0f);
}

/* a 32-bit counter that also feeds 64-bit arithmetic: clang's induction-variable widening makes the counter 64 bits and
 * returns its truncation (trunc of the increment at the loop's exit), the shape of refill_kernels.c's traced (vu) */
int count_trunc(float x, int limit) {
  float z = x;
  long h = 0;
  int i = 0;
  while (i < limit && z < 20.0f) {
    h = h * 3 + i;
    z = z * 1.05f + 0.4f + (float)(h & 7) * 0.01f;
    i++;
  }
  return i;
}

/* the twenty-third round: counters the route did not recognise before. A 32-bit counter returned as a 64-bit result:
 * clang -O2 returns zext nneg of the exit's phi (the counter before its increment at the escape, the limit compared
 * equal to the increment at the count) (vu) */
long count_sext(float x, int limit) {
  float z = 0.0f;
  int i = 0;
  for (; i < limit; i++) {
    if (z * z > 4.0f + x) break;
    z = z * z * 0.5f + x;
  }
  return i;
}

/* an unsigned 32-bit counter returned as unsigned long: zext of the increment (vu) */
unsigned long count_zext(float x, unsigned limit) {
  float z = x;
  unsigned n = 0;
  while (n < limit && z < 30.0f) {
    z = z * 1.1f + 0.5f;
    n++;
  }
  return n;
}

/* a 64-bit counter whose count exit compares it with the sign-extended 32-bit limit, and returns the limit there and
 * the counter's truncation at the escape (icmp eq i64 %i.next, sext %limit; ret i32 %limit) (vu) */
int count_limit64(float x, int limit) {
  float z = x;
  long i = 0;
  for (; i < (long)limit; i++) {
    if (z > 40.0f) return (int)i;
    z = z * 1.2f + 0.3f;
  }
  return limit;
}

/* the result computed from the counter: 2 * i + 1 (clang: shl, or disjoint) (vu) */
int count_affine(float x, int limit) {
  float z = x;
  int i = 0;
  while (i < limit && z < 50.0f) {
    z = z * 1.1f + 0.7f;
    i++;
  }
  return 2 * i + 1;
}

/* the result computed from the counter and a uniform argument: limit - i (vu) */
int count_left(float x, int limit) {
  float z = x;
  int i = 0;
  while (i < limit && z < 50.0f) {
    z = z * 1.1f + 0.7f;
    i++;
  }
  return limit - i;
}
