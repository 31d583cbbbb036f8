; A loop whose trip count is uniform is a uniform loop: every lane runs the same iterations, its
; counter is uniform and its branch is a real (kept) branch.
; RUN: packetize -f f -w 4 --params vu --print-shapes
; SHAPES:      block %loop: full mask, loop header (uniform loop), uniform branch kept
; SHAPES:        %i: uniform
; SHAPES:        %acc: varying
define float @f(float %x, i32 %n) {
entry:
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]
  %acc = phi float [ 0.0, %entry ], [ %acc.next, %loop ]
  %acc.next = fadd float %acc, %x
  %i.next = add i32 %i, 1
  %c = icmp slt i32 %i.next, %n
  br i1 %c, label %loop, label %exit
exit:
  ret float %acc.next
}
