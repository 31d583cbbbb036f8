; A phi with three incoming values at the join of two nested divergent branches becomes a chain of
; blends: the packet function has two vector selects and no phi of vectors left in a straight line.
; RUN: packetize -f f -w 4 --params v
; CHECK-LABEL: define <4 x float> @f_simd4(<4 x float> %x)
; CHECK-NOT:   phi
; CHECK:       select <4 x i1> {{.*}}, <4 x float>
; CHECK:       select <4 x i1> {{.*}}, <4 x float>
; CHECK:       ret <4 x float>
define float @f(float %x) {
entry:
  %c1 = fcmp olt float %x, 0.0
  br i1 %c1, label %neg, label %pos
pos:
  %c2 = fcmp ogt float %x, 10.0
  br i1 %c2, label %big, label %done
big:
  %h = fmul float %x, 0.5
  br label %done
neg:
  %n = fsub float 0.0, %x
  br label %done
done:
  %r = phi float [ %n, %neg ], [ %h, %big ], [ %x, %pos ]
  ret float %r
}
