; Stores of two of three fields (x and z of {float, float, float}) at a linear index: a wide store
; would write y, which the scalar code does not write: each stays a scatter.
; RUN: packetize -f f -w 4 --params ulv --remarks
; CHECK-LABEL: define void @f_simd4(ptr %q, i64 %i, <4 x float> %a)
; CHECK:       masked.scatter
; CHECK:       masked.scatter
; CHECK-NOT:   store <
; SHAPES:      store to linear(12) addresses became a scatter
%p3 = type { float, float, float }
define void @f(ptr %q, i64 %i, float %a) {
entry:
  %p = getelementptr inbounds %p3, ptr %q, i64 %i
  store float %a, ptr %p, align 4
  %pz = getelementptr inbounds i8, ptr %p, i64 8
  store float %a, ptr %pz, align 4
  ret void
}
