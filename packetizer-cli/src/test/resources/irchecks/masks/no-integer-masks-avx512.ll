; With AVX-512 mask registers the same loop keeps its masks as <16 x i1>: no integer mask appears.
; RUN: packetize -f f -w 16 --params v --target-cpu skylake-avx512 --target-features +avx512f,+avx512vl,+avx512bw,+avx512dq
; CHECK-LABEL: define <16 x i32> @f_simd16(<16 x float> %x)
; CHECK:       phi <16 x i1> {{.*}}[ splat (i1 true), %entry ]
; CHECK-NOT:   sext <16 x i1>
; CHECK-NOT:   <16 x i32> splat (i32 -1)
; CHECK:       ret <16 x i32>
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
attributes #0 = { "target-cpu"="skylake-avx512" "target-features"="+avx,+avx2,+fma,+avx512f,+avx512vl,+avx512bw,+avx512dq" }
