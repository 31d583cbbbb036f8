; The kernel of refill-counter-result-avx512.ll compiled for an AMD AVX-512 CPU (znver4): RefillDriver.counterResult's
; auto is Intel only (AMD not measured), so AVX-512 on AMD keeps its results at the round (RefillDriver.resultAtRound):
; a lane that leaves keeps its state by a select under the lanes still in the loop, and iter runs once more after the
; block for the lanes that finished; the counter is not the result's slot.
; RUN: packetize -f count -w 8 --params vu --array-driver --refill --remarks
; SHAPES-NOT: the result is the loop's counter as a lane leaves it
; SHAPES: results at the round
; CHECK-LABEL: define void @count_map(ptr %x, i32 %limit, ptr %out, i64 %n)
; CHECK:       iterate:
; CHECK-NOT:   result.it
; CHECK-NOT:   counter.adv
; CHECK:       %state1.kept.0 = select <8 x i1> %active.next.0, <8 x i32>
; CHECK:       iterate.exit:
; CHECK-NOT:   result.counter
; CHECK:       %result.left.0 = select <8 x i1> %finished.0, <8 x i32>
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
attributes #0 = { "target-cpu"="znver4" "target-features"="+avx512f,+avx512vl,+avx512bw,+avx512dq,+avx2,+avx,+fma,+sse4.2,+popcnt,+bmi,+bmi2" }
