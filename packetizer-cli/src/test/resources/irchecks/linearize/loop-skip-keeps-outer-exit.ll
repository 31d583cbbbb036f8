; Lanes leave loop p through x (back into loop o) or through p's header to the end. When no lane
; enters the inner loop l, the entry test skips l and the blocks after it that l's header dominates,
; but only up to the end of p's interval: x must still run for the lanes that left p through it in
; an earlier iteration of p (fuzz-regressions/loop-skip-pending-exit.ll; it jumped to the function's
; exit before, a silent wrong answer).
; RUN: packetize -f f -w 8 --params vv
; CHECK-LABEL: define <8 x i32> @f_simd8(
; CHECK:       {{^p:}}
; CHECK-NOT:   packet.exit
; CHECK:       br i1 {{.*}}, label %x, label %l
; CHECK-LABEL: {{^x:}}
; CHECK:       mul <8 x i32>
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
