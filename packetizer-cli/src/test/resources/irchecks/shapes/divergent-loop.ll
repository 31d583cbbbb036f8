; A loop whose exit depends on a varying value is divergent: its body may run with a partial mask.
; The iteration counter is uniform inside the loop (the active lanes agree on it), but its value
; after the loop differs between lanes (temporal divergence): the LCSSA phi is varying.
; RUN: packetize -f f -w 8 --params v --print-shapes
; SHAPES:      block %loop: partial mask, loop header (divergent loop), divergent branch
; SHAPES-NEXT:   %i: uniform
; SHAPES:      block %exit: full mask
; SHAPES-NEXT:   %{{[a-z.]*}}lcssa{{[0-9]*}}: varying
define i32 @f(float %x) {
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
  ret i32 %i.next
}
