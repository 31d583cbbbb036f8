; The function of interleaved-rows.ll under -Dpacketizer.memory.rowTranspose=off (before the sixteenth
; round): one load of the span from lane 0's field 0 to lane 7's field 5 — 7*14+6 = 104 floats — and one
; shuffle of it per field; no rows.
; SET: packetizer.memory.rowTranspose=off
; RUN: packetize -f f -w 8 --params l56 --target-cpu haswell --remarks
; CHECK-LABEL: define <8 x float> @f_simd8(ptr %p)
; CHECK:       load <104 x float>, ptr
; CHECK-NOT:   load
; CHECK:       shufflevector <104 x float> {{.*}} <8 x i32> <i32 0, i32 14, i32 28, i32 42, i32 56, i32 70, i32 84, i32 98>
; CHECK-NOT:   load <4 x float>
; CHECK-NOT:   gather
; SHAPES:      the span shared by 6 loads of the same structs (interleaved group)
%s14 = type { [14 x float] }
define float @f(ptr %p) {
entry:
  %x0 = load float, ptr %p, align 4
  %p1 = getelementptr inbounds i8, ptr %p, i64 4
  %x1 = load float, ptr %p1, align 4
  %p2 = getelementptr inbounds i8, ptr %p, i64 8
  %x2 = load float, ptr %p2, align 4
  %p3 = getelementptr inbounds i8, ptr %p, i64 12
  %x3 = load float, ptr %p3, align 4
  %p4 = getelementptr inbounds i8, ptr %p, i64 16
  %x4 = load float, ptr %p4, align 4
  %p5 = getelementptr inbounds i8, ptr %p, i64 20
  %x5 = load float, ptr %p5, align 4
  %a = fadd float %x0, %x1
  %b = fmul float %x2, %x3
  %c = fsub float %x4, %x5
  %d = fadd float %a, %b
  %e = fmul float %d, %c
  ret float %e
}
