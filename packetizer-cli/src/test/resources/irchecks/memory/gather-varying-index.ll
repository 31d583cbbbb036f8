; A varying index gives arbitrary per-lane addresses: llvm.masked.gather (the default memory
; strategy), with an all-true mask in a block that holds all lanes.
; RUN: packetize -f f -w 8 --params uv
; CHECK-LABEL: define <8 x float> @f_simd8(ptr %t, <8 x i32> %k)
; CHECK:       getelementptr inbounds float, ptr %t, <8 x i64>
; CHECK:       call <8 x float> @llvm.masked.gather.v8f32.v8p0(<8 x ptr> {{.*}}, i32 4, <8 x i1> splat (i1 true)
; CHECK-NOT:   load <8 x float>, ptr
define float @f(ptr %t, i32 %k) {
entry:
  %i = sext i32 %k to i64
  %p = getelementptr inbounds float, ptr %t, i64 %i
  %v = load float, ptr %p, align 4
  ret float %v
}
