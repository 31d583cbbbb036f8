; A varying i128 value: 128-bit integer arithmetic on each lane's value.
define i64 @f(i64 %x, i64 %y) {
entry:
  %a = zext i64 %x to i128
  %b = zext i64 %y to i128
  %p = mul i128 %a, %b
  %h = lshr i128 %p, 64
  %r = trunc i128 %h to i64
  ret i64 %r
}
