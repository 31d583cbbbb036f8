; Two packet functions of one module calling expf share one out-of-line definition of the bit-exact
; helper: each calls it (a call, not a copy), its fast path is inlined into the helper's entry only
; (no .core function left), the first call re-enters the entry after the probe, and the probe reaches
; the fast path through the entry with no lane active, in a loop over the probes (issue 16, code growth).
; Alone in its packetization, the helper keeps its own cold pieces (shared by several: math-helper-shared-cold.ll).
; RUN: packetize -f f -f g -w 8 --vector-math=intrinsics
; CHECK-LABEL: define <8 x float> @f_simd8(<8 x float> %x)
; CHECK:       call <8 x float> @[[H:__packetizer_glibc_expf_v8_[0-9a-f]+]](<8 x float> %x, <8 x i1> splat (i1 true))
; CHECK-LABEL: define internal <8 x float> @[[H]](<8 x float> %x, <8 x i1> %m)
; CHECK:       load atomic i8, ptr @[[H]].ok monotonic
; CHECK:       %e.idx{{.*}} = and <8 x i32> %e.k32{{.*}}, splat (i32 31)
; CHECK:       call <8 x float> @[[H]].slow(
; CHECK-NOT:   define internal <8 x float> @[[H]].core
; CHECK-LABEL: define internal <8 x float> @[[H]].slow(
; CHECK:       call i1 @[[H]].probe()
; CHECK:       tail call <8 x float> @[[H]](<8 x float> %x, <8 x i1> %m)
; CHECK-LABEL: define internal i1 @[[H]].probe()
; CHECK:       call <8 x float> @[[H]](<8 x float> %xv, <8 x i1> zeroinitializer)
; CHECK:       call float @expf(float %x)
; CHECK-NOT:   call float @expf(
; CHECK-NOT:   define internal <8 x float> @[[H]]
; CHECK-LABEL: define <8 x float> @g_simd8(<8 x float> %x, <8 x float> %y)
; CHECK:       call <8 x float> @[[H]](<8 x float> %s, <8 x i1> splat (i1 true))
define float @f(float %x) {
entry:
  %e = call float @llvm.exp.f32(float %x)
  %m = fmul float %e, 3.0
  ret float %m
}
define float @g(float %x, float %y) {
entry:
  %s = fsub float %x, %y
  %e = call float @llvm.exp.f32(float %s)
  %a = fadd float %e, %y
  ret float %a
}
declare float @llvm.exp.f32(float)
