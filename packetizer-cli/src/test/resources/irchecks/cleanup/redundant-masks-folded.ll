; Straight-line code has the all-true entry mask everywhere: clean-up leaves no mask arithmetic, no
; select and no any-lane test.
; RUN: packetize -f f -w 8 --params vv
; CHECK-LABEL: define <8 x float> @f_simd8(<8 x float> %x, <8 x float> %y)
; CHECK-NOT:   select
; CHECK-NOT:   <8 x i1>
; CHECK-NOT:   br
; CHECK:       ret <8 x float>
define float @f(float %x, float %y) {
entry:
  %a = fmul float %x, %y
  %b = fadd float %a, %x
  %c = fsub float %b, %y
  ret float %c
}
