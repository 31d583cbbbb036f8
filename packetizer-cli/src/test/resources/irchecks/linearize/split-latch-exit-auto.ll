; The benchmark's march shape (`t > 40 || i + 1 == 128` at the latch, -1.0 returned on that exit) with
; the default knobs: -1.0 is an exit constant (no blend on the leaving edge), so the leave arm of the
; split latch writes nothing and the uniform step limit is split off by default (splitLatchExits=auto):
; one scalar branch on %last straight out of the loop, no broadcast of %last into the lanes, and no
; blend of -1.0 in the loop. Fails with -Dpacketizer.splitLatchExits=false or
; -Dpacketizer.exitConstants=false (no split by default: %last broadcast and or-ed into the mask).
; RUN: packetize -f f -w 8 --params v --target-cpu=haswell
; CHECK-LABEL: define <8 x float> @f_simd8(<8 x float> %d)
; CHECK:       {{^}}[[H:loop[a-z0-9.]*]]:
; CHECK-NEXT:  phi <8 x float> [ splat (float -1.000000e+00), %entry ]
; CHECK-NOT:   insertelement
; CHECK:       %last = icmp eq i32 %i.next, 128
; CHECK-NEXT:  br i1 %last, label {{%[a-z0-9.]+}}, label %latch.stay
; CHECK:       {{^}}latch.stay:
; CHECK-NOT:   insertelement
; CHECK-NOT:   splat (float -1.000000e+00)
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
