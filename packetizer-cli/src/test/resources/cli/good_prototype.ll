; A declared SIMD prototype: the first parameter varying, the second uniform.
define float @scale(float %a, float %b) {
entry:
  %m = fmul float %a, %b
  ret float %m
}

declare <8 x float> @scale_simd8(<8 x float>, float)
