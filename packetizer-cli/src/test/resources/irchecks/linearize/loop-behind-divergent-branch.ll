; A loop behind a divergent branch is entered only when some lane arrives: an any-lane test before
; the loop, so no iteration runs with an empty mask.
; RUN: packetize -f f -w 4 --params vu
; CHECK-LABEL: define <4 x float> @f_simd4(<4 x float> %x, i32 %n)
; CHECK:       {{llvm.vector.reduce.or.v4i1|bitcast <4 x i1> .* to i4}}
; CHECK:       br i1
; CHECK:       phi <4 x float>
; CHECK:       ret <4 x float>
define float @f(float %x, i32 %n) {
entry:
  %c = fcmp ogt float %x, 0.0
  br i1 %c, label %loop, label %exit
loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]
  %v = phi float [ %x, %entry ], [ %v.next, %loop ]
  %v.next = call float @llvm.sqrt.f32(float %v)
  %i.next = add i32 %i, 1
  %more = icmp slt i32 %i.next, %n
  br i1 %more, label %loop, label %exit
exit:
  %r = phi float [ %x, %entry ], [ %v.next, %loop ]
  ret float %r
}
declare float @llvm.sqrt.f32(float)
