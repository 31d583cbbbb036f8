; The same strided load under a partial mask (a masked packet function): the span's ends may belong
; to inactive lanes, which must not read, so it stays a masked gather.
; RUN: packetize -f f -w 4 --params ul --masked
; CHECK-LABEL: define <4 x float> @f_simd4(ptr %p, i64 %i, <4 x i1> %mask)
; CHECK:       call <4 x float> @llvm.masked.gather.v4f32.v4p0
; CHECK-NOT:   load <7 x float>
define float @f(ptr %p, i64 %i) {
entry:
  %j = shl i64 %i, 1
  %q = getelementptr inbounds float, ptr %p, i64 %j
  %v = load float, ptr %q, align 4
  ret float %v
}
