; Neighbour loads at constant offsets from one per-lane point (a stencil: c[0], c[-1], c[1], c[-24])
; on an AVX2 target without fast gathers (haswell), where LLVM would expand every gather into its own
; extraction of 64-bit pointers: the root c's lanes are extracted once (8 extractelements for all four
; loads), each load is a scalar load at lane pointer + constant, and no gather is left.
; RUN: packetize -f f -w 8 --params uvv --target-cpu=haswell --remarks
; CHECK-LABEL: define <8 x float> @f_simd8(ptr %g, <8 x i32> %x, <8 x i32> %y)
; CHECK:       extractelement <8 x ptr>
; CHECK:       load float, ptr
; CHECK:       getelementptr inbounds i8, ptr
; CHECK:       load float, ptr
; CHECK-NOT:   gather
; SHAPES:      became 8 scalar loads at each lane's %c plus 1 uniform offset(s)
; SHAPES-SAME: the target (haswell) has no fast hardware gather
define float @f(ptr %g, i32 %x, i32 %y) {
entry:
  %row = mul nsw i32 %y, 24
  %r64 = sext i32 %row to i64
  %rp = getelementptr inbounds float, ptr %g, i64 %r64
  %x64 = sext i32 %x to i64
  %c = getelementptr inbounds float, ptr %rp, i64 %x64
  %v0 = load float, ptr %c, align 4
  %pl = getelementptr inbounds i8, ptr %c, i64 -4
  %vl = load float, ptr %pl, align 4
  %pr = getelementptr inbounds i8, ptr %c, i64 4
  %vr = load float, ptr %pr, align 4
  %pu = getelementptr inbounds i8, ptr %c, i64 -96
  %vu = load float, ptr %pu, align 4
  %s1 = fadd float %v0, %vl
  %s2 = fadd float %s1, %vr
  %s3 = fadd float %s2, %vu
  ret float %s3
}
