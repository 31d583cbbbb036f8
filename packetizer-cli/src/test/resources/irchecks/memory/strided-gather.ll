; A stride of two elements is not consecutive: a gather, not a vector load.
; RUN: packetize -f f -w 4 --params ul
; CHECK-LABEL: define <4 x float> @f_simd4(ptr %p, i64 %i)
; CHECK:       call <4 x float> @llvm.masked.gather.v4f32.v4p0
; CHECK-NOT:   load <4 x float>
define float @f(ptr %p, i64 %i) {
entry:
  %j = shl i64 %i, 1
  %q = getelementptr inbounds float, ptr %p, i64 %j
  %v = load float, ptr %q, align 4
  ret float %v
}
