; --optimize size (issue 16, code growth): a function whose packetized body stays above 2.5 times its
; machine code however its loads are routed (five loads at constant offsets from one per-lane point:
; per-lane loads, about two instructions per load and lane) becomes a loop over the 8 lanes running the
; scalar code (ScalarLanes). Lane k's arguments come from the argument packets carried through the loop
; (lane 0 extracted, the packet moved down one lane: no stack slot, whose vector store the lanes' narrow
; loads would wait for), the scalar body is inlined, and its result enters the top of the result packet
; as the packet moves down one lane (a shuffle, no variable-index insert). The remark gives both sizes.
; With -Dpacketizer.sizeLanesArgs=memory the arguments go through the stack (store <8 x i32> %x),
; with -Dpacketizer.sizeLanesResult=insert the result is inserted at %lane; with
; -Dpacketizer.sizeScalarLanes=false, or without --optimize size, the per-lane loads of
; memory/dynamic-variants-size.ll stay.
; RUN: packetize -f f -w 8 --params uvv --target-cpu=haswell --optimize size --remarks
; CHECK-LABEL: define <8 x float> @f_simd8(ptr %g, <8 x i32> %x, <8 x i32> %y)
; CHECK-NOT:   store
; CHECK:       lanes:
; CHECK-NEXT:  %lane = phi i64 [ 0, %entry ], [ [[NEXT:%[0-9a-z.]+]], %lanes ]
; CHECK-NEXT:  %x.rest = phi <8 x i32> [ %x, %entry ], [ %x.next, %lanes ]
; CHECK-NEXT:  %y.rest = phi <8 x i32> [ %y, %entry ], [ %y.next, %lanes ]
; CHECK-NEXT:  %result.lanes = phi <8 x float> [ poison, %entry ], [ %result.lane, %lanes ]
; CHECK-NEXT:  %x.lane = extractelement <8 x i32> %x.rest, i32 0
; CHECK-NEXT:  %y.lane = extractelement <8 x i32> %y.rest, i32 0
; CHECK-NEXT:  %x.next = shufflevector <8 x i32> %x.rest, <8 x i32> poison, <8 x i32> <i32 1, i32 2, i32 3, i32 4, i32 5, i32 6, i32 7, i32 poison>
; CHECK-NEXT:  %y.next = shufflevector <8 x i32> %y.rest, <8 x i32> poison, <8 x i32> <i32 1, i32 2, i32 3, i32 4, i32 5, i32 6, i32 7, i32 poison>
; CHECK:       mul nsw i32 %y.lane, 24
; CHECK:       load float, ptr
; CHECK:       load float, ptr
; CHECK:       load float, ptr
; CHECK:       load float, ptr
; CHECK:       load float, ptr
; CHECK-NOT:   load float, ptr
; CHECK:       [[R:%[0-9]+]] = insertelement <8 x float> poison, float %r.i, i32 0
; CHECK-NEXT:  %result.lane = shufflevector <8 x float> %result.lanes, <8 x float> [[R]], <8 x i32> <i32 1, i32 2, i32 3, i32 4, i32 5, i32 6, i32 7, i32 8>
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
