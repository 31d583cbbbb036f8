; The refill driver keeps the packet function's multiplies by a constant as shifts and adds (issue 16, twenty-third
; round): the driver's own clean-up (InstCombine over the inlined iteration) folds a sum of shifts back into a `mul`, so
; widen.MulShifts decides again on the driver after that clean-up. FNV-1a's four multiplies by 16777619 per iteration
; (a key's four bytes, as clang unrolls the byte loop; a per-lane trip count), haswell (vpmulld 10 cycles), one refill
; set (--interleave=1): the hot loop `iterate` has the shifts and adds and no vector multiply. Before the twenty-third
; round it had four `mul <8 x i32>`. The round's recomputation of a finished lane's result after the loop
; (iterate.exit, once per round) is not on the hot loop's chain and keeps its multiplies. With more refill sets the
; loop's issue slots fill up and auto keeps the multiplies there too (MulShifts' loop estimate).
; RUN: packetize -f fnv -w 8 --params vv --target-cpu=haswell --array-driver --refill --interleave=1
; CHECK-LABEL: define void @fnv_map(
; CHECK:       iterate:
; CHECK-NOT:   mul <8 x i32>
; CHECK:       shl <8 x i32> {{%[a-z0-9.]+}}, splat (i32 24)
; CHECK-NOT:   mul <8 x i32>
; CHECK:       shl <8 x i32> {{%[a-z0-9.]+}}, splat (i32 24)
; CHECK-NOT:   mul <8 x i32>
; CHECK:       shl <8 x i32> {{%[a-z0-9.]+}}, splat (i32 24)
; CHECK-NOT:   mul <8 x i32>
; CHECK:       shl <8 x i32> {{%[a-z0-9.]+}}, splat (i32 24)
; CHECK-NOT:   mul <8 x i32>
; CHECK:       br i1 %keep.iterating, label %iterate, label %iterate.exit
target triple = "x86_64-unknown-linux-gnu"
define i32 @fnv(i32 %key, i32 %n) {
entry:
  %none = icmp sle i32 %n, 0
  br i1 %none, label %exit, label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]
  %h = phi i32 [ -2128831035, %entry ], [ %h3, %loop ]
  %k = add i32 %key, %i
  %b0 = and i32 %k, 255
  %x0 = xor i32 %h, %b0
  %h0 = mul i32 %x0, 16777619
  %k1 = lshr i32 %k, 8
  %b1 = and i32 %k1, 255
  %x1 = xor i32 %h0, %b1
  %h1 = mul i32 %x1, 16777619
  %k2 = lshr i32 %k, 16
  %b2 = and i32 %k2, 255
  %x2 = xor i32 %h1, %b2
  %h2 = mul i32 %x2, 16777619
  %b3 = lshr i32 %k, 24
  %x3 = xor i32 %h2, %b3
  %h3 = mul i32 %x3, 16777619
  %i.next = add nuw nsw i32 %i, 1
  %more = icmp slt i32 %i.next, %n
  br i1 %more, label %loop, label %exit
exit:
  %r = phi i32 [ -2128831035, %entry ], [ %h3, %loop ]
  ret i32 %r
}
