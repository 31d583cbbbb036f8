/* 128-bit division (code generation calls the compiler runtime: __udivti3, __umodti3, __divti3) and
 * a polynomial loop, checked up to W=256 (a <256 x double> argument is 2 KB). */
typedef unsigned __int128 u128;
typedef __int128 s128;

unsigned long long div128(unsigned long long hi, unsigned long long lo, unsigned long long d) {
  u128 n = ((u128)hi << 64) | lo;
  if (d == 0) return 0;
  return (unsigned long long)(n / d) ^ (unsigned long long)(n % d);
}

long long sdiv128(long long a, long long b) {
  s128 n = (s128)a * 1000003;
  if (b == 0) return -1;
  return (long long)(n / b);
}

double poly(double x, int n) {
  double r = 0.0;
  for (int i = 0; i < n; i++) r = r * x + (double)i;
  if (r > 100.0) r = r / 3.0;
  return r;
}
