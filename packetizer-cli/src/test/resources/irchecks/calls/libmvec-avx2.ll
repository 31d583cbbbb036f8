; Thesis 4.5.2 with glibc's vector math library: on AVX2 at W=8 a call of sinf becomes one call of
; libmvec's 8-lane AVX2 variant (_ZGVdN8v_sinf), not eight scalar calls.
; RUN: packetize -f f -w 8 --params v --vector-math libmvec
; CHECK-LABEL: define <8 x float> @f_simd8(<8 x float> %x)
; CHECK:       call <8 x float> @_ZGVdN8v_sinf(<8 x float>
; CHECK-NOT:   call float @sinf
define float @f(float %x) #0 {
entry:
  %s = call float @sinf(float %x)
  ret float %s
}
declare float @sinf(float)
attributes #0 = { "target-cpu"="haswell" "target-features"="+avx,+avx2,+fma,+sse4.2" }
