/* C99 variable-length arrays (compiled with plain -O1 / -O2 by DynamicAllocaTest): dynamic allocas of
 * per-lane sizes, and llvm.stacksave/stackrestore around a VLA declared in a loop. */

/* per-lane sizes; the array is filled and read back in a data-dependent order */
int vla_sum(int n, int x) {
  int m = (n & 31) + 1;
  int a[m];
  for (int i = 0; i < m; i++) a[i] = x * i + (i ^ n);
  int s = 0;
  for (int i = 0, j = 0; i < m; i++, j = (j * 7 + 3) % m) s += a[j] ^ (s >> 3);
  return s;
}

/* a VLA under a divergent branch: only the lanes that take it allocate */
int vla_branch(int n, int x) {
  if (x > 0) {
    int m = (n & 15) + 2;
    short b[m];
    for (int i = 0; i < m; i++) b[i] = (short) (x + i);
    return b[(x & 0xff) % m] + b[m - 1];
  }
  return -n;
}

/* a VLA in a loop: stacksave/stackrestore free each iteration's arrays. 400 iterations of up to
 * 1,024 ints per lane would need 26 MB of stack at W=16 without the restores (the test JVM has 8 MB). */
int vla_loop(int n, int x) {
  int s = 0;
  for (int j = 0; j < 400 + (n & 3); j++) {
    int m = ((x + j) & 1023) + 1;
    int a[m];
    for (int i = 0; i < m; i++) a[i] = x * i + j;
    s += a[(j * 31) % m] ^ a[m - 1];
  }
  return s;
}

/* the VLA escapes into a per-lane output buffer through a called helper */
/* (public: static helpers get fastcc, issue 19 part 1, tested elsewhere) */
__attribute__((noinline)) void vla_fill(int *p, int m, int v) {
  for (int i = 0; i < m; i++) p[i] = v - i;
}

void vla_out(int *out, int n) {
  int m = (n & 7) + 1;
  int a[m];
  vla_fill(a, m, n);
  int s = 0;
  for (int i = 0; i < m; i++) s += a[i];
  out[0] = s;
  out[1] = m;
}
