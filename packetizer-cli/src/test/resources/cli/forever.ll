; Never returns for odd %x (steps of 2 never reach 0): --check must give up after --check-timeout
; instead of hanging.
define i32 @count_to_zero(i32 %x) {
entry:
  br label %loop
loop:
  %v = phi i32 [ %x, %entry ], [ %n, %loop ]
  %n = add i32 %v, 2
  %c = icmp ne i32 %n, 0
  br i1 %c, label %loop, label %done
done:
  ret i32 %n
}
