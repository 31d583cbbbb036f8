; The --refill=auto driver's loss cut (issue 17, nineteenth round; RefillDriver.adaptiveLossCut): a trial that starts on
; sums of earlier trials in which refill took more than 1.75 times the plain body's cycles per element (28/16; the trial
; of three chunks: refill's sum over 128·W elements a trial, plain's over 2·8·W), with the plain body in use, no switch
; pending and not a restart, is a probe: its refill chunk is 32·W elements instead of 128·W (W = 8: 256 for 1024), and its
; cycles count 128/32 times in refill's sum; a trial decided for the plain body on sums in which refill took more than
; 1.75 times plain's cycles, when the trial decided before it lost badly too (bit 5 of the position word) and it is not a
; restart (the trial confirming a fresh state's first), sends the back-off to its top level 5 and the watch's level to its
; top 3; the probe also needs that bit. The state counts
; the refill body's elements in trials (word 14). The knob-off twin: refill-auto-loss-cut-knob-off.ll.
; RUN: packetize -f escape -w 8 --params vu --array-driver --refill=auto
; CHECK-LABEL: define void @escape_map(
; CHECK:       %loss.refill = mul i128 %{{[0-9]+}}, 2048
; CHECK:       %loss.plain = mul i128 %{{[0-9]+}}, 28672
; CHECK:       %probe.eligible = and i1 %{{[0-9]+}}, %trial.last.lost
; CHECK:       %[[L:[0-9]+]] = icmp ult i128 %loss.plain, %loss.refill
; CHECK:       %probe.lossy = and i1 %probe.eligible, %[[L]]
; CHECK:       %trial.probe.now = select i1 %trial.starts, i1 %probe.lossy, i1 %trial.probe
; CHECK:       %trial.refill.len = select i1 %trial.probe.now, i64 256, i64 1024
; CHECK:       select i1 %measure.refill, i64 %trial.refill.len, i64 64
; CHECK:       store atomic i64 %trial.refill.elements.next, ptr getelementptr inbounds (i64, ptr @escape_map.state, i64 14) monotonic
; CHECK:       %[[M:[0-9]+]] = mul i64 %cycles, 128
; CHECK:       %[[D:[0-9]+]] = udiv i64 %[[M]], 32
; CHECK:       %refill.dt.whole = select i1 %trial.probe.now, i64 %[[D]], i64 %cycles
; CHECK:       add i64 %{{[0-9]+}}, %refill.dt.whole
; CHECK:       %[[P:[0-9]+]] = mul i128 %plain.cost, 28
; CHECK:       %[[R:[0-9]+]] = mul i128 %refill.cost, 16
; CHECK:       %[[B:[0-9]+]] = icmp ult i128 %[[P]], %[[R]]
; CHECK:       %refill.lost.badly = and i1 %{{[0-9]+}}, %[[B]]
; CHECK:       %[[T:[0-9]+]] = and i1 %refill.lost.badly, %trial.last.lost
; CHECK:       %[[N:[0-9]+]] = xor i1 %trial.restarted, true
; CHECK:       %refill.lost.twice = and i1 %[[T]], %[[N]]
; CHECK:       %backoff.up.loss = select i1 %refill.lost.twice, i64 5, i64
; CHECK:       %watch.level.up = select i1 %refill.lost.twice, i64 3, i64
; CHECK:       %trial.last.lost.next = select i1 %decide, i1 %refill.lost.badly, i1 %trial.last.lost
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
