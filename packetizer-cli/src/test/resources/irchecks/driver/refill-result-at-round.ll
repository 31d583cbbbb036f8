; Lane refill, AVX-512 (issue 17): the result is computed at the round, only for the lanes that left
; (RefillDriver.resultAtRound, the default since the fifteenth round). The iterations are unmasked (iter is pure),
; so the hot loop carries no result: a lane that leaves keeps the state of the iteration it left in (a select of
; the state under the lanes still in the loop), and after the block iter runs once more on that state, its answer
; taken for the lanes that finished. Two exits with other results, neither a counter: the escape reads the state
; (s, p), the count limit reads p2, a value of the exiting iteration no other exit uses.
; RUN: packetize -f escape -w 8 --params vu --array-driver --refill --remarks
; CHECK-LABEL: define void @escape_map(ptr %x, i32 %limit, ptr %out, i64 %n)
; CHECK:       iterate:
; CHECK-NOT:   result.it
; CHECK:       %state0.kept.0 = select <8 x i1> %active.next.0, <8 x float>
; CHECK:       %state1.kept.0 = select <8 x i1> %active.next.0, <8 x float>
; CHECK:       %state2.kept.0 = select <8 x i1> %active.next.0, <8 x i32>
; CHECK-NOT:   result.next
; CHECK:       iterate.exit:
; CHECK:       %finished.0 = and <8 x i1> %active.r.0,
; CHECK:       %result.left.0 = select <8 x i1> %finished.0, <8 x float>
; CHECK:       br label %round
target triple = "x86_64-unknown-linux-gnu"
define float @escape(float %x, i32 %limit) #0 {
entry:
  br label %loop
loop:
  %s = phi float [ %x, %entry ], [ %s2, %body ]
  %p = phi float [ 1.0, %entry ], [ %p2, %body ]
  %k = phi i32 [ 0, %entry ], [ %k2, %body ]
  %q = fmul float %s, %s
  %big = fcmp ogt float %q, 4.0
  br i1 %big, label %out.big, label %body
body:
  %p2 = fadd float %p, %q
  %s2 = fsub float %q, %x
  %k2 = add i32 %k, 1
  %more = icmp slt i32 %k2, %limit
  br i1 %more, label %loop, label %out.limit
out.big:
  %r1 = fmul float %s, %p
  ret float %r1
out.limit:
  ret float %p2
}
attributes #0 = { "target-cpu"="skylake-avx512" "target-features"="+avx512f,+avx512vl,+avx512bw,+avx512dq,+avx2,+avx,+fma,+sse4.2" }
