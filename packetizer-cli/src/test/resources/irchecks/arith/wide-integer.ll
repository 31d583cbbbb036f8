; A varying i128 becomes <W x i128> arithmetic (64x64->128 multiply, high half).
; RUN: packetize -f f -w 4 --params vv
; CHECK-LABEL: define <4 x i64> @f_simd4(<4 x i64> %a, <4 x i64> %b)
; CHECK:       zext <4 x i64> {{.*}} to <4 x i128>
; CHECK:       mul {{.*}}<4 x i128>
; CHECK:       lshr <4 x i128>
; CHECK:       trunc {{.*}}<4 x i128> {{.*}} to <4 x i64>
define i64 @f(i64 %a, i64 %b) {
entry:
  %a2 = zext i64 %a to i128
  %b2 = zext i64 %b to i128
  %m = mul i128 %a2, %b2
  %h = lshr i128 %m, 64
  %r = trunc i128 %h to i64
  ret i64 %r
}
