; --integer-masks never keeps <8 x i1> masks even on AVX2.
; RUN: packetize -f f -w 8 --params v --integer-masks never --target-cpu haswell --target-features +avx2
; CHECK-LABEL: define <8 x i32> @f_simd8(<8 x float> %x)
; CHECK:       phi <8 x i1> {{.*}}[ splat (i1 true), %entry ]
; CHECK-NOT:   sext <8 x i1>
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
