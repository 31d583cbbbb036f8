; frem by a constant 2^k with k >= 0 (issue 16): the steps LLVM's own code generator uses for the
; scalar frem on x86 with SSE4.1 (copysign(x - trunc(x * 2^-k) * 2^k, x), the NaN of an infinity taking
; x's sign as there), inline on the packet: no call of the general fmod helper.
; RUN: packetize -f g -w 8 --params v --target-cpu haswell --remarks
; CHECK-LABEL: define <8 x float> @g_simd8(<8 x float> %x)
; CHECK-NEXT:  entry:
; CHECK-NEXT:  %a.q = fmul <8 x float> %x, splat (float 5.000000e-01)
; CHECK-NEXT:  %a.t = call <8 x float> @llvm.trunc.v8f32(<8 x float> %a.q)
; CHECK-NEXT:  %a.p = fmul <8 x float> %a.t, splat (float 2.000000e+00)
; CHECK-NEXT:  %a.r = fsub <8 x float> %x, %a.p
; CHECK-NEXT:  %a = call <8 x float> @llvm.copysign.v8f32(<8 x float> %a.r, <8 x float> %x)
; CHECK-NOT:   __packetizer_fmod
; SHAPES:      frem by the constant 2.0 (a power of two) became inline vector IR
define float @g(float %x) {
entry:
  %a = frem float %x, 2.0
  ret float %a
}
