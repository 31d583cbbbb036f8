; Below the skip threshold a block under a divergent branch is computed under its mask without a
; test: no remark, no branch.
; RUN: packetize -f f -w 8 --params v --remarks
; SHAPES-NOT:  skip-if-empty
; CHECK-LABEL: define <8 x float> @f_simd8(<8 x float> %x)
; CHECK-NOT:   br i1
; CHECK:       ret <8 x float>
define float @f(float %x) {
entry:
  %c = fcmp ogt float %x, 2.0
  br i1 %c, label %light, label %join
light:
  %a = fmul float %x, 3.0
  %b = fadd float %a, 1.0
  br label %join
join:
  %r = phi float [ %b, %light ], [ %x, %entry ]
  ret float %r
}
