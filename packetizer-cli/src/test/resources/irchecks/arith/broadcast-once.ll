; A uniform parameter used by varying code inside a loop is broadcast once, in the entry block:
; no splat is built inside the loop.
; RUN: packetize -f f -w 4 --params vuu
; CHECK-LABEL: define <4 x float> @f_simd4(<4 x float> %x, float %k, i32 %n)
; CHECK:       shufflevector <4 x float>
; CHECK:       {{^[a-z0-9.]+}}:
; CHECK-NOT:   shufflevector
; CHECK:       ret <4 x float>
define float @f(float %x, float %k, i32 %n) {
entry:
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]
  %v = phi float [ %x, %entry ], [ %v.next, %loop ]
  %v.next = fmul float %v, %k
  %i.next = add i32 %i, 1
  %more = icmp slt i32 %i.next, %n
  br i1 %more, label %loop, label %exit
exit:
  ret float %v.next
}
