/* Variadic callees with varying arguments (compiled with plain -O1 / -O2 by VariadicCallTest): guarded
 * per-lane calls in lane order, with clang's default argument promotions (float -> double, char and
 * short -> int) and the call site's own function type. record() is a Java upcall of the check that
 * logs each call; every packet function makes at most one variadic call per lane, so the logs must be
 * equal in order, not only as multisets. */
#include <stdarg.h>

void record(int);
int snprintf(char *, unsigned long, const char *, ...);
int legacy(); /* unprototyped (K&R): the call site's type is not the declaration's */

/* a variadic function of the module */
__attribute__((noinline)) int note(int n, ...) {
  va_list ap;
  va_start(ap, n);
  int s = 0;
  for (int i = 0; i < n; i++) {
    int v = va_arg(ap, int);
    record(v);
    s += v;
  }
  va_end(ap);
  return s;
}

/* reads its arguments as promoted: double, int, int */
__attribute__((noinline)) double notef(const char *tag, ...) {
  va_list ap;
  va_start(ap, tag);
  double d = va_arg(ap, double);
  int c = va_arg(ap, int);
  int sh = va_arg(ap, int);
  va_end(ap);
  record((int) (d * 16));
  record(c);
  record(sh);
  record(tag[0]);
  return d + c + sh;
}

int log_ints(int x) {
  if (x > 0) return note(3, x, x * 2, -x);
  return 0;
}

int log_promoted(int x, float f) {
  if (x < 10) return (int) notef("neg", f, (char) x, (short) (x * 300));
  return 1;
}

/* printf-like into each lane's own buffer, under a divergent branch */
int format(char *buf, int x, float f) {
  if (x & 1) return snprintf(buf, 40, "%d|%.3f|%hd|%c|%s", x, f, (short) x, 'a' + (x & 15), x > 0 ? "pos" : "neg");
  return -1;
}

/* an unprototyped callee called with promoted arguments */
int call_legacy(int x, float f) {
  if (x != 0) return legacy(x, f);
  return 7;
}
