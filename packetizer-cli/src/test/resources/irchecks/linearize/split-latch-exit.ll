; A divergent loop whose latch leaves on `t > 40 || i + 1 == 128` (clang's `select i1 %far, i1 true,
; i1 %last`, as in the benchmark's march): the uniform step limit is a real branch on the scalar
; counter (its own exit arm, where every lane still in the loop leaves), and only the varying part
; goes into the lane masks on the arm that stays (opt-in by the knob). Fails with the knob at false,
; the default (the limit broadcast and or-ed into the exit mask: no .leave/.stay arms, no scalar
; branch on %last).
; (With exit constants, the default since the eleventh round, -1.0 needs no blend and the leave arm is
; empty: split-latch-exit-auto.ll. Here they are off, so the leave arm keeps its blend.)
; SET: packetizer.splitLatchExits=true
; SET: packetizer.exitConstants=false
; RUN: packetize -f f -w 8 --params v --target-cpu=haswell --remarks
; SHAPES:      uniform part of a divergent loop's exit condition kept as a branch
; CHECK-LABEL: define <8 x float> @f_simd8(<8 x float> %d)
; CHECK:       {{^}}[[H:loop[a-z0-9.]*]]:
; CHECK:       %last = icmp eq i32 %i.next, 128
; CHECK-NEXT:  br i1 %last, label %latch.leave, label %latch.stay
; CHECK:       {{^}}latch.leave:
; CHECK-NOT:   fcmp
; CHECK:       {{^}}latch.stay:
; CHECK:       fcmp ogt <8 x float> {{.*}}, splat (float 4.000000e+01)
; CHECK-NOT:   insertelement
; CHECK-NOT:   <8 x i1> %last
; CHECK:       br i1 {{%[a-z0-9.]+}}, label {{.*}}, label %[[H]]
; CHECK:       ret <8 x float>
define float @f(float %d) {
entry:
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %latch ]
  %t = phi float [ 0.0, %entry ], [ %t.next, %latch ]
  %s = fmul float %t, 0.5
  %step = fadd float %s, %d
  %hit = fcmp olt float %step, 0.0
  br i1 %hit, label %exit, label %latch
latch:
  %t.next = fadd float %t, %step
  %far = fcmp ogt float %t.next, 40.0
  %i.next = add nuw nsw i32 %i, 1
  %last = icmp eq i32 %i.next, 128
  %stop = select i1 %far, i1 true, i1 %last
  br i1 %stop, label %exit, label %loop
exit:
  %r = phi float [ %t, %loop ], [ -1.0, %latch ]
  ret float %r
}
