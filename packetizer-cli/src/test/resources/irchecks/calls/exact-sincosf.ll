; --vector-math intrinsics (bit-exact): sinf and cosf of one argument become glibc's algorithm as
; vector IR, its FMA build for an FMA+AVX2 target: one call of the shared fast path for both (the
; clean-up merged the two), then each function's guarded helper (libm for lanes with |x| >= 120,
; infinities, NaN, and for every lane when the linked libm differs); no per-lane sinf loop in the
; packet function, no libmvec name.
; RUN: packetize -f f -w 8 --params v --vector-math intrinsics
; CHECK-LABEL: define <8 x float> @f_simd8(<8 x float> %x)
; CHECK:       call { <8 x float>, <8 x float> } @__packetizer_sincosf_v8_fma_
; CHECK-NOT:   @__packetizer_sincosf_v8
; CHECK:       call <8 x float> @__packetizer_cosf_v8_fma_
; CHECK:       call <8 x float> @__packetizer_sinf_v8_fma_
; CHECK-NOT:   _ZGV
; CHECK:       ret <8 x float>
; CHECK:       call <8 x double> @llvm.fma.v8f64
define float @f(float %x) #0 {
entry:
  %c = call float @cosf(float %x)
  %s = call float @sinf(float %x)
  %r = fadd float %c, %s
  ret float %r
}
declare float @sinf(float)
declare float @cosf(float)
attributes #0 = { "target-cpu"="haswell" "target-features"="+avx,+avx2,+fma,+sse4.2" }
