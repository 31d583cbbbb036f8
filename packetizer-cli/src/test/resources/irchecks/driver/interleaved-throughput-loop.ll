; --array-driver on a loop bound by throughput, not by its one-fadd recurrence (issue 16, twelfth round):
; the rule estimates two chains at no loss (gain 1.0) and, since the twelfth round, interleaves unless
; the estimate says two chains are slower (-Dpacketizer.interleave.minGain, default 1.0; measured on
; the 17 benchmark kernels: ao, whose innermost loop is estimated so, 16-21 % faster at IC 2; nbody
; even). interleaved-throughput-loop-knob-off.ll: the same loop under the earlier threshold 1.2.
; RUN: packetize -f poly -w 8 --params vu --integer-masks never --array-driver --remarks
; CHECK-LABEL: define internal <16 x float> @poly_simd8.x2(<16 x float> %x, i32 %k)
; CHECK-LABEL: define void @poly_map(ptr %x, i32 %k, ptr %out, i64 %n)
; CHECK:       %n.full = and i64 %n, -16
; CHECK:       call <16 x float> @poly_simd8.x2(
; CHECK-NOT:   call <8 x float> @poly_simd8(
; CHECK:       ret void
define float @poly(float %x, i32 %k) #0 {
entry:
  %some = icmp sgt i32 %k, 0
  br i1 %some, label %loop, label %done
loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]
  %s = phi float [ 0.0, %entry ], [ %s.next, %loop ]
  %fi = sitofp i32 %i to float
  %v = fmul float %fi, %x
  %p1 = fmul float %v, 1.5
  %p2 = fadd float %p1, 2.0
  %p3 = fmul float %p2, %v
  %p4 = fadd float %p3, 3.0
  %p5 = fmul float %p4, %v
  %p6 = fadd float %p5, 4.0
  %p7 = fmul float %p6, %v
  %p8 = fadd float %p7, 5.0
  %s.next = fadd float %s, %p8
  %i.next = add nuw nsw i32 %i, 1
  %more = icmp slt i32 %i.next, %k
  br i1 %more, label %loop, label %done
done:
  %r = phi float [ 0.0, %entry ], [ %s.next, %loop ]
  ret float %r
}
attributes #0 = { "target-cpu"="haswell" "target-features"="+avx,+avx2,+fma,+sse4.2" }
