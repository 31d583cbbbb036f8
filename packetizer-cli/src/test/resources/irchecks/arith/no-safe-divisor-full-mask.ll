; In a block every lane runs, a division needs no safe divisor: the sdiv takes the divisor as is.
; RUN: packetize -f f -w 4 --params vv
; CHECK-LABEL: define <4 x i32> @f_simd4(<4 x i32> %a, <4 x i32> %b)
; CHECK-NOT:   select
; CHECK:       sdiv <4 x i32> %a, %b
define i32 @f(i32 %a, i32 %b) {
entry:
  %q = sdiv i32 %a, %b
  ret i32 %q
}
