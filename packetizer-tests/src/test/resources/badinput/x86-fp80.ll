; A varying x86_fp80 (long double) value.
define double @f(double %x) {
entry:
  %e = fpext double %x to x86_fp80
  %m = fmul x86_fp80 %e, %e
  %r = fptrunc x86_fp80 %m to double
  ret double %r
}
