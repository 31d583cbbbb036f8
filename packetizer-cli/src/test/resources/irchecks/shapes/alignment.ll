; Alignment promises seed the analysis: a 32-byte aligned base (ua32) plus 4 bytes times an index
; whose lane-0 value is a multiple of 8 (la8) is 32-byte aligned, and the vector load says so.
; RUN: packetize -f f -w 8 --params ua32la8 --print-shapes
; SHAPES:      shapes @f -> @f_simd8 (width 8, params ua32la8)
; SHAPES:        %q: linear(4), align 32
; CHECK-LABEL: define <8 x float> @f_simd8(
; CHECK:       load <8 x float>, ptr {{%[a-z0-9.]+}}, align 32
define float @f(ptr %p, i64 %i) {
entry:
  %q = getelementptr inbounds float, ptr %p, i64 %i
  %v = load float, ptr %q, align 4
  ret float %v
}
