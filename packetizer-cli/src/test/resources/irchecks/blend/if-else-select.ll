; Thesis 4.3: the phi at the join of a divergent if/else becomes a select on the branch's condition
; (the edge mask); both sides are computed for all lanes (the blocks are small: no skip test).
; RUN: packetize -f f -w 8 --params v
; CHECK-LABEL: define <8 x float> @f_simd8(<8 x float> %x)
; CHECK:       [[C:%[a-z0-9.]+]] = fcmp olt <8 x float> %x, zeroinitializer
; CHECK-NOT:   br
; CHECK:       select <8 x i1> [[C]], <8 x float>
; CHECK-NEXT:  ret <8 x float>
define float @f(float %x) {
entry:
  %c = fcmp olt float %x, 0.0
  br i1 %c, label %neg, label %pos
neg:
  %a = fmul float %x, %x
  %a2 = fmul float %a, 3.0
  br label %join
pos:
  %b = fadd float %x, 1.0
  %b2 = fmul float %b, %b
  br label %join
join:
  %r = phi float [ %a2, %neg ], [ %b2, %pos ]
  ret float %r
}
