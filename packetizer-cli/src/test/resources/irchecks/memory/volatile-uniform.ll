; A volatile load at a uniform address stays one volatile scalar load per packet call.
; RUN: packetize -f f -w 4 --params uv
; CHECK-LABEL: define <4 x i32> @f_simd4(ptr %p, <4 x i32> %x)
; CHECK:       load volatile i32, ptr %p
; CHECK-NOT:   load volatile <4 x i32>
define i32 @f(ptr %p, i32 %x) {
entry:
  %v = load volatile i32, ptr %p, align 4
  %r = add i32 %v, %x
  ret i32 %r
}
