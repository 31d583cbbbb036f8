; Per-lane loads on SSE4.1 without AVX (x86-64-v2, W4): three loads off a per-lane point c, at c-96, c and c+96 bytes.
; c's element is loaded per lane as a 16-byte window from lane k's address minus 4k bytes (the element lands in lane
; k), behind llvm.arithmetic.fence so that LLVM's DAG does not narrow it back to an insertps, and blended into its lane
; with a constant mask (blendps: ports 0/1/5, not the one shuffle port); lane 0 is a scalar load (movss). The windows
; lie inside the bytes c-96 .. c+100 that every lane reads, so no page test. The outer loads' lanes whose windows would
; leave that span keep their inserts: c-96 all three, c+96 lanes 1 and 2 (lane 3's window ends at c+100).
; The route is opt-in (timed slower than the inserts on an Intel Sapphire Rapids-class host); the default keeps the
; inserts: sse-shifted-loads-default.ll.
; SET: packetizer.sseLaneLoads=shifted
; RUN: packetize -f f -w 4 --params uvv --target-cpu=x86-64-v2 --remarks
; CHECK-LABEL: define <4 x float> @f_simd4(ptr %g, <4 x i32> %x, <4 x i32> %y)
; CHECK:       %vu = insertelement <4 x float> %{{.*}}, float %{{.*}}, i64 3
; CHECK:       %[[W1:.*]] = load <4 x float>, ptr %{{.*}}, align 4
; CHECK:       %lane.window = call <4 x float> @llvm.arithmetic.fence.v4f32(<4 x float> %[[W1]])
; CHECK:       insertelement <4 x float> %lane.window, float %{{.*}}, i64 0
; CHECK:       %lane.window{{[0-9]+}} = call <4 x float> @llvm.arithmetic.fence.v4f32(
; CHECK:       shufflevector <4 x float> %{{.*}}, <4 x float> %lane.window{{[0-9]+}}, <4 x i32> <i32 0, i32 1, i32 6,
; CHECK:       %lane.window{{[0-9]+}} = call <4 x float> @llvm.arithmetic.fence.v4f32(
; CHECK:       %vc = shufflevector <4 x float> %{{.*}}, <4 x float> %lane.window{{[0-9]+}}, <4 x i32> <i32 0, i32 1, i32 2, i32 7>
; CHECK:       insertelement <4 x float> %{{.*}}, float %{{.*}}, i64 2
; CHECK:       %lane.window{{[0-9]+}} = call <4 x float> @llvm.arithmetic.fence.v4f32(
; CHECK:       %vd = shufflevector <4 x float> %{{.*}}, <4 x float> %lane.window{{[0-9]+}}, <4 x i32> <i32 0, i32 1, i32 2, i32 7>
; CHECK:       ret <4 x float>
; SHAPES:      per-lane loads: 3 of 3 lanes as shifted 16-byte loads and blends, not inserts (the bytes lie within offsets -96..100 of the root
; SHAPES:      per-lane loads: 1 of 3 lanes as shifted 16-byte loads and blends
define float @f(ptr %g, i32 %x, i32 %y) {
entry:
  %row = mul nsw i32 %y, 24
  %rowx = sext i32 %row to i64
  %r = getelementptr inbounds float, ptr %g, i64 %rowx
  %xx = sext i32 %x to i64
  %c = getelementptr inbounds float, ptr %r, i64 %xx
  %pu = getelementptr inbounds i8, ptr %c, i64 -96
  %vu = load float, ptr %pu, align 4
  %vc = load float, ptr %c, align 4
  %pd = getelementptr inbounds i8, ptr %c, i64 96
  %vd = load float, ptr %pd, align 4
  %s = fadd float %vu, %vd
  %e = fsub float %s, %vc
  ret float %e
}
