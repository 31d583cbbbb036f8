; The refill driver for a loop whose result is its counter, on an Intel AVX2 CPU (twenty-first round;
; RefillDriver.counterResult, default auto: on for Intel CPUs without AVX-512). The function returns the counter as
; the lane leaves: %i at the escape (before the increment), %limit at the count, which the latch has just compared
; equal to the increment %i2. iter answers in the counter's slot whether it advanced the counter (all ones / 0), the
; driver adds that for the lanes in the loop only (an and with the wide active mask and a sub: no blend), so a lane
; that left holds its result in the counter: no result phi, no result blend in the hot loop; after it, the round takes
; the results of the lanes that finished from the counter. The count exit's test %i2 == %limit compares the counter
; itself with %limit - 1 (computed from the uniform %limit once per call): no vector add for it. Twins: refill-counter-result-knob-off.ll
; (-Dpacketizer.refill.counterResult=false) and refill-counter-result-amd.ll (znver2: the result carried, as before).
; RUN: packetize -f count -w 8 --params vu --array-driver --refill --remarks
; SHAPES: the result is the loop's counter as a lane leaves it (value 1 of the state)
; CHECK-LABEL: define void @count_map(ptr %x, i32 %limit, ptr %out, i64 %n)
; CHECK:       round:
; CHECK:       %result.0 = phi <8 x i32> [ poison, %chunk ], [ %result.r.0, %idle ], [ %result.counter.0, %iterate.exit ]
; CHECK:       iterate:
; CHECK:       %state1.it.0 = phi <8 x i32> [ %state1.r.0, %run.check.3 ], [ %state1.counter.0, %iterate ]
; CHECK-NOT:   result.it
; CHECK:       %block.count = phi i64
; CHECK-NOT:   result.next
; CHECK:       %counter.limit{{.*}} = add i32 %limit, -1
; CHECK-NOT:   add nuw nsw <8 x i32> %state1.it.0
; CHECK:       icmp eq <8 x i32> %state1.it.0, %counter.limit
; CHECK:       %counter.adv.0 = select <8 x i1> {{.*}}, <8 x i32> %active.it.0, <8 x i32> zeroinitializer
; CHECK-NEXT:  %state1.counter.0 = sub <8 x i32> %state1.it.0, %counter.adv.0
; CHECK:       iterate.exit:
; CHECK:       %result.counter.0 = select <8 x i1> %finished.0, <8 x i32> %state1.counter.0, <8 x i32> %result.r.0
; CHECK:       br label %round
target triple = "x86_64-unknown-linux-gnu"
define i32 @count(float %x, i32 %limit) #0 {
entry:
  %go = icmp sgt i32 %limit, 0
  br i1 %go, label %loop, label %done
loop:
  %z = phi float [ 0.0, %entry ], [ %z2, %body ]
  %i = phi i32 [ 0, %entry ], [ %i2, %body ]
  %q = fmul float %z, %z
  %big = fcmp ogt float %q, 4.0
  br i1 %big, label %done, label %body
body:
  %z2 = fadd float %q, %x
  %i2 = add nuw nsw i32 %i, 1
  %end = icmp eq i32 %i2, %limit
  br i1 %end, label %done, label %loop
done:
  %r = phi i32 [ 0, %entry ], [ %i, %loop ], [ %limit, %body ]
  ret i32 %r
}
attributes #0 = { "target-cpu"="haswell" "target-features"="+avx2,+avx,+fma,+sse4.2,+popcnt,+bmi,+bmi2" }
