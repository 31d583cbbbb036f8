; --optimize size (issue 16, code growth): in the bit-exact mode expf, logf and powf do not become the
; module's glibc-exact vector helpers (each 100-300 machine instructions with its probe, first-call
; path and per-lane fallback) but one counted loop over the lanes each, calling the scalar function
; (bit-identical, code that does not grow with W); no helper is linked into the module. Without
; --optimize size the same input calls @__packetizer_glibc_expf_v8_... (calls/libm-glibc-exact.ll).
; (This function is small enough that the size mode's last resort, a loop over the lanes running the scalar
; code, would take it over (memory/size-scalar-lanes.ll); the knob keeps this file's subject.)
; RUN: packetize -f f -w 8 --params vv --vector-math=intrinsics --optimize size --remarks
; SET: packetizer.sizeScalarLanes=false
; CHECK-LABEL: define <8 x float> @f_simd8(<8 x float> %x, <8 x float> %y)
; CHECK-NOT:   @__packetizer_glibc
; CHECK:       .lanes:
; CHECK:       call float @llvm.exp.f32(float
; CHECK:       .lanes:
; CHECK:       call float @llvm.log.f32(float
; CHECK:       .lanes:
; CHECK:       call float @llvm.pow.f32(float
; CHECK:       ret <8 x float>
; CHECK-NOT:   @__packetizer_glibc
; SHAPES:      call to expf became llvm.exp on each active lane
; SHAPES-SAME: optimizing for size
; SHAPES:      call to powf became llvm.pow on each active lane
; SHAPES-SAME: optimizing for size
define float @f(float %x, float %y) #0 {
entry:
  %e = call float @expf(float %x)
  %l = call float @logf(float %y)
  %p = call float @powf(float %x, float %y)
  %s = fadd float %e, %l
  %r = fadd float %s, %p
  ret float %r
}
declare float @expf(float)
declare float @logf(float)
declare float @powf(float, float)
attributes #0 = { "target-cpu"="haswell" "target-features"="+avx,+avx2,+fma,+sse4.2" }
