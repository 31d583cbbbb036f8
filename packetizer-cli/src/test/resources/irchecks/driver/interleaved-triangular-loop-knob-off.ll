; The loop nest of interleaved-triangular-loop.ll under -Dpacketizer.interleave.outerCounterExits=false (the rule
; before the thirteenth round: an exit compared against the outer loop's counter charged as data-dependent,
; a 1.15 slowdown that puts the gain 1.0 below the threshold): one 8-lane chain per step.
; SET: packetizer.interleave.outerCounterExits=false
; RUN: packetize -f tri -w 8 --params v --integer-masks never --array-driver --remarks
; CHECK-LABEL: define void @tri_map(ptr %x, ptr %out, i64 %n)
; CHECK:       %n.full = and i64 %n, -8
; CHECK:       call <8 x float> @tri_simd8(
; CHECK-NOT:   x2
; CHECK:       ret void
define float @tri(float %x) #0 {
entry:
  br label %outer
outer:
  %i = phi i32 [ 8, %entry ], [ %i.next, %outer.latch ]
  %s.o = phi float [ 0.0, %entry ], [ %s.last, %outer.latch ]
  br label %inner
inner:
  %j = phi i32 [ 0, %outer ], [ %j.next, %inner ]
  %s = phi float [ %s.o, %outer ], [ %s.next, %inner ]
  %fj = sitofp i32 %j to float
  %v = fmul float %fj, %x
  %p1 = fmul float %v, 1.5
  %p2 = fadd float %p1, 2.0
  %p3 = fmul float %p2, %v
  %p4 = fadd float %p3, 3.0
  %p5 = fmul float %p4, %v
  %p6 = fadd float %p5, 4.0
  %p7 = fmul float %p6, %v
  %p8 = fadd float %p7, 5.0
  %s.next = fadd float %s, %p8
  %j.next = add nuw nsw i32 %j, 1
  %more = icmp slt i32 %j.next, %i
  br i1 %more, label %inner, label %outer.latch
outer.latch:
  %s.last = phi float [ %s.next, %inner ]
  %i.next = add nsw i32 %i, -1
  %go = icmp sgt i32 %i.next, 0
  br i1 %go, label %outer, label %done
done:
  ret float %s.last
}
attributes #0 = { "target-cpu"="haswell" "target-features"="+avx,+avx2,+fma,+sse4.2" }
