; --wrapper auto with a divergent loop at S/N = 8 (W=32 on SSE, N=4) chooses LOOP: lanes of
; different slices do not wait for each other's slowest lane.
; RUN: packetize -f f -w 32 --params v --target-cpu x86-64-v2 --target-features +sse4.2
; SHAPES:      wrapper: @f_simd32 calls the 4-wide @f_simd32.n4 8 times
; CHECK-LABEL: define internal <4 x i32> @f_simd32.n4(<4 x float> %x)
; CHECK-LABEL: define <32 x i32> @f_simd32(<32 x float>
; CHECK:       call <4 x i32> @f_simd32.n4(
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
attributes #0 = { "target-cpu"="x86-64-v2" "target-features"="+sse4.2,+sse4.1,+ssse3,+sse3" }
