; For x < 0 the scalar function spins forever (a loop without exit and without side effects:
; allowed, the function is not mustprogress). The masked packet function is called with those
; lanes inactive and must return.
define i32 @f(i32 %x) {
entry:
  %neg = icmp slt i32 %x, 0
  br i1 %neg, label %spin, label %ok
spin:
  br label %spin
ok:
  %r = mul i32 %x, 3
  ret i32 %r
}
