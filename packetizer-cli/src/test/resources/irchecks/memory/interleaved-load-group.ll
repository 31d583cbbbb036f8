; Three fields of the same structs at a linear index (p[i].x, p[i].y, p[i].z of {float, float, float})
; under a full mask: one load of the span from lane 0's x to lane 3's z — (4-1)*3+3 = 12 floats — shared
; by the group, and one shuffle per field; no second load, no gather.
; RUN: packetize -f f -w 4 --params ul --remarks
; CHECK-LABEL: define <4 x float> @f_simd4(ptr %p, i64 %i)
; CHECK:       load <12 x float>, ptr
; CHECK-NOT:   load
; CHECK:       shufflevector <12 x float> {{.*}} <4 x i32> <i32 0, i32 3, i32 6, i32 9>
; CHECK:       shufflevector <12 x float> {{.*}} <4 x i32> <i32 1, i32 4, i32 7, i32 10>
; CHECK:       shufflevector <12 x float> {{.*}} <4 x i32> <i32 2, i32 5, i32 8, i32 11>
; CHECK-NOT:   gather
; SHAPES:      the span shared by 3 loads of the same structs (interleaved group)
%p3 = type { float, float, float }
define float @f(ptr %p, i64 %i) {
entry:
  %a = getelementptr inbounds %p3, ptr %p, i64 %i
  %x = load float, ptr %a, align 4
  %py = getelementptr inbounds i8, ptr %a, i64 4
  %y = load float, ptr %py, align 4
  %pz = getelementptr inbounds i8, ptr %a, i64 8
  %z = load float, ptr %pz, align 4
  %s = fadd float %x, %y
  %t = fmul float %s, %z
  ret float %t
}
