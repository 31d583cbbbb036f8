; --optimize size (issue 16, code growth): a function whose packetized body stays above 2.5 times its
; machine code however its loads are routed (five loads at constant offsets from one per-lane pointer:
; per-lane loads, about two instructions per load and lane) becomes a loop over the 8 lanes running the
; scalar code (ScalarLanes): the varying arguments stored once, lane k's loaded, the scalar body inlined,
; its result inserted at lane k of the packet the loop carries. The remark gives both sizes. With
; -Dpacketizer.sizeScalarLanes=false, or without --optimize size, the per-lane loads of
; memory/dynamic-variants-size.ll stay.
; RUN: packetize -f f -w 8 --params uvv --target-cpu=haswell --optimize size --remarks
; CHECK-LABEL: define <8 x float> @f_simd8(ptr %g, <8 x i32> %x, <8 x i32> %y)
; CHECK:       store <8 x i32> %x, ptr %x.lanes
; CHECK:       store <8 x i32> %y, ptr %y.lanes
; CHECK:       lanes:
; CHECK-NEXT:  %lane = phi i64 [ 0, %entry ], [ [[NEXT:%[0-9a-z.]+]], %lanes ]
; CHECK:       load float, ptr
; CHECK:       load float, ptr
; CHECK:       load float, ptr
; CHECK:       load float, ptr
; CHECK:       load float, ptr
; CHECK-NOT:   load float, ptr
; CHECK:       %result.lane = insertelement <8 x float> %result.lanes, float
; CHECK-SAME:  i64 %lane
; CHECK:       icmp ne i64 [[NEXT]], 8
; CHECK:       lanes.done:
; CHECK-NEXT:  ret <8 x float> %result.lane
; CHECK-NOT:   <8 x ptr>
; SHAPES:      remark: f: note: optimizing for size: the packet function would be
; SHAPES-SAME: times the scalar function's
; SHAPES-SAME: a loop over the 8 lanes calling a copy of the scalar function instead
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
  %pd = getelementptr inbounds i8, ptr %c, i64 96
  %vd = load float, ptr %pd, align 4
  %s1 = fadd float %vl, %vr
  %s2 = fadd float %s1, %vu
  %s3 = fadd float %s2, %vd
  %m = fmul float %s3, 2.500000e-01
  %r = fsub float %v0, %m
  ret float %r
}
