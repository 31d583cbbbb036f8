; A small divergent if/else is linearized: straight-line code, no conditional branch at all, and the
; summary counts one linearized branch.
; RUN: packetize -f f -w 4 --params vv
; SHAPES:      @f -> @f_simd4 (width 4, params vv): 1 branch linearized, 0 kept
; CHECK-LABEL: define <4 x i32> @f_simd4(<4 x i32> %x, <4 x i32> %y)
; CHECK-NOT:   br i1
; CHECK:       ret <4 x i32>
define i32 @f(i32 %x, i32 %y) {
entry:
  %c = icmp sgt i32 %x, %y
  br i1 %c, label %a, label %b
a:
  %d = sdiv i32 %x, 3
  %e = mul i32 %d, %y
  br label %join
b:
  %f = udiv i32 %y, 5
  %g = xor i32 %f, %x
  br label %join
join:
  %r = phi i32 [ %e, %a ], [ %g, %b ]
  ret i32 %r
}
