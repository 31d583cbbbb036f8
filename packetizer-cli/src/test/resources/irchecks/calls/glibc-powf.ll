; The bit-exact mode's glibc-exact powf (issue 16, GlibcPow): on a target with FMA and AVX2 a powf under a
; partial mask becomes one call of the vector helper with the two operands and the active lanes; the
; helper's fast path fuses its multiply-adds (llvm.fma) as glibc's FMA build does, calls powf only for the
; lanes outside it (the .lanes loop, two arguments per lane), and its probe runs 16 (x, y) pairs through
; the entry with no lane active, then powf on each. Without FMA (x86-64-v2) powf stays per lane.
; Alone in its packetization, the helper keeps its own cold pieces (shared by several: math-helper-shared-cold.ll).
; RUN: packetize -f f -w 8 --params vv --vector-math=intrinsics --remarks
; CHECK-LABEL: define <8 x float> @f_simd8(<8 x float> %x, <8 x float> %y)
; CHECK:       call <8 x float> @[[H:__packetizer_glibc_powf_v8_[0-9a-z]+]](<8 x float> %x, <8 x float> %y, <8 x i1> %
; CHECK-NOT:   call float @powf(
; CHECK-LABEL: define internal <8 x float> @[[H]](<8 x float> %x, <8 x float> %y, <8 x i1> %m)
; CHECK:       load atomic i8, ptr @[[H]].ok monotonic
; CHECK:       @llvm.fma.v8f64
; CHECK:       %ylogx{{.*}} = fmul <8 x double>
; CHECK:       call <8 x float> @[[H]].lanes(<8 x float> %x, <8 x float> %y, <8 x i1> %sm,
; CHECK-LABEL: define internal <8 x float> @[[H]].lanes(<8 x float> %x, <8 x float> %y, <8 x i1> %mask, <8 x float> %acc)
; CHECK:       call float @powf(float %xi, float %yi)
; CHECK-LABEL: define internal i1 @[[H]].probe()
; CHECK:       call <8 x float> @[[H]](<8 x float> %xv, <8 x float> %yv, <8 x i1> zeroinitializer)
; CHECK:       call float @powf(float %xs, float %ys)
; SHAPES:      call to powf became glibc-exact vector (verified at run time)
define float @f(float %x, float %y) #0 {
entry:
  %c = fcmp ogt float %x, 0.0
  br i1 %c, label %then, label %exit
then:
  %p = call float @powf(float %x, float %y)
  br label %exit
exit:
  %r = phi float [ %p, %then ], [ 0.0, %entry ]
  ret float %r
}
declare float @powf(float, float)
attributes #0 = { "target-cpu"="haswell" "target-features"="+avx,+avx2,+fma,+sse4.2" }
