#include <stdio.h>
#include <stdlib.h>
#include <time.h>
void run(float *p, long n, float *out);
int main(int argc, char **argv) {
  int F = atoi(argv[1]); long n = 4096; float *p = calloc(n * F + 64, 4); float out[64];
  for (long i = 0; i < n * F; i++) p[i] = i & 7;
  struct timespec a, b; double best = 1e9;
  for (int r = 0; r < 15; r++) {
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
    for (int k = 0; k < 200; k++) run(p, n, out);
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
    double t = ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / (200.0 * n);
    if (t < best) best = t;
  }
  printf("%.3f", best); return 0;
}
