; On skylake at W16 (an Intel AVX2 core that LLVM tunes as having fast gathers; the rule's only AVX2 target),
; loads at constant offsets from a stencil's point c = g + y*24 + x (a uniform base plus two 32-bit offsets)
; are one <16 x float> gather each (two vgatherdps ymm after llc) off ONE 32-bit index packet, y*24 + x summed
; in 32 bits, behind the run-time test of the lanes' signed overflow (where a lane's sum wraps: gathers from the
; 64-bit pointers); llc emits the gather instructions where the function is tuned for the CPU (RunTarget drops
; clang's tune-cpu=generic). No windows, no per-lane loads. The twins: narrow-gathers-avx2-w4.ll and
; narrow-gathers-avx2-w8.ll (W4 and W8: the gathers measured no faster than the per-lane loads, the old form) and
; narrow-gathers-avx2-haswell.ll (no fast gathers: the old form).
; RUN: packetize -f f -w 16 --params uvv --target-cpu=skylake --remarks
; CHECK-LABEL: define <16 x float> @f_simd16(ptr %g, <16 x i32> %x, <16 x i32> %y)
; CHECK:       %narrow.index = add {{.*}}<16 x i32> %row, %x
; CHECK:       %narrow.overflow = icmp slt <16 x i32>
; CHECK:       br i1 %narrow.wraps{{.*}}, label %{{.*}}.narrow, label %{{.*}}.wide
; CHECK-NOT:   load <4 x float>
; CHECK:       .narrow:
; CHECK:       sext <16 x i32> %narrow.index to <16 x i64>
; CHECK:       call <16 x float> @llvm.masked.gather.v16f32.v16p0
; CHECK:       call <16 x float> @llvm.masked.gather.v16f32.v16p0
; CHECK:       call <16 x float> @llvm.masked.gather.v16f32.v16p0
; CHECK:       call <16 x float> @llvm.masked.gather.v16f32.v16p0
; CHECK:       call <16 x float> @llvm.masked.gather.v16f32.v16p0
; CHECK:       .wide:
; CHECK-NOT:   load <4 x float>
; SHAPES:      5 load(s) at constant offsets from %c became 5 gather(s) with 32-bit indices off the uniform base (2 varying offset(s) of at most 32 bits, summed in 32 bits; where a lane's sum overflows, gathers from the 64-bit pointers), not windows and per-lane loads: the target (skylake) is an Intel AVX2 core that LLVM tunes as having fast hardware gathers, and the width 16 (two ymm gathers per load)
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
