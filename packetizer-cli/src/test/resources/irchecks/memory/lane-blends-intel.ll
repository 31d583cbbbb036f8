; Per-lane loads on an Intel core with AVX (haswell, W8): a stencil's neighbours c[-48], c[48] (too far apart for one
; window) are loaded per lane, each lane's element splat over the packet (a broadcast from memory, vbroadcastss) behind
; llvm.arithmetic.fence, so that LLVM's DAG does not fold it back into vinsertps, and blended into its lane with a
; constant mask (vblendps, no shuffle port). No insert of a loaded element into a packet. The AMD twin:
; lane-blends-amd.ll (inserts kept).
; RUN: packetize -f f -w 8 --params uvv --target-cpu=haswell --remarks
; CHECK-LABEL: define <8 x float> @f_simd8(ptr %g, <8 x i32> %x, <8 x i32> %y)
; CHECK:       load float, ptr
; CHECK:       %lane.bcast = call <8 x float> @llvm.arithmetic.fence.v8f32(<8 x float>
; CHECK:       load float, ptr
; CHECK:       %lane.bcast{{[0-9]+}} = call <8 x float> @llvm.arithmetic.fence.v8f32(<8 x float>
; CHECK:       shufflevector <8 x float> %lane.bcast, <8 x float> %lane.bcast{{[0-9]+}}, <8 x i32> <i32 0, i32 9,
; CHECK:       %vu = shufflevector <8 x float> %{{.*}}, <8 x float> %lane.bcast{{[0-9]+}}, <8 x i32> <i32 0, i32 1, i32 2, i32 3, i32 4, i32 5, i32 6, i32 15>
; CHECK-NOT:   insertelement <8 x float> %
; CHECK:       ret <8 x float>
; SHAPES:      per-lane loads: 8 broadcasts from memory and 7 blends, not inserts: the target (haswell) is an Intel core, where every insert takes the one shuffle port
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
