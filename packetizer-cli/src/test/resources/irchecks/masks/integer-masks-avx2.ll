; Integer masks (thesis 4.2 with the x86 legalizer in mind): on AVX2, which has no mask registers,
; the mask of a divergent loop is carried as <8 x i32> lanes of all ones or zeros (the entry mask
; is all ones); the compare is sign-extended once, masks are combined with integer and/or, and
; a sign test turns a mask back into <8 x i1> where a select or the any-lane test needs one.
; RUN: packetize -f f -w 8 --params v --target-cpu haswell --target-features +avx2
; CHECK-LABEL: define <8 x i32> @f_simd8(<8 x float> %x)
; CHECK:       phi <8 x i32> {{.*}}[ splat (i32 -1), %entry ]
; CHECK:       sext <8 x i1> {{.*}} to <8 x i32>
; CHECK:       and <8 x i32>
; CHECK:       icmp slt <8 x i32> {{.*}}, zeroinitializer
; CHECK:       ret <8 x i32>
define i32 @f(float %x) #0 {
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
attributes #0 = { "target-cpu"="haswell" "target-features"="+avx,+avx2,+fma,+sse4.2" }
