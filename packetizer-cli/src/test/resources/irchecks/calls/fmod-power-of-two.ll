; fmod and frem by a constant power of two 2^k (issue 16): inline exact vector IR - a multiply by 2^-k
; (gone for 1.0), llvm.trunc, a multiply by 2^k, a subtraction, the sign of x - instead of a call of the
; general exact helper (a loop with a division in double). For k < 0, 0 where |x| >= 2^(24+k) (x * 2^-k
; may overflow there); a call of fmodf keeps glibc's NaN for infinite and NaN x (the subtraction's own).
; Any other divisor (3.0 here) keeps the helper.
; RUN: packetize -f f -w 8 --params vv --remarks
; CHECK-LABEL: define <8 x float> @f_simd8(<8 x float> %x, <8 x float> %y)
; CHECK:       %a.t = call <8 x float> @llvm.trunc.v8f32(<8 x float> %x)
; CHECK-NEXT:  %a.r = fsub <8 x float> %x, %a.t
; CHECK-NOT:   %a.big
; CHECK:       %a.s = call <8 x float> @llvm.copysign.v8f32(<8 x float> %a.r, <8 x float> %x)
; CHECK-NEXT:  %a.special = fcmp ueq <8 x float> %a.ax, splat (float 0x7FF0000000000000)
; CHECK-NEXT:  %a = select <8 x i1> %a.special, <8 x float> %a.r, <8 x float> %a.s
; CHECK-NEXT:  %b.q = fmul <8 x float> %y, splat (float 2.000000e+00)
; CHECK-NEXT:  %b.t = call <8 x float> @llvm.trunc.v8f32(<8 x float> %b.q)
; CHECK-NEXT:  %b.p = fmul <8 x float> %b.t, splat (float 5.000000e-01)
; CHECK-NEXT:  %b.r = fsub <8 x float> %y, %b.p
; CHECK:       %b.big = fcmp oge <8 x float> %b.ax, splat (float 0x4160000000000000)
; CHECK-NEXT:  %b.r0 = select <8 x i1> %b.big, <8 x float> zeroinitializer, <8 x float> %b.r
; CHECK-NEXT:  %b.s = call <8 x float> @llvm.copysign.v8f32(<8 x float> %b.r0, <8 x float> %y)
; CHECK-NEXT:  %b.special = fcmp ueq <8 x float> %b.ax, splat (float 0x7FF0000000000000)
; CHECK-NEXT:  %b = select <8 x i1> %b.special, <8 x float> %b.r, <8 x float> %b.s
; CHECK:       call <8 x float> @__packetizer_fmodf_v8_{{.*}}(<8 x float> %x, <8 x float> splat (float 3.000000e+00))
; CHECK:       ret <8 x float>
; SHAPES:      call to fmodf by the constant 1.0 (a power of two) became inline vector IR
; SHAPES:      frem by the constant -0.5 (a power of two) became inline vector IR
; SHAPES:      call to fmodf became packetizer vector IR (exact)
define float @f(float %x, float %y) {
entry:
  %a = call float @fmodf(float %x, float 1.0)
  %b = frem float %y, -0.5
  %s = fadd float %a, %b
  %c = call float @fmodf(float %x, float 3.0)
  %r = fadd float %s, %c
  ret float %r
}
declare float @fmodf(float, float)
