; --array-driver on a triangular loop nest (issue 16, thirteenth round): the inner loop runs j < i, where i is
; the outer loop's counter (from 8 down by 1), so every lane runs it i times and its exit does not wait for the
; slowest lane. The rule no longer charges such an exit as data-dependent (the binomial pricer's backward
; induction: 13-18 % faster at W4/W8 with two chains); the inner loop is throughput-bound (gain 1.0), so two
; 8-lane chains per step. interleaved-triangular-loop-knob-off.ll: the same loop under
; -Dpacketizer.interleave.outerCounterExits=false (charged as before: one chain).
; RUN: packetize -f tri -w 8 --params v --integer-masks never --array-driver --remarks
; CHECK-LABEL: define internal <16 x float> @tri_simd8.x2(<16 x float> %x)
; CHECK-LABEL: define void @tri_map(ptr %x, ptr %out, i64 %n)
; CHECK:       %n.full = and i64 %n, -16
; CHECK:       call <16 x float> @tri_simd8.x2(
; CHECK-NOT:   call <8 x float> @tri_simd8(
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
