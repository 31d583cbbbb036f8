; (int)floorf(x * 8) + (int)ceilf(y) at W16 on znver4 (AVX-512F): each rounding that is used only by its
; conversion to i32 becomes one conversion with an embedded rounding mode (RoundedConversions:
; llvm.x86.avx512.mask.cvtps2dq.512, rounding 9 = toward -inf, 10 = toward +inf, exceptions suppressed),
; vcvtps2dq {rd-sae} / {ru-sae} instead of vrndscaleps + vcvttps2dq. The floor of %y is used as a float too
; and keeps its llvm.floor and fptosi. Fails with -Dpacketizer.roundedConversions=false
; (rounded-conversion-avx512-knob-off.ll).
; RUN: packetize -f f -w 16 --params vv --target-cpu=znver4
; CHECK-LABEL: define <16 x float> @f_simd16(<16 x float> %x, <16 x float> %y)
; CHECK-DAG:   call <16 x i32> @llvm.x86.avx512.mask.cvtps2dq.512(<16 x float> {{%[\w.]+}}, <16 x i32> poison, i16 -1, i32 9)
; CHECK-DAG:   call <16 x i32> @llvm.x86.avx512.mask.cvtps2dq.512(<16 x float> %y, <16 x i32> poison, i16 -1, i32 10)
; CHECK-DAG:   [[FY:%[\w.]+]] = call <16 x float> @llvm.floor.v16f32(<16 x float> %y)
; CHECK-DAG:   fptosi <16 x float> [[FY]] to <16 x i32>
; CHECK-NOT:   llvm.ceil
; CHECK:       ret <16 x float>
define float @f(float %x, float %y) #0 {
entry:
  %x8 = fmul float %x, 8.0
  %fx = call float @llvm.floor.f32(float %x8)
  %ix = fptosi float %fx to i32
  %cy = call float @llvm.ceil.f32(float %y)
  %iy = fptosi float %cy to i32
  %fy = call float @llvm.floor.f32(float %y)
  %jy = fptosi float %fy to i32
  %s = add i32 %ix, %iy
  %t = xor i32 %s, %jy
  %r = sitofp i32 %t to float
  %d = fsub float %y, %fy
  %o = fadd float %r, %d
  ret float %o
}
declare float @llvm.floor.f32(float)
declare float @llvm.ceil.f32(float)
attributes #0 = { "target-cpu"="znver4" }
