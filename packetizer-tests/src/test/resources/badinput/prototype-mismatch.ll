; The user declared the SIMD prototype @f_simd, but its first parameter is <4 x i32> where the
; scalar float parameter %x needs <4 x float> (varying) or float (uniform).
define float @f(float %x, i32 %n) {
entry:
  %c = sitofp i32 %n to float
  %r = fmul float %x, %c
  ret float %r
}

declare <4 x float> @f_simd(<4 x i32>, <4 x i32>)
