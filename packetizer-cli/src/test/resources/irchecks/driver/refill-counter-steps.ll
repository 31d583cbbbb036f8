; A result computed from the loop's counter (twenty-third round, RefillSplit.resultSteps): the function returns
; zext(2 * (limit - c)) of its 32-bit counter c as the lane leaves (c at the escape, %limit at the count exit, which the
; latch compared equal to the increment). The counter route keeps the counter in the state (no result phi in the hot
; loop) and the round applies the same steps to the counter of the lanes that finished: a sub from the splat of the
; uniform %limit, a shl by 1 and a zext to 64 bits, then the select under the finished lanes. haswell: Intel AVX2, the
; counter route by default. Before this round the route refused the loop (a carried result, blended per iteration).
; RUN: packetize -f count -w 8 --params vu --array-driver --refill --remarks
; SHAPES: the result is the loop's counter as a lane leaves it (value 1 of the state, the result computed from it: argument 1 sub it, shl 1, zext to i64)
; CHECK-LABEL: define void @count_map(ptr %x, i32 %limit, ptr %out, i64 %n)
; CHECK:       round:
; CHECK:       %result.0 = phi <8 x i64> [ poison, %chunk ], [ %result.r.0, %idle ], [ %result.counter.0, %iterate.exit ]
; CHECK:       iterate:
; CHECK:       %state1.it.0 = phi <8 x i32> [ %state1.r.0, %run.check.3 ], [ %state1.counter.0, %iterate ]
; CHECK-NOT:   result.it
; CHECK:       iterate.exit:
; CHECK:       [[LIM:%[0-9]+]] = shufflevector <8 x i32> %{{[0-9]+}}, <8 x i32> poison, <8 x i32> zeroinitializer
; CHECK-NEXT:  %result.step = sub <8 x i32> [[LIM]], %state1.counter.0
; CHECK-NEXT:  [[TWICE:%result.step[0-9]+]] = shl <8 x i32> %result.step, splat (i32 1)
; CHECK-NEXT:  [[WIDE:%result.cast]] = zext <8 x i32> [[TWICE]] to <8 x i64>
; CHECK-NEXT:  %result.counter.0 = select <8 x i1> %finished.0, <8 x i64> [[WIDE]], <8 x i64> %result.r.0
; CHECK:       br label %round
target triple = "x86_64-unknown-linux-gnu"
define i64 @count(float %x, i32 %limit) #0 {
entry:
  %go = icmp sgt i32 %limit, 0
  br i1 %go, label %loop, label %done
loop:
  %z = phi float [ 0.0, %entry ], [ %z2, %body ]
  %i = phi i32 [ 0, %entry ], [ %i2, %body ]
  %q = fmul float %z, %z
  %big = fcmp ogt float %q, 4.0
  br i1 %big, label %left, label %body
body:
  %z2 = fadd float %q, %x
  %i2 = add nuw nsw i32 %i, 1
  %end = icmp eq i32 %i2, %limit
  br i1 %end, label %left, label %loop
left:
  %c = phi i32 [ %i, %loop ], [ %limit, %body ]
  %rest = sub nsw i32 %limit, %c
  %twice = shl nuw nsw i32 %rest, 1
  %wide = zext nneg i32 %twice to i64
  br label %done
done:
  %r = phi i64 [ 0, %entry ], [ %wide, %left ]
  ret i64 %r
}
attributes #0 = { "target-cpu"="haswell" "target-features"="+avx2,+avx,+fma,+sse4.2,+popcnt,+bmi,+bmi2" }
