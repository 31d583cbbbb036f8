; Uniform code whose result only fed a removed computation is not left behind in the packet function.
; RUN: packetize -f f -w 4 --params vu
; CHECK-LABEL: define <4 x i32> @f_simd4(<4 x i32> %x, i32 %u)
; CHECK-NOT:   udiv
; CHECK:       ret <4 x i32>
define i32 @f(i32 %x, i32 %u) {
entry:
  %dead = udiv i32 %u, 7
  %r = add i32 %x, 1
  ret i32 %r
}
