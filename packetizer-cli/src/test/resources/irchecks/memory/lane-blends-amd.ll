; Per-lane loads on AMD (znver4, W8: two shuffle pipes, where the inserts measured faster than broadcasts and blends,
; tenth round): the lanes' elements are inserted into the packet as before, no llvm.arithmetic.fence, no broadcast
; remark. The Intel twin: lane-blends-intel.ll.
; RUN: packetize -f f -w 8 --params uvv --target-cpu=znver4 --remarks
; CHECK-LABEL: define <8 x float> @f_simd8(ptr %g, <8 x i32> %x, <8 x i32> %y)
; CHECK-NOT:   arithmetic.fence
; CHECK:       insertelement <8 x float> %{{.*}}, float %{{.*}}, i64 7
; CHECK-NOT:   arithmetic.fence
; CHECK:       ret <8 x float>
define float @f(ptr %g, i32 %x, i32 %y) {
entry:
  %row = mul nsw i32 %y, 24
  %rowx = sext i32 %row to i64
  %r = getelementptr inbounds float, ptr %g, i64 %rowx
  %xx = sext i32 %x to i64
  %c = getelementptr inbounds float, ptr %r, i64 %xx
  %pu = getelementptr inbounds i8, ptr %c, i64 -192
  %vu = load float, ptr %pu, align 4
  %pd = getelementptr inbounds i8, ptr %c, i64 192
  %vd = load float, ptr %pd, align 4
  %e = fsub float %vu, %vd
  ret float %e
}
