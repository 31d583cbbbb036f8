; A volatile load through a varying address has no packet form (one access per lane, in order,
; is not what a gather does): rejected, naming the block.
; RUN: not packetize -f f -w 4 --params uv
; SHAPES:      error: in function @f, block %entry: cannot packetize a volatile or atomic load through a varying address
; CHECK-NOT:   define
define i32 @f(ptr %p, i64 %i) {
entry:
  %q = getelementptr inbounds i32, ptr %p, i64 %i
  %v = load volatile i32, ptr %q, align 4
  ret i32 %v
}
