; The twin of narrow-gathers-avx2.ll at W4 on alderlake (an Intel AVX2 core with fast gathers): four-lane xmm
; gathers measured no faster than the per-lane path on stencil with random points (faster for skylake's code,
; slower for alderlake's: docs/performance.md, twentieth round), so the loads keep the old form: no 32-bit index
; packet, no narrow-gathers remark.
; RUN: packetize -f f -w 4 --params uvv --target-cpu=alderlake --remarks
; CHECK-LABEL: define <4 x float> @f_simd4(ptr %g, <4 x i32> %x, <4 x i32> %y)
; CHECK-NOT:   narrow.index
; CHECK:       ret <4 x float>
; SHAPES-NOT:  gather(s) with 32-bit indices
define float @f(ptr %g, i32 %x, i32 %y) {
entry:
  %row = mul nsw i32 %y, 24
  %rowx = sext i32 %row to i64
  %r = getelementptr inbounds float, ptr %g, i64 %rowx
  %xx = sext i32 %x to i64
  %c = getelementptr inbounds float, ptr %r, i64 %xx
  %pm2 = getelementptr inbounds i8, ptr %c, i64 -8
  %vm2 = load float, ptr %pm2, align 4
  %pm1 = getelementptr inbounds i8, ptr %c, i64 -4
  %vm1 = load float, ptr %pm1, align 4
  %v0 = load float, ptr %c, align 4
  %p1 = getelementptr inbounds i8, ptr %c, i64 4
  %v1 = load float, ptr %p1, align 4
  %pd = getelementptr inbounds i8, ptr %c, i64 96
  %vd = load float, ptr %pd, align 4
  %a = fadd float %vm2, %vm1
  %b = fadd float %a, %v0
  %d = fadd float %b, %v1
  %e = fadd float %d, %vd
  ret float %e
}
