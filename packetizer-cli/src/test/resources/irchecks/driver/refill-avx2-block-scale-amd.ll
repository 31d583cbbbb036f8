; The kernel of refill-avx2-block-scale.ll compiled for an AMD AVX2 CPU (znver2): the block rule keeps c = 4 there
; (RefillDriver.avx2BlockScale is Intel's; AMD not measured), a budget of 4·4·8 = 2^7 times the iterations.
; RUN: packetize -f count -w 8 --params vu --array-driver --refill --remarks
; SHAPES: a refill round every k iterations, k = ⌊√(4·T)⌋ (1 to 64)
; CHECK-LABEL: define void @count_map(ptr %x, i32 %limit, ptr %out, i64 %n)
; CHECK:       %block.budget = shl i64 %iterations, 7
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
attributes #0 = { "target-cpu"="znver2" "target-features"="+avx2,+avx,+fma,+sse4.2,+popcnt,+bmi,+bmi2" }
