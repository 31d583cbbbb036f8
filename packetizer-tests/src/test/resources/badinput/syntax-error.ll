; A syntax error on line 5: 'fadd' needs two operands.
define float @f(float %x) {
entry:
  %a = fmul float %x, 2.0
  %b = fadd float %a
  ret float %b
}
