; The shape lattice on straight-line code: what depends only on uniform parameters is uniform,
; anything touched by a varying parameter is varying; uniform values stay scalar in the output.
; RUN: packetize -f f -w 4 --params vu --print-shapes
; SHAPES:      shapes @f -> @f_simd4 (width 4, params vu)
; SHAPES-NEXT: block %entry: full mask
; SHAPES-NEXT:   %k: uniform
; SHAPES-NEXT:   %s: varying
; CHECK-LABEL: define <4 x i32> @f_simd4(<4 x i32> %x, i32 %u)
; CHECK:       %k = mul i32 %u, %u
; CHECK:       add <4 x i32> %x,
define i32 @f(i32 %x, i32 %u) {
entry:
  %k = mul i32 %u, %u
  %s = add i32 %x, %k
  ret i32 %s
}
