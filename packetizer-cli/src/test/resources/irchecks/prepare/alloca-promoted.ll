; A local array indexed by constants is promoted to registers (sroa in prepare): the packet
; function needs no per-lane stack slots.
; RUN: packetize -f f -w 8 --params vv
; CHECK-LABEL: define <8 x float> @f_simd8(<8 x float> %a, <8 x float> %b)
; CHECK-NOT:   alloca
; CHECK:       fadd <8 x float>
; CHECK:       ret <8 x float>
define float @f(float %a, float %b) {
entry:
  %t = alloca [2 x float], align 4
  %p1 = getelementptr inbounds [2 x float], ptr %t, i64 0, i64 1
  store float %a, ptr %t, align 4
  store float %b, ptr %p1, align 4
  %x = load float, ptr %t, align 4
  %y = load float, ptr %p1, align 4
  %s = fadd float %x, %y
  ret float %s
}
