; --array-driver on a loop bound by the latency of its loop-carried chain (issue 16): the rule picks
; interleave count 2, so each driver step runs 16 elements as ONE packet function of 16 lanes
; compiled for the function's 8-lane (AVX2) registers, which the code generator splits into two
; independent 8-lane chains; the remainder (n % 16 elements) runs once through its masked variant.
; RUN: packetize -f orbit -w 8 --params vu --integer-masks never --array-driver
; CHECK-LABEL: define internal <16 x float> @orbit_simd8.x2(<16 x float> %x, i32 %k)
; CHECK-LABEL: define internal <16 x float> @orbit_simd8.x2.masked(<16 x float> %x, i32 %k, <16 x i1> %mask)
; CHECK-LABEL: define void @orbit_map(ptr %x, i32 %k, ptr %out, i64 %n)
; CHECK:       %n.full = and i64 %n, -16
; CHECK:       packet:
; CHECK:       %x.packet = load <16 x float>, ptr
; CHECK-NEXT:  %r = call <16 x float> @orbit_simd8.x2(<16 x float> %x.packet, i32 %k)
; CHECK:       store <16 x float> %r, ptr
; CHECK:       add nuw i64 %i, 16
; CHECK:       remainder:
; CHECK:       call <16 x float> @llvm.masked.load.v16f32.p0(
; CHECK:       call <16 x float> @orbit_simd8.x2.masked(
; CHECK:       call void @llvm.masked.store.v16f32.p0(<16 x float> %r.rest,
; CHECK-NOT:   call <8 x float> @orbit_simd8(
; CHECK:       ret void
define float @orbit(float %x, i32 %k) #0 {
entry:
  %some = icmp sgt i32 %k, 0
  br i1 %some, label %loop, label %done
loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]
  %v = phi float [ %x, %entry ], [ %v.next, %loop ]
  %sq = fmul float %v, %v
  %q = fdiv float %sq, 3.0e+00
  %v.next = fadd float %q, 2.5e-01
  %i.next = add nuw nsw i32 %i, 1
  %more = icmp slt i32 %i.next, %k
  br i1 %more, label %loop, label %done
done:
  %r = phi float [ %x, %entry ], [ %v.next, %loop ]
  ret float %r
}
attributes #0 = { "target-cpu"="haswell" "target-features"="+avx,+avx2,+fma,+sse4.2" }
