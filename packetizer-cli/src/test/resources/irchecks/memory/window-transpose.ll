; Four loads at consecutive element offsets from one per-lane pointer (a stencil's row c[-2..1]) with
; a pure call between them, on an SSE target (x86-64-v2, no gather instruction): one 16-byte load
; per lane of the four elements, and a transpose (shufflevectors) into the four packets; no gather,
; no per-lane scalar loads of the row.
; RUN: packetize -f f -w 4 --params uv --target-cpu=x86-64-v2 --remarks
; CHECK-LABEL: define <4 x float> @f_simd4(ptr %g, <4 x i32> %x)
; CHECK:       load <4 x float>, ptr
; CHECK:       load <4 x float>, ptr
; CHECK:       load <4 x float>, ptr
; CHECK:       load <4 x float>, ptr
; CHECK:       shufflevector <4 x float>
; CHECK:       call <4 x float> @llvm.fmuladd.v4f32
; CHECK-NOT:   load float
; CHECK-NOT:   gather
; SHAPES:      loads of 4 neighbouring elements at constant offsets from %c became 4 16-byte loads
; SHAPES-SAME: and a transpose: the target (x86-64-v2) has no gather instruction (SSE)
define float @f(ptr %g, i32 %x) {
entry:
  %i = and i32 %x, 15
  %i64 = zext nneg i32 %i to i64
  %c = getelementptr inbounds float, ptr %g, i64 %i64
  %pm2 = getelementptr inbounds i8, ptr %c, i64 -8
  %vm2 = load float, ptr %pm2, align 4
  %pm1 = getelementptr inbounds i8, ptr %c, i64 -4
  %vm1 = load float, ptr %pm1, align 4
  %a = call float @llvm.fmuladd.f32(float %vm2, float 2.0, float %vm1)
  %v0 = load float, ptr %c, align 4
  %p1 = getelementptr inbounds i8, ptr %c, i64 4
  %v1 = load float, ptr %p1, align 4
  %b = fadd float %a, %v0
  %r = fmul float %b, %v1
  ret float %r
}
declare float @llvm.fmuladd.f32(float, float, float)
