; The same lookups on SSE4.1 (x86-64-v2, W4; issue 16, eleventh round): pshufb
; (llvm.x86.ssse3.pshuf.b.128) of 16 entries each, 4 for the 64-byte table with blends on index bits
; 4 and 5, 1 for the 16-byte one under the branch (no mask). No scalar load, no guarded cascade.
; Fails with -Dpacketizer.permuteLookups=vbmi or =false.
; RUN: packetize -f f -w 4 --params vv --target-cpu=x86-64-v2 --remarks
; CHECK-LABEL: define <4 x i32> @f_simd4(<4 x i32> %a, <4 x i32> %b)
; CHECK:       call <16 x i8> @llvm.x86.ssse3.pshuf.b.128(<16 x i8>
; CHECK:       call <16 x i8> @llvm.x86.ssse3.pshuf.b.128(<16 x i8>
; CHECK:       call <16 x i8> @llvm.x86.ssse3.pshuf.b.128(<16 x i8>
; CHECK:       call <16 x i8> @llvm.x86.ssse3.pshuf.b.128(<16 x i8>
; CHECK:       select <4 x i1>
; CHECK:       call <16 x i8> @llvm.x86.ssse3.pshuf.b.128(<16 x i8>
; CHECK-NOT:   load i8
; CHECK:       ret <4 x i32>
; SHAPES:      table lookup in constant @v (64 x i8, values 0..255) became 4 byte shuffles in registers (SSSE3 pshufb, SSE4.1 blends, 3 blends on index bits): no memory access
; SHAPES:      table lookup in constant @s (16 x i8, values 0..255) became 1 byte shuffle in registers (SSSE3 pshufb, SSE4.1 blends): no memory access, so no mask
@v = internal unnamed_addr constant [64 x i8] c"\26\22\38\3A\2E\17\21\25\2B\04\29\08\2C\31\33\19\24\0A\1A\03\1B\35\13\0E\2D\16\1D\1C\02\06\32\0D\37\10\05\39\3E\15\30\18\2F\3B\0B\1F\01\11\00\3F\2A\28\36\09\3C\27\23\1E\12\07\34\3D\0F\0C\14\20", align 16
@s = internal unnamed_addr constant [16 x i8] c"\F0\71\4E\C6\44\86\91\9A\7D\94\37\5D\BC\03\7A\9C", align 16

define i32 @f(i32 %a, i32 %b) {
entry:
  %i = and i32 %a, 63
  %x = zext nneg i32 %i to i64
  %p = getelementptr inbounds [64 x i8], ptr @v, i64 0, i64 %x
  %e = load i8, ptr %p, align 1
  %ez = zext i8 %e to i32
  %c = icmp ult i32 %b, 16
  br i1 %c, label %then, label %join

then:
  %j = zext nneg i32 %b to i64
  %q = getelementptr inbounds [16 x i8], ptr @s, i64 0, i64 %j
  %y = load i8, ptr %q, align 1
  %z = sext i8 %y to i32
  br label %join

join:
  %t = phi i32 [ %z, %then ], [ 0, %entry ]
  %r = add i32 %ez, %t
  ret i32 %r
}
