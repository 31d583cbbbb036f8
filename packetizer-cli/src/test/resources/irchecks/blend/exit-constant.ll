; A divergent loop that leaves by two edges into one exit block, one of them with a constant
; (`return -1.0f` after `if (t > lim) break;`, as in the benchmark's march): the exit phi's variable
; starts with the constant before the loop, and only the other edge, whose value changes every
; iteration, is a blend in the loop. Fails with -Dpacketizer.exitConstants=false (the variable starts
; as poison, the constant is a second select in every iteration, after an accumulated exit mask).
; RUN: packetize -f f -w 8 --params vv --target-cpu=haswell
; CHECK-LABEL: define <8 x float> @f_simd8(<8 x float> %d, <8 x float> %lim)
; CHECK:       {{^}}loop:
; CHECK-NEXT:  %r = phi <8 x float> [ splat (float -1.000000e+00), %entry ], [ %[[B:r.blend[0-9]*]], %loop ]
; CHECK-NOT:   splat (float -1.000000e+00)
; CHECK:       %[[B]] = select <8 x i1> {{%[a-z0-9.]+}}, <8 x float> %t{{[0-9]*}}, <8 x float> %r
; CHECK-NOT:   select
; CHECK:       ret <8 x float> %[[B]]
define float @f(float %d, float %lim) {
entry:
  br label %loop
loop:
  %t = phi float [ 0.0, %entry ], [ %t.next, %latch ]
  %s = fmul float %t, 0.5
  %step = fadd float %s, %d
  %hit = fcmp olt float %step, 0.0
  br i1 %hit, label %exit, label %latch
latch:
  %t.next = fadd float %t, %step
  %far = fcmp ogt float %t.next, %lim
  br i1 %far, label %exit, label %loop
exit:
  %r = phi float [ %t, %loop ], [ -1.0, %latch ]
  ret float %r
}
