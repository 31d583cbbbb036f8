; The AVX2 permutation rounds' block rule on an Intel CPU (haswell; twenty-second round, RefillDriver.avx2BlockScale):
; a refill round every k iterations, k = ⌊√(c·T)⌋ with c = 8 instead of the 4 of the other routes, compared squared
; without a division: the budget c·IC·W·iterations is 8·4·8 = 2^8 times the iterations at W8 with four states. An AVX2
; round costs about nine driver steps (AVX-512's two to two and a half), so longer blocks pay (docs/performance.md "Longer
; blocks for the AVX2 rounds"). Twins: refill-avx2-block-scale-amd.ll (znver2: c = 4, AMD not measured) and
; refill-avx2-block-scale-knob.ll (-Dpacketizer.refill.blockScale.avx2=2).
; RUN: packetize -f count -w 8 --params vu --array-driver --refill --remarks
; SHAPES: a refill round every k iterations, k = ⌊√(8·T)⌋ (1 to 64)
; CHECK-LABEL: define void @count_map(ptr %x, i32 %limit, ptr %out, i64 %n)
; CHECK:       %block.budget = shl i64 %iterations, 8
; CHECK:       %block.up = and i1
target triple = "x86_64-unknown-linux-gnu"
define i32 @count(float %x, i32 %limit) #0 {
entry:
  %go = icmp sgt i32 %limit, 0
  br i1 %go, label %loop, label %done
loop:
  %z = phi float [ 0.0, %entry ], [ %z2, %body ]
  %i = phi i32 [ 0, %entry ], [ %i2, %body ]
  %q = fmul float %z, %z
  %big = fcmp ogt float %q, 4.0
  br i1 %big, label %done, label %body
body:
  %z2 = fadd float %q, %x
  %i2 = add nuw nsw i32 %i, 1
  %end = icmp eq i32 %i2, %limit
  br i1 %end, label %done, label %loop
done:
  %r = phi i32 [ 0, %entry ], [ %i, %loop ], [ %limit, %body ]
  ret i32 %r
}
attributes #0 = { "target-cpu"="haswell" "target-features"="+avx2,+avx,+fma,+sse4.2,+popcnt,+bmi,+bmi2" }
