; A stride of two elements (p[2i], i linear) under a full mask: one load of the span from lane 0's
; element to lane 3's — exactly (4-1)*2+1 = 7 floats, nothing beyond the last lane's element — and a
; shuffle taking every second element; no gather.
; RUN: packetize -f f -w 4 --params ul --remarks
; CHECK-LABEL: define <4 x float> @f_simd4(ptr %p, i64 %i)
; CHECK:       load <7 x float>, ptr
; CHECK:       shufflevector <7 x float> {{.*}} <4 x i32> <i32 0, i32 2, i32 4, i32 6>
; CHECK-NOT:   gather
; SHAPES:      load with a stride of 2 elements became one load of the 7-element span and a shuffle
define float @f(ptr %p, i64 %i) {
entry:
  %j = shl i64 %i, 1
  %q = getelementptr inbounds float, ptr %p, i64 %j
  %v = load float, ptr %q, align 4
  ret float %v
}
