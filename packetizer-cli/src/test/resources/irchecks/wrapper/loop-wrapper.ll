; Thesis 4.6: W=16 on a 4-wide machine with --wrapper loop: a 4-wide packet function @f_simd16.n4
; and the 16-wide @f_simd16 that calls it on four slices of its arguments and assembles the result.
; RUN: packetize -f f -w 16 --params vu --hardware-width 4 --wrapper loop
; SHAPES:      wrapper: @f_simd16 calls the 4-wide @f_simd16.n4 4 times
; CHECK-LABEL: define internal <4 x float> @f_simd16.n4(<4 x float> %x, float %k)
; CHECK-LABEL: define <16 x float> @f_simd16(<16 x float> {{%[a-z0-9.]+}}, float {{%[a-z0-9.]+}})
; CHECK:       shufflevector <16 x float> {{.*}}, <4 x i32>
; CHECK:       call <4 x float> @f_simd16.n4(<4 x float>
; CHECK:       ret <16 x float>
define float @f(float %x, float %k) {
entry:
  %m = fmul float %x, %k
  ret float %m
}
