; Paired table lookups (issue 16, noise3's perm[A] and perm[A + 1]): t[i] and t[i + 1] with a uniform
; global table, a varying 32-bit index and the second index `add nsw i, 1`, in one block under a full
; mask, on a target with fast hardware gathers (znver4, W16): ONE gather of 16 8-byte elements at &t[i]
; with the 32-bit offsets (16 element loads instead of 32), split into the two halves as the even and
; odd 4-byte elements (the even ones become a truncation after instcombine, the odd ones a vpermt2d). Fails with -Dpacketizer.pairedLookups=false (two <16 x i32> gathers).
; RUN: packetize -f f -w 16 --params vv --target-cpu=znver4 --remarks
; CHECK-LABEL: define <16 x i32> @f_simd16(<16 x i32> %a, <16 x i32> %b)
; CHECK:       call <16 x i64> @llvm.masked.gather.v16i64.v16p0(<16 x ptr>
; CHECK-NOT:   @llvm.masked.gather
; CHECK:       bitcast <16 x i64> %pair to <32 x i32>
; CHECK:       shufflevector <32 x i32> %pair.elems, <32 x i32> poison, <16 x i32> <i32 1, i32 3, i32 5,
; CHECK-NOT:   @llvm.masked.gather
; CHECK:       ret <16 x i32>
; SHAPES:      table lookups t[i] and t[i + 1] (with hi) became one gather of 16 8-byte elements and two shuffles
@perm = global [512 x i32] zeroinitializer, align 16

define i32 @f(i32 %a, i32 %b) {
entry:
  %i = and i32 %a, 255
  %x = zext nneg i32 %i to i64
  %p = getelementptr inbounds [512 x i32], ptr @perm, i64 0, i64 %x
  %lo = load i32, ptr %p, align 4
  %i1 = add nsw i32 %i, 1
  %x1 = sext i32 %i1 to i64
  %p1 = getelementptr inbounds [512 x i32], ptr @perm, i64 0, i64 %x1
  %hi = load i32, ptr %p1, align 4
  %s = mul i32 %hi, %b
  %r = add i32 %lo, %s
  ret i32 %r
}
