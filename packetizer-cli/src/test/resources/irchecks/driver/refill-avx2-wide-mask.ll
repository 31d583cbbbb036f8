; The refill driver for AVX2 on an Intel CPU (twentieth round; RefillDriver.wideMask, default auto: on for Intel CPUs
; without AVX-512): the hot loop carries each set's active mask as sign-extended 32-bit lanes (the compare's own result,
; a blend's mask as it is) instead of an i1 packet, which LLVM keeps in 16-bit lanes across the back edge on AVX2 (a
; pack per compare and an unpack per blend in every iteration). The mask is kept by a select of the wide phi (not a
; sext of an i1 answer, which the clean-up folds back into an i1 phi), so no i1 phi is left in the loop. Twins:
; refill-avx2-wide-mask-knob-off.ll (-Dpacketizer.refill.wideMask=false) and refill-avx2-wide-mask-amd.ll (znver2).
; RUN: packetize -f escape -w 8 --params vu --array-driver --refill --remarks
; SHAPES: the lanes' active mask carried through the iterations as sign-extended 32-bit lanes
; CHECK-LABEL: define void @escape_map(ptr %x, i32 %limit, ptr %out, i64 %n)
; CHECK:       iterate:
; CHECK:       %active.it.0 = phi <8 x i32> [ %active.r.wide.0, %run.check.3 ], [ %active.next.wide.0, %iterate ]
; CHECK-NOT:   phi <8 x i1>
; CHECK:       %block.count = phi i64
; CHECK:       %active.it.mask.0 = icmp slt <8 x i32> %active.it.0, zeroinitializer
; CHECK:       %result.next.0 = select <8 x i1> %active.it.mask.0, <8 x float> {{.*}}, <8 x float> %result.it.0
; CHECK:       %active.next.wide.0 = select <8 x i1> {{.*}}, <8 x i32> %active.it.0, <8 x i32> zeroinitializer
; CHECK:       iterate.exit:
; CHECK:       br label %round
target triple = "x86_64-unknown-linux-gnu"
define float @escape(float %x, i32 %limit) #0 {
entry:
  br label %loop
loop:
  %s = phi float [ %x, %entry ], [ %s2, %body ]
  %p = phi float [ 1.0, %entry ], [ %p2, %body ]
  %k = phi i32 [ 0, %entry ], [ %k2, %body ]
  %q = fmul float %s, %s
  %big = fcmp ogt float %q, 4.0
  br i1 %big, label %out.big, label %body
body:
  %p2 = fadd float %p, %q
  %s2 = fsub float %q, %x
  %k2 = add i32 %k, 1
  %more = icmp slt i32 %k2, %limit
  br i1 %more, label %loop, label %out.limit
out.big:
  %r1 = fmul float %s, %p
  ret float %r1
out.limit:
  ret float %p2
}
attributes #0 = { "target-cpu"="haswell" "target-features"="+avx2,+avx,+fma,+sse4.2,+popcnt,+bmi,+bmi2" }
