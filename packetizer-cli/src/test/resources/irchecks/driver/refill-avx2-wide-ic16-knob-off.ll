; The kernel of refill-avx2-wide-ic16.ll under -Dpacketizer.refill.avx2WideIc=false (the AVX2 refill rule's cap of 4
; registers per value, as before the twentieth round): two refill states at W16, the wide masks kept.
; SET: packetizer.refill.avx2WideIc=false
; RUN: packetize -f escape2 -w 16 --params vvu --array-driver --refill --remarks
; SHAPES: refill body: interleave count 2 (32 elements per step as 2 chains of 16 lanes)
; CHECK-LABEL: define void @escape2_map(ptr %cr, ptr %ci, i32 %limit, ptr %out, i64 %n)
; CHECK:       iterate:
; CHECK:       %active.it.1 = phi <16 x i32> [ %active.r.wide.1, %run.check.1 ], [ %active.next.wide.1, %iterate ]
; CHECK-NOT:   %active.it.2
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
