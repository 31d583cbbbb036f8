; Lookups in small constant tables whose entries fit in a byte (issue 16, W16/AVX-512: Perlin's perm,
; a volume kernel's vperm): on an AVX-512 VBMI target (znver4) they become byte permutes in registers,
; llvm.x86.avx512.vpermi2var.qi.512 (vpermi2b): one per 128 entries, chunks chosen by index bit 7,
; the low byte of each 32-bit lane zero-extended; no gather, no memory access, so also under the
; partial mask of the branch (no mask operand at all). Fails with -Dpacketizer.permuteLookups=false
; (gathers).
; RUN: packetize -f f -w 16 --params vv --target-cpu=znver4 --remarks
; CHECK-LABEL: define <16 x i32> @f_simd16(<16 x i32> %a, <16 x i32> %b)
; CHECK:       call <64 x i8> @llvm.x86.avx512.vpermi2var.qi.512(<64 x i8>
; CHECK:       call <64 x i8> @llvm.x86.avx512.vpermi2var.qi.512(<64 x i8>
; CHECK:       select <16 x i1>
; CHECK:       call <64 x i8> @llvm.x86.avx512.vpermi2var.qi.512(<64 x i8>
; CHECK-NOT:   @llvm.masked.gather
; CHECK:       ret <16 x i32>
; SHAPES:      table lookup in constant @t (160 x i32, values 0..255) became 2 byte permutes in registers (AVX-512 VBMI vpermi2b, 1 blend on index bits): no memory access
; SHAPES:      table lookup in constant @v (64 x i8, values 0..255) became 1 byte permute in registers (AVX-512 VBMI vpermi2b): no memory access, so no mask
@t = internal unnamed_addr constant [160 x i32] [
  i32 165, i32 77, i32 202, i32 24, i32 37, i32 48, i32 187, i32 29, i32 109, i32 19, i32 44, i32 222, i32 214, i32 35, i32 123, i32 46,
  i32 217, i32 30, i32 63, i32 114, i32 31, i32 203, i32 25, i32 113, i32 23, i32 68, i32 148, i32 214, i32 73, i32 60, i32 157, i32 92,
  i32 52, i32 96, i32 190, i32 49, i32 32, i32 30, i32 105, i32 254, i32 218, i32 160, i32 238, i32 232, i32 185, i32 153, i32 127, i32 92,
  i32 124, i32 41, i32 153, i32 253, i32 175, i32 229, i32 147, i32 37, i32 60, i32 214, i32 84, i32 175, i32 77, i32 250, i32 215, i32 20,
  i32 39, i32 160, i32 174, i32 179, i32 254, i32 233, i32 35, i32 47, i32 138, i32 242, i32 33, i32 31, i32 158, i32 228, i32 145, i32 197,
  i32 177, i32 11, i32 236, i32 181, i32 86, i32 59, i32 252, i32 30, i32 111, i32 147, i32 66, i32 126, i32 203, i32 200, i32 254, i32 41,
  i32 85, i32 229, i32 205, i32 142, i32 70, i32 220, i32 142, i32 212, i32 183, i32 194, i32 118, i32 77, i32 42, i32 90, i32 77, i32 118,
  i32 119, i32 6, i32 248, i32 93, i32 134, i32 144, i32 2, i32 74, i32 214, i32 189, i32 163, i32 64, i32 27, i32 233, i32 200, i32 203,
  i32 204, i32 201, i32 53, i32 246, i32 205, i32 31, i32 97, i32 34, i32 106, i32 225, i32 83, i32 56, i32 174, i32 26, i32 52, i32 0,
  i32 77, i32 51, i32 186, i32 13, i32 36, i32 106, i32 192, i32 76, i32 129, i32 177, i32 186, i32 242, i32 62, i32 59, i32 249, i32 238
], align 16
@v = internal unnamed_addr constant [64 x i8] c"\3D\3D\27\0A\12\0D\2B\21\3D\14\02\1A\2E\12\03\26\0B\21\2E\15\2D\1C\2A\1C\18\1E\33\1D\19\3F\2D\03\03\23\3C\21\18\2C\39\2C\2E\0A\1C\0D\1D\3C\19\2B\1A\3D\00\3D\2C\0A\0F\31\19\3D\16\37\2A\0B\32\3B", align 16

define i32 @f(i32 %a, i32 %b) {
entry:
  %i = urem i32 %a, 160
  %x = zext nneg i32 %i to i64
  %p = getelementptr inbounds [160 x i32], ptr @t, i64 0, i64 %x
  %e = load i32, ptr %p, align 4
  %c = icmp sgt i32 %b, 0
  br i1 %c, label %then, label %join

then:
  %j = sext i32 %b to i64
  %q = getelementptr inbounds [64 x i8], ptr @v, i64 0, i64 %j
  %y = load i8, ptr %q, align 1
  %z = zext i8 %y to i32
  br label %join

join:
  %s = phi i32 [ %z, %then ], [ 0, %entry ]
  %r = add i32 %e, %s
  ret i32 %r
}
