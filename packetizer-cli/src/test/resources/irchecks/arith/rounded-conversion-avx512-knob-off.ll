; rounded-conversion-avx512.ll with -Dpacketizer.roundedConversions=false: every rounding stays an
; llvm.floor / llvm.ceil of 16 floats followed by fptosi (vrndscaleps + vcvttps2dq), no target intrinsic.
; SET: packetizer.roundedConversions=false
; RUN: packetize -f f -w 16 --params vv --target-cpu=znver4
; CHECK-LABEL: define <16 x float> @f_simd16(<16 x float> %x, <16 x float> %y)
; CHECK-NOT:   cvtps2dq
; CHECK-DAG:   call <16 x float> @llvm.ceil.v16f32(<16 x float> %y)
; CHECK-DAG:   call <16 x float> @llvm.floor.v16f32(<16 x float> %y)
; CHECK-NOT:   cvtps2dq
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
