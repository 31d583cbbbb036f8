; A valid kernel: the base of the bitcode rows (empty, truncated, flipped, random, newer LLVM), the
; misspelled-function row and the width rows. The nounwind attribute gives the bitcode an attribute
; group record, which the "unknown attribute" row patches.
define float @shade(float %x, float %y) #0 {
entry:
  %c = fcmp olt float %x, %y
  br i1 %c, label %then, label %join
then:
  %d = fmul float %x, 2.0
  br label %join
join:
  %r = phi float [ %d, %then ], [ %y, %entry ]
  ret float %r
}

attributes #0 = { nounwind }
