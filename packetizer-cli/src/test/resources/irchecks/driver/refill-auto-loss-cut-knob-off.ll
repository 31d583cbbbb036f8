; The kernel of refill-auto-loss-cut.ll under -Dpacketizer.refill.autoLossCut=false (the rule before the nineteenth
; round): every trial's refill chunk is 128·W elements (1024) and counted once, and a trial that keeps the plain body
; grows the back-off by the plain leap (2 levels), never to the top at once. The statistics word is kept.
; SET: packetizer.refill.autoLossCut=false
; RUN: packetize -f escape -w 8 --params vu --array-driver --refill=auto
; CHECK-LABEL: define void @escape_map(
; CHECK-NOT:   probe
; CHECK:       select i1 %measure.refill, i64 1024, i64 64
; CHECK-NOT:   probe
; CHECK-NOT:   lost.badly
; CHECK:       store atomic i64 %trial.refill.elements.next, ptr getelementptr inbounds (i64, ptr @escape_map.state, i64 14) monotonic
; CHECK-NOT:   lost.badly
; CHECK-NOT:   dt.whole
; CHECK:       %backoff.step = select i1 %plain.won, i64 2, i64 1
; CHECK-NOT:   lost.badly
; CHECK:       %watch.level.next = select i1 %watch.switched
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
