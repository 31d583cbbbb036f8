; The kernel of refill-counter-result.ll under -Dpacketizer.refill.counterResult=false (before the twenty-first round):
; the hot loop carries the result, blended under the active mask in every iteration (and the counter is iter's next
; value for every lane).
; SET: packetizer.refill.counterResult=false
; RUN: packetize -f count -w 8 --params vu --array-driver --refill --remarks
; SHAPES-NOT: the result is the loop's counter as a lane leaves it (value 1 of the state)
; CHECK-LABEL: define void @count_map(ptr %x, i32 %limit, ptr %out, i64 %n)
; CHECK:       iterate:
; CHECK:       %result.it.0 = phi <8 x i32> [ %result.r.0, %run.check.3 ], [ %result.next.0, %iterate ]
; CHECK-NOT:   counter.adv
; CHECK-NOT:   counter.limit
; CHECK:       %result.next.0 = select <8 x i1> %active.it.mask.0, <8 x i32> {{.*}}, <8 x i32> %result.it.0
; CHECK:       iterate.exit:
; CHECK-NOT:   result.counter
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
