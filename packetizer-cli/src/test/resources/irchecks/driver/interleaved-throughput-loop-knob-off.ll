; The loop of interleaved-throughput-loop.ll under -Dpacketizer.interleave.minGain=1.2 (the threshold before the
; twelfth round: interleave only where two chains are estimated 1.2x faster): one 8-lane chain per step.
; SET: packetizer.interleave.minGain=1.2
; RUN: packetize -f poly -w 8 --params vu --integer-masks never --array-driver --remarks
; CHECK-LABEL: define void @poly_map(ptr %x, i32 %k, ptr %out, i64 %n)
; CHECK:       %n.full = and i64 %n, -8
; CHECK:       call <8 x float> @poly_simd8(
; CHECK-NOT:   x2
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
