; The module defines @shade_pixel and @shade_sky; the tests ask for @shade_pixle (a typo: did you
; mean @shade_pixel?) and @render (no close match: the defined functions are listed).
define float @shade_pixel(float %x) {
entry:
  %r = fmul float %x, 0.5
  ret float %r
}

define float @shade_sky(float %x) {
entry:
  %r = fadd float %x, 1.0
  ret float %r
}
