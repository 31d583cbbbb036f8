; An irreducible loop (two entries, %a and %b) is made reducible by fix-irreducible instead of being
; rejected; the packet function is produced and returns a vector.
; RUN: packetize -f f -w 4 --params vu --print-shapes
; SHAPES:      @f -> @f_simd4 (width 4, params vu)
; SHAPES:      loop header
; CHECK-LABEL: define <4 x i32> @f_simd4(<4 x i32> %x, i32 %n)
; CHECK:       ret <4 x i32>
define i32 @f(i32 %x, i32 %n) {
entry:
  %c = icmp sgt i32 %x, 0
  br i1 %c, label %a, label %b
a:
  %ia = phi i32 [ 0, %entry ], [ %ib.next, %b ]
  %ia.next = add i32 %ia, 1
  %ca = icmp slt i32 %ia.next, %n
  br i1 %ca, label %b, label %exit
b:
  %ib = phi i32 [ 0, %entry ], [ %ia.next, %a ]
  %ib.next = add i32 %ib, 2
  %cb = icmp slt i32 %ib.next, %n
  br i1 %cb, label %a, label %exit
exit:
  %r = phi i32 [ %ia.next, %a ], [ %ib.next, %b ]
  ret i32 %r
}
