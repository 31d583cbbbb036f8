; A value computed in a divergent loop and used after it (LCSSA): each lane must see the value of
; the iteration in which it left. The exit's phi is blended with the lanes leaving on each
; iteration (a select inside the loop), and the result is returned as a vector.
; RUN: packetize -f f -w 4 --params v --print-shapes
; SHAPES:      loop header (divergent loop)
; CHECK-LABEL: define <4 x float> @f_simd4(<4 x float> %x)
; CHECK:       phi <4 x float>
; CHECK:       select <4 x i1> {{.*}}, <4 x float>
; CHECK:       br i1
; CHECK:       ret <4 x float>
define float @f(float %x) {
entry:
  br label %loop
loop:
  %v = phi float [ %x, %entry ], [ %v.next, %loop ]
  %s = phi float [ 0.0, %entry ], [ %s.next, %loop ]
  %s.next = fadd float %s, %v
  %v.next = fmul float %v, 0.5
  %c = fcmp ogt float %v.next, 1.0
  br i1 %c, label %loop, label %exit
exit:
  %r = fmul float %s.next, 2.0
  ret float %r
}
