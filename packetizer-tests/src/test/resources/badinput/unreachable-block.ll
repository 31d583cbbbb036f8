; A block no edge reaches (%dead), and one that ends in 'unreachable' behind a branch no lane takes.
define i32 @f(i32 %x) {
entry:
  %c = icmp sgt i32 %x, 1000000
  br i1 %c, label %never, label %body
never:
  unreachable
dead:
  %d = mul i32 %x, 3
  br label %body
body:
  %p = phi i32 [ %x, %entry ], [ %d, %dead ]
  %r = add i32 %p, 7
  ret i32 %r
}
