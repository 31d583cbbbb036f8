; Volatile loads. @f reads p[x] with a per-lane index: a varying address (rejected). @g reads p[0]
; in straight-line code: a uniform address, done once for all lanes and kept volatile (supported).
; Packetize both with parameter kinds "uv" (uniform pointer, varying index).
define i32 @f(ptr %p, i32 %x) {
entry:
  %i = sext i32 %x to i64
  %a = getelementptr inbounds i32, ptr %p, i64 %i
  %v = load volatile i32, ptr %a, align 4
  ret i32 %v
}

define i32 @g(ptr %p, i32 %x) {
entry:
  %v = load volatile i32, ptr %p, align 4
  %r = add i32 %v, %x
  ret i32 %r
}
