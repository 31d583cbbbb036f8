; The AVX2 refill rule's register cap with the wide masks (twentieth round; Interleave.avx2RefillRegs): on an Intel
; CPU the refill loop carries sign-extended active masks (RefillDriver.wideMask) and a 32-bit state may take 8
; registers per value over the states, so an escape-time loop whose recurrence (21 cycles) over four chains still
; beats its throughput (8) gets four refill states at W16 (measured 3 % faster than two for mandelbrot and julia on
; bench-refill --march haswell). Twins: refill-avx2-wide-ic16-knob-off.ll (-Dpacketizer.refill.avx2WideIc=false: two
; states) and refill-avx2-wide-ic16-amd.ll (znver2: the i1 masks, the cap of 4, two states).
; RUN: packetize -f escape2 -w 16 --params vvu --array-driver --refill --remarks
; SHAPES: refill body: interleave count 4 (64 elements per step as 4 chains of 16 lanes)
; SHAPES: at most 8 registers per value over the states (Intel, sign-extended active masks, 32-bit lanes
; CHECK-LABEL: define void @escape2_map(ptr %cr, ptr %ci, i32 %limit, ptr %out, i64 %n)
; CHECK:       iterate:
; CHECK:       %active.it.0 = phi <16 x i32> [ %active.r.wide.0, %run.check.3 ]
; CHECK:       %active.it.3 = phi <16 x i32> [ %active.r.wide.3, %run.check.3 ], [ %active.next.wide.3, %iterate ]
; CHECK-NOT:   phi <16 x i1>
; CHECK:       %block.count = phi i64
; CHECK:       iterate.exit:
target triple = "x86_64-unknown-linux-gnu"
define i32 @escape2(float %cr, float %ci, i32 %limit) #0 {
entry:
  %cmp15 = icmp sgt i32 %limit, 0
  br i1 %cmp15, label %land.rhs, label %while.end
land.rhs:                                         ; preds = %entry, %while.body
  %zr.018 = phi float [ %add, %while.body ], [ 0.000000e+00, %entry ]
  %k.017 = phi i32 [ %inc, %while.body ], [ 0, %entry ]
  %zi.016 = phi float [ %2, %while.body ], [ 0.000000e+00, %entry ]
  %mul1 = fmul float %zi.016, %zi.016
  %0 = tail call float @llvm.fmuladd.f32(float %zr.018, float %zr.018, float %mul1)
  %cmp2 = fcmp ugt float %0, 4.000000e+00
  br i1 %cmp2, label %while.end, label %while.body
while.body:                                       ; preds = %land.rhs
  %neg = fneg float %mul1
  %1 = tail call float @llvm.fmuladd.f32(float %zr.018, float %zr.018, float %neg)
  %add = fadd float %cr, %1
  %mul = fmul float %zr.018, 2.000000e+00
  %2 = tail call float @llvm.fmuladd.f32(float %mul, float %zi.016, float %ci)
  %inc = add nuw nsw i32 %k.017, 1
  %exitcond.not = icmp eq i32 %inc, %limit
  br i1 %exitcond.not, label %while.end, label %land.rhs
while.end:                                        ; preds = %land.rhs, %while.body, %entry
  %k.0.lcssa = phi i32 [ 0, %entry ], [ %limit, %while.body ], [ %k.017, %land.rhs ]
  ret i32 %k.0.lcssa
}
declare float @llvm.fmuladd.f32(float, float, float) #1
attributes #0 = { "target-cpu"="haswell" "target-features"="+avx2,+avx,+fma,+sse4.2,+popcnt,+bmi,+bmi2" }
attributes #1 = { mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none) }
