; Parses, but is not valid IR: %y does not dominate its use in %b (the verifier rejects it).
define i32 @f(i32 %x) {
entry:
  %c = icmp slt i32 %x, 0
  br i1 %c, label %a, label %b
a:
  %y = add i32 %x, 1
  br label %b
b:
  %r = add i32 %y, 2
  ret i32 %r
}
