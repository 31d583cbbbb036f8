; The kernel of refill-counter-result.ll compiled for an Intel AVX-512 CPU (skylake-avx512): since the twenty-second
; round RefillDriver.counterResult's auto is on for Intel's AVX-512 as well (measured against the results at the round,
; docs/performance.md "The result in the counter on AVX-512"), and it takes precedence over the results at the round:
; no result phi and no kept state in the hot loop, the counter advanced by the i1 mask (a zext and an add: a masked
; vpsub on AVX-512), the count exit's test comparing the counter itself with %limit - 1, and the round taking the
; results of the lanes that finished from the counter. Twin: refill-counter-result-avx512-amd.ll (znver4: the
; results at the round, as before).
; RUN: packetize -f count -w 8 --params vu --array-driver --refill --remarks
; SHAPES: the result is the loop's counter as a lane leaves it (value 1 of the state)
; CHECK-LABEL: define void @count_map(ptr %x, i32 %limit, ptr %out, i64 %n)
; CHECK:       round:
; CHECK:       %result.0 = phi <8 x i32> [ poison, %chunk ], [ %result.r.0, %idle ], [ %result.counter.0, %iterate.exit ]
; CHECK:       iterate:
; CHECK:       %state1.it.0 = phi <8 x i32> [ %state1.r.0, %run.check.3 ], [ %state1.counter.0, %iterate ]
; CHECK-NOT:   result.it
; CHECK-NOT:   kept
; CHECK:       %counter.limit{{.*}} = add i32 %limit, -1
; CHECK:       icmp ne <8 x i32> %state1.it.0, %counter.limit
; CHECK:       %counter.adv.0.neg = zext <8 x i1> {{.*}} to <8 x i32>
; CHECK-NEXT:  %state1.counter.0 = add <8 x i32> %state1.it.0, %counter.adv.0.neg
; CHECK-NOT:   kept
; CHECK:       iterate.exit:
; CHECK-NOT:   result.left
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
attributes #0 = { "target-cpu"="skylake-avx512" "target-features"="+avx512f,+avx512vl,+avx512bw,+avx512dq,+avx2,+avx,+fma,+sse4.2,+popcnt,+bmi,+bmi2" }
