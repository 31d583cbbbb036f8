; Fast-math flags are kept on the vector instruction, never added where the scalar had none.
; RUN: packetize -f f -w 4 --params vv
; CHECK-LABEL: define <4 x float> @f_simd4(<4 x float> %x, <4 x float> %y)
; CHECK:       fmul fast <4 x float> %x, %y
; CHECK:       fadd <4 x float>
; CHECK-NOT:   fast
define float @f(float %x, float %y) {
entry:
  %m = fmul fast float %x, %y
  %s = fadd float %m, %y
  ret float %s
}
