; For x < 0 the scalar function spins forever in %spin (a loop without exit and without side
; effects: allowed, the function is not mustprogress). When no lane has x < 0, no lane takes the
; divergent branch into %spin and the packet function must return.
define i32 @f(i32 %x) {
entry:
  %neg = icmp slt i32 %x, 0
  br i1 %neg, label %spin, label %ok
spin:
  %k = phi i32 [ 0, %entry ], [ %k1, %spin ]
  %k1 = add i32 %k, 1
  br label %spin
ok:
  %r = mul i32 %x, 3
  ret i32 %r
}
