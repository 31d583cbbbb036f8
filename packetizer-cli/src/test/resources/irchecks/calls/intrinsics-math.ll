; --vector-math intrinsics: the math call becomes the LLVM vector intrinsic (bit-identical to libm
; lane by lane), no libmvec name.
; RUN: packetize -f f -w 8 --params v --vector-math intrinsics
; CHECK-LABEL: define <8 x float> @f_simd8(<8 x float> %x)
; CHECK:       call <8 x float> @llvm.sin.v8f32(<8 x float>
; CHECK-NOT:   _ZGV
define float @f(float %x) #0 {
entry:
  %s = call float @sinf(float %x)
  ret float %s
}
declare float @sinf(float)
attributes #0 = { "target-cpu"="haswell" "target-features"="+avx,+avx2,+fma,+sse4.2" }
