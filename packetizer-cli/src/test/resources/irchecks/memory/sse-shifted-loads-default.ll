; Per-lane loads on SSE4.1 without AVX (x86-64-v2, W4) by default: the inserts (movss + insertps), no shifted windows
; (those are opt-in, -Dpacketizer.sseLaneLoads=shifted: sse-shifted-loads.ll).
; RUN: packetize -f f -w 4 --params uvv --target-cpu=x86-64-v2 --remarks
; CHECK-LABEL: define <4 x float> @f_simd4(ptr %g, <4 x i32> %x, <4 x i32> %y)
; CHECK-NOT:   llvm.arithmetic.fence
; CHECK:       %vu = insertelement <4 x float> %{{.*}}, float %{{.*}}, i64 3
; CHECK-NOT:   llvm.arithmetic.fence
; CHECK:       %vc = insertelement <4 x float> %{{.*}}, float %{{.*}}, i64 3
; CHECK-NOT:   llvm.arithmetic.fence
; CHECK:       %vd = insertelement <4 x float> %{{.*}}, float %{{.*}}, i64 3
; CHECK:       ret <4 x float>
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
