; With SSE only, libmvec's widest float variant has 4 lanes: a W=8 packet calls it twice, on the
; two halves, and concatenates the results.
; RUN: packetize -f f -w 8 --params v --vector-math libmvec
; CHECK-LABEL: define <8 x float> @f_simd8(<8 x float> %x)
; CHECK:       call <4 x float> @_ZGVbN4v_expf(<4 x float>
; CHECK:       call <4 x float> @_ZGVbN4v_expf(<4 x float>
; CHECK:       shufflevector <4 x float> {{.*}}, <4 x float> {{.*}}, <8 x i32>
define float @f(float %x) #0 {
entry:
  %s = call float @expf(float %x)
  ret float %s
}
declare float @expf(float)
attributes #0 = { "target-cpu"="x86-64-v2" "target-features"="+sse4.2,+sse4.1,+ssse3,+sse3" }
