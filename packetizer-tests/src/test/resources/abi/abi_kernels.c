/* Scalar kernels whose packet versions are called from C callers in their own translation units
 * (CCallerAbiTest). Compiled with the test kernel flags and one -march per ISA. */

/* varying float, divergent branch */
float fmix(float x, float y) {
  if (x < y) return x * 2.0f - y;
  return y / (x + 1.0f);
}

/* varying int and a uniform int; a loop with a per-lane trip count */
int imix(int a, int k) {
  int r = a;
  for (int i = 0; i < (a & 7); i++) r = r * 3 + k;
  return r;
}

/* varying double and a linear long */
double dpoly(double x, long i) {
  double t = x * x + (double)i * 0.5;
  return t > 10.0 ? t - 10.0 : t;
}

/* a struct-of-arrays pointer: every lane's point is read and written */
struct point { float x, y; };
void soa(struct point *p) {
  float x = p->x, y = p->y;
  if (x > y) p->x = x - y;
  else p->y = y * 0.5f + x;
}

/* integer division: a masked-off lane with b == 0 must not trap (SIGFPE) */
int idiv(int a, int b) { return a / b + (a % 7); }

/* a varying signed char: four of them are a 4-byte vector, which C passes in a general register */
int cmix(signed char c, int k) { return c > 3 ? c * k : c - k; }
