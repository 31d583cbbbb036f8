; A divergent loop with two exits (thesis 4.3.1, Fig 4.11): each exit block collects the lanes that
; left through it; the result is blended from both exits' values; the loop runs while any lane goes
; around (an any-lane test on the back edge).
; RUN: packetize -f f -w 4 --params vv --print-shapes
; SHAPES:      loop header (divergent loop)
; CHECK-LABEL: define <4 x i32> @f_simd4(<4 x float> %x, <4 x float> %lim)
; CHECK:       phi <4 x float>
; CHECK:       {{llvm.vector.reduce.or.v4i1|bitcast <4 x i1> .* to i4}}
; CHECK:       br i1
; CHECK:       select <4 x i1>
; CHECK:       ret <4 x i32>
define i32 @f(float %x, float %lim) {
entry:
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %latch ]
  %v = phi float [ %x, %entry ], [ %v.next, %latch ]
  %big = fcmp ogt float %v, %lim
  br i1 %big, label %early, label %latch
latch:
  %v.next = fmul float %v, 1.5
  %i.next = add i32 %i, 1
  %c = fcmp olt float %v.next, 100.0
  br i1 %c, label %loop, label %normal
early:
  %e = sub i32 0, %i
  br label %exit
normal:
  br label %exit
exit:
  %r = phi i32 [ %e, %early ], [ %i.next, %normal ]
  ret i32 %r
}
