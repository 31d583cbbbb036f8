; A store through per-lane addresses: llvm.masked.scatter.
; RUN: packetize -f f -w 4 --params uvv
; CHECK-LABEL: define void @f_simd4(ptr %t, <4 x i64> %i, <4 x float> %x)
; CHECK:       call void @llvm.masked.scatter.v4f32.v4p0(<4 x float> %x, <4 x ptr>
; CHECK-NOT:   store <4 x float>
define void @f(ptr %t, i64 %i, float %x) {
entry:
  %p = getelementptr inbounds float, ptr %t, i64 %i
  store float %x, ptr %p, align 4
  ret void
}
