; --vector-math intrinsics: the math call becomes the LLVM intrinsic, bit-identical to libm lane by
; lane, no libmvec name; one with no vector instruction (tan) is called once per lane in a loop over
; the lanes (the back end would unroll the vector form into W calls).
; RUN: packetize -f f -w 8 --params v --vector-math intrinsics
; CHECK-LABEL: define <8 x float> @f_simd8(<8 x float> %x)
; CHECK:       {{.*}}.lanes:
; CHECK:       call float @llvm.tan.f32(float
; CHECK-NOT:   _ZGV
define float @f(float %x) #0 {
entry:
  %s = call float @tanf(float %x)
  ret float %s
}
declare float @tanf(float)
attributes #0 = { "target-cpu"="haswell" "target-features"="+avx,+avx2,+fma,+sse4.2" }
