; A branch on a varying condition is divergent; the block it controls may run with a partial mask;
; the join is reached by every lane again (full mask) and its phi is varying. (The store keeps the
; branch: prepare's clean-up would otherwise speculate the block into a select.)
; RUN: packetize -f f -w 4 --params vuu --print-shapes
; SHAPES:      block %entry: full mask, divergent branch -> %then, %join
; SHAPES:      block %then: partial mask -> %join
; SHAPES:      block %join: full mask
; SHAPES-NEXT:   %r: varying
define i32 @f(i32 %x, i32 %u, ptr %out) {
entry:
  %c = icmp sgt i32 %x, 0
  br i1 %c, label %then, label %join
then:
  %m = mul i32 %u, 7
  store i32 %m, ptr %out, align 4
  br label %join
join:
  %r = phi i32 [ %m, %then ], [ %u, %entry ]
  ret i32 %r
}
