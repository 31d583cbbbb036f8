; Atomics. @f does an atomic add at p[x], a per-lane (varying) address: one atomic per active lane, in
; lane order (supported; x must index p's elements). @g does an atomic
; load of p[0] in straight-line code: a uniform address, done once for all lanes (supported).
; Packetize both with parameter kinds "uv" (uniform pointer, varying index).
define i32 @f(ptr %p, i32 %x) {
entry:
  %i = sext i32 %x to i64
  %a = getelementptr inbounds i32, ptr %p, i64 %i
  %old = atomicrmw add ptr %a, i32 1 seq_cst, align 4
  ret i32 %old
}

define i32 @g(ptr %p, i32 %x) {
entry:
  %v = load atomic i32, ptr %p seq_cst, align 4
  %r = add i32 %v, %x
  ret i32 %r
}
