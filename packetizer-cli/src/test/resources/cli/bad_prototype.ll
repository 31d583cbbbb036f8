; The SIMD prototype is declared, but does not fit @scale at width 8: the first parameter must be
; <8 x float> (varying) or float (uniform), not <4 x float>.
define float @scale(float %a, float %b) {
entry:
  %m = fmul float %a, %b
  ret float %m
}

declare <8 x float> @scale_simd8(<4 x float>, float)
