; packetizer fuzz regression
; found: written by hand after reducing FuzzMain --mode opt --seed 7000 --first 211 --cases 1 and
;   --seed 8000 --first 299 (fuzz-regressions/loop-skip-pending-exit.c is the reduced C)
; function: f
; kinds: vv
; expect: pass
; bug: a silent wrong answer. Three nested loops o ⊃ p ⊃ l. Lanes leave p through x (back into o)
;   or through p's header straight to end. When no lane entered l, the entry test of l jumped past l
;   and past every following block that l's header dominates, which reached beyond p: x too, where
;   lanes that left p in an earlier iteration of p were waiting. Those lanes never ran x again and
;   returned a stale %acc. The stretch skipped with a loop now ends with the enclosing loop's interval.
define i32 @f(i32 %a, i32 %b) {
entry:
  %n = and i32 %a, 15
  %b3 = and i32 %b, 3
  %m = add i32 %b3, 1
  br label %o

o:
  %c.o = phi i32 [ 0, %entry ], [ %c1.x, %x ]
  %acc.o = phi i32 [ 1, %entry ], [ %acc.x, %x ]
  br label %p

p:
  %c = phi i32 [ %c.o, %o ], [ %c1, %p.latch ]
  %acc = phi i32 [ %acc.o, %o ], [ %acc3.l, %p.latch ]
  %done = icmp sge i32 %c, %n
  br i1 %done, label %end, label %l.pre

l.pre:
  br label %l

l:
  %k = phi i32 [ 0, %l.pre ], [ %k1, %l ]
  %acc1 = phi i32 [ %acc, %l.pre ], [ %acc3, %l ]
  %acc3 = add i32 %acc1, %k
  %k1 = add i32 %k, 1
  %kc = icmp eq i32 %k1, 3
  br i1 %kc, label %after, label %l

after:
  %acc3.l = phi i32 [ %acc3, %l ]
  %c1 = add i32 %c, 1
  %r = urem i32 %c1, %m
  %stop = icmp eq i32 %r, 0
  br i1 %stop, label %x, label %p.latch

p.latch:
  br label %p

x:
  %acc.l2 = phi i32 [ %acc3.l, %after ]
  %c1.x = phi i32 [ %c1, %after ]
  %acc.x = mul i32 %acc.l2, 3
  br label %o

end:
  %res = phi i32 [ %acc, %p ]
  ret i32 %res
}
