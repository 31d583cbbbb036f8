; After packetization the module holds the user's functions and the packet function, nothing of the
; packetizer's own (scalar copy, half-built packet function, stack slots).
; RUN: packetize -f f -w 8 --params vu
; CHECK-LABEL: define float @f(
; CHECK-LABEL: define <8 x float> @f_simd8(
; CHECK-NOT:   __packetizer
; CHECK-NOT:   alloca
define float @f(float %x, i32 %n) {
entry:
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]
  %v = phi float [ %x, %entry ], [ %v.next, %loop ]
  %v.next = fmul float %v, 0.5
  %i.next = add i32 %i, 1
  %c = fcmp ogt float %v.next, 1.0
  br i1 %c, label %loop, label %exit
exit:
  ret float %v.next
}
