; Cost model of the any-lane test (issue 16): a block of three instructions under a divergent branch
; holds a call to erff, which at W8 costs a vector math routine (or eight libm calls) whenever the
; block runs. Its estimated cost passes the test's (40), so a real branch on an any-lane test jumps
; around it, and the remark gives the estimate. (Before, the skip threshold counted instructions:
; three, no test, the calls ran for no lane. A call to an intrinsic such as llvm.sin would be
; guarded too, but the clean-up's SimplifyCFG speculates a small block of intrinsics back into
; selects: it does not know that llvm.sin.v8f32 becomes eight libm calls.)
; RUN: packetize -f f -w 8 --params v --remarks
; SHAPES:      remark: f:costly: skip-if-empty: block is skipped when no lane is active: estimated cost 82 (3 instructions, 1 call(s)) >= 40
; CHECK-LABEL: define <8 x float> @f_simd8(<8 x float> %x)
; CHECK:       {{llvm.vector.reduce.or.v8i1|bitcast <8 x i1> .* to i8}}
; CHECK:       br i1 {{.*}}, label %{{.*}}, label %{{.*}}
; CHECK:       erf
; CHECK:       ret <8 x float>
define float @f(float %x) {
entry:
  %c = fcmp ogt float %x, 2.0
  br i1 %c, label %costly, label %join
costly:
  %a = fmul float %x, 3.0
  %s = call float @erff(float %a)
  %b = fadd float %s, 1.0
  br label %join
join:
  %r = phi float [ %b, %costly ], [ %x, %entry ]
  ret float %r
}
declare float @erff(float) #0
attributes #0 = { nounwind willreturn memory(none) }
