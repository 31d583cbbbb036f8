; A variadic function.
define i32 @sum(i32 %n, ...) {
entry:
  %r = add i32 %n, 1
  ret i32 %r
}
