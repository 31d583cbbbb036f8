; Thesis 4.4: a divergent loop keeps running while any lane takes the back edge: the latch branches
; on an any-lane reduction of the continuing lanes' mask, back to the header.
; RUN: packetize -f f -w 4 --params v --remarks
; SHAPES:      linearized: divergent branch linearized
; CHECK-LABEL: define <4 x i32> @f_simd4(<4 x float> %x)
; CHECK:       {{^}}[[H:loop[a-z0-9.]*]]:
; CHECK:       {{llvm.vector.reduce.or.v4i1|bitcast <4 x i1> .* to i4}}
; CHECK:       br i1 {{%[a-z0-9.]+}}, label {{.*}}%[[H]]{{$|,}}
; CHECK:       ret <4 x i32>
define i32 @f(float %x) {
entry:
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]
  %v = phi float [ %x, %entry ], [ %v.next, %loop ]
  %v.next = fmul float %v, 0.5
  %i.next = add i32 %i, 1
  %c = fcmp ogt float %v.next, 1.0
  br i1 %c, label %loop, label %exit
exit:
  ret i32 %i.next
}
