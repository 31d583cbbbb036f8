; A scalable vector value inside the function.
define float @f(float %x) {
entry:
  %v = insertelement <vscale x 4 x float> poison, float %x, i64 0
  %e = extractelement <vscale x 4 x float> %v, i64 0
  ret float %e
}
