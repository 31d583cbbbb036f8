; %loop steps v down by 2 until it hits 1: it terminates for odd x > 1 and would spin forever for
; even x. A divergent branch lets only odd x > 1 in; the other lanes go to %other. Every lane's
; scalar call returns, so the packet call must return too, for any mix of lanes.
define i32 @f(i32 %x) {
entry:
  %bit = and i32 %x, 1
  %odd = icmp ne i32 %bit, 0
  %big = icmp sgt i32 %x, 1
  %enter = and i1 %odd, %big
  br i1 %enter, label %loop, label %other
loop:
  %v = phi i32 [ %x, %entry ], [ %v1, %loop ]
  %n = phi i32 [ 0, %entry ], [ %n1, %loop ]
  %v1 = sub i32 %v, 2
  %n1 = add i32 %n, 1
  %done = icmp eq i32 %v1, 1
  br i1 %done, label %exit, label %loop
other:
  %o = mul i32 %x, 5
  br label %exit
exit:
  %r = phi i32 [ %n1, %loop ], [ %o, %other ]
  ret i32 %r
}
