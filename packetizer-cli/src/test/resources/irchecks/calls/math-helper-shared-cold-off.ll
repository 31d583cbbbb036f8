; The knob -Dpacketizer.mathHelpers.sharedCold=false (issue 16, code growth, fifteenth round): the two helpers
; that math-helper-shared-cold.ll's packetization adds (expf, powf) keep one set of cold pieces each, as
; before the shared pieces: each its own .lanes, .probe and .slow, no shared piece, no descriptor.
; RUN: packetize -f f -w 8 --params vv --vector-math=intrinsics
; SET: packetizer.mathHelpers.sharedCold=false
; CHECK-NOT:   __packetizer_cold_v
; CHECK-NOT:   .desc =
; CHECK-LABEL: define internal <8 x float> @[[P:__packetizer_glibc_powf_v8_[0-9a-f]+[a-z]*]](<8 x float> %x, <8 x float> %y, <8 x i1> %m)
; CHECK:       call <8 x float> @[[P]].lanes(<8 x float> %x, <8 x float> %y, <8 x i1> %sm,
; CHECK:       call <8 x float> @[[P]].slow(<8 x float> %x, <8 x float> %y, <8 x i1> %m)
; CHECK-LABEL: define internal <8 x float> @[[P]].lanes(
; CHECK:       call float @powf(float %xi, float %yi)
; CHECK-LABEL: define internal <8 x float> @[[P]].slow(
; CHECK:       call i1 @[[P]].probe()
; CHECK-LABEL: define internal i1 @[[P]].probe()
; CHECK-LABEL: define internal <8 x float> @[[E:__packetizer_glibc_expf_v8_[0-9a-f]+[a-z]*]](<8 x float> %x, <8 x i1> %m)
; CHECK:       call <8 x float> @[[E]].lanes(<8 x float> %x, <8 x i1> %sm,
; CHECK:       call <8 x float> @[[E]].slow(<8 x float> %x, <8 x i1> %m)
; CHECK-LABEL: define internal <8 x float> @[[E]].lanes(
; CHECK-LABEL: define internal i1 @[[E]].probe()
; CHECK:       call float @expf(float %x)
; CHECK-NOT:   __packetizer_cold_v
define float @f(float %x, float %y) #0 {
entry:
  %s = fsub float %x, %y
  %e = call float @llvm.exp.f32(float %s)
  %c = fcmp ogt float %x, 0.0
  br i1 %c, label %then, label %exit
then:
  %p = call float @powf(float %x, float %y)
  br label %exit
exit:
  %r = phi float [ %p, %then ], [ 0.0, %entry ]
  %t = fadd float %r, %e
  ret float %t
}
declare float @llvm.exp.f32(float)
declare float @powf(float, float)
attributes #0 = { "target-cpu"="haswell" "target-features"="+avx,+avx2,+fma,+sse4.2" }
