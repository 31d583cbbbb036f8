; --optimize size (issue 16, code growth), masked: the function of memory/size-scalar-lanes.ll with a mask
; parameter also becomes the loop over the 8 lanes running the scalar code (ScalarLanes, thirteenth round):
; the mask's bits as an integer, lane k's bit tested, an inactive lane skipping the scalar code and
; entering 0 into the result packet. With -Dpacketizer.sizeLanesMasked=false the masked packet function
; keeps its per-lane loads (no lane.active block).
; RUN: packetize -f f -w 8 --params uvv --masked --target-cpu=haswell --optimize size --remarks
; CHECK-LABEL: define <8 x float> @f_simd8(ptr %g, <8 x i32> %x, <8 x i32> %y, <8 x i1> %mask)
; CHECK:       %mask.bits = bitcast <8 x i1> %mask to i8
; CHECK-NEXT:  [[BITS:%[0-9]+]] = zext i8 %mask.bits to i64
; CHECK:       lanes:
; CHECK-NEXT:  %lane = phi i64 [ 0, %entry ], [ [[NEXT:%[0-9a-z.]+]], %lane.next ]
; CHECK:       [[SH:%[0-9]+]] = lshr i64 [[BITS]], %lane
; CHECK-NEXT:  %lane.on = trunc i64 [[SH]] to i1
; CHECK-NEXT:  br i1 %lane.on, label %lane.active, label %lane.next
; CHECK:       lane.active:
; CHECK:       mul nsw i32 %y.lane, 24
; CHECK:       lane.next:
; CHECK-NEXT:  %lane.result = phi float [ %r.i, %lane.active ], [ 0.000000e+00, %lanes ]
; CHECK:       %result.lane = shufflevector <8 x float> %result.lanes
; CHECK:       icmp ne i64 [[NEXT]], 8
; CHECK-NOT:   <8 x ptr>
; SHAPES:      remark: f: note: optimizing for size: the packet function would be
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
