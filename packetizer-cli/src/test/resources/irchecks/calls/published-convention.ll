; A packet function is published for callers outside the module, which call it with the C convention:
; a scalar function that clang made internal fastcc (a static helper) or that is coldcc gives a packet
; function with the C convention (LLVM's x86-64 coldcc would also clobber xmm0, the vector return).
; The call inside the scalar function keeps the helper's own convention.
; RUN: packetize -f sq -f cold -w 8
; CHECK-LABEL: define internal fastcc i32 @sq(
; CHECK-LABEL: define coldcc float @cold(
; CHECK-LABEL: define <8 x i32> @sq_simd8(<8 x i32> %v)
; CHECK:       mul <8 x i32> %v, %v
; CHECK-LABEL: define <8 x float> @cold_simd8(<8 x float> %x)
define i32 @f(i32 %x) {
entry:
  %r = call fastcc i32 @sq(i32 %x)
  ret i32 %r
}

define internal fastcc i32 @sq(i32 %v) noinline {
  %m = mul i32 %v, %v
  ret i32 %m
}

define coldcc float @cold(float %x) noinline {
  %y = fmul float %x, 3.0
  ret float %y
}
