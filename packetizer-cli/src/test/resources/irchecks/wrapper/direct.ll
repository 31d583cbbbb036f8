; --wrapper direct: one 16-wide function even on a 4-wide machine (LLVM splits the vectors); no
; N-wide helper.
; RUN: packetize -f f -w 16 --params vu --hardware-width 4 --wrapper direct
; CHECK-LABEL: define <16 x float> @f_simd16(<16 x float> %x, float %k)
; CHECK:       fmul <16 x float>
; CHECK-NOT:   @f_simd16.n4
define float @f(float %x, float %k) {
entry:
  %m = fmul float %x, %k
  ret float %m
}
