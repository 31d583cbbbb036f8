; The byte lookup of word-gather-table.ll on a target with fast gathers (skylake-avx512, W16; on znver4,
; which has AVX-512 VBMI, this constant byte table is looked up by byte permutes instead:
; permute-lookup-vbmi.ll): the words are
; gathered with llvm.masked.gather of i32 from the table (aligned to 16) plus the word offsets, which
; LLVM lowers to one vpgatherdd; then the shift and the truncation. A byte has no gather instruction:
; before, this was 16 scalar loads.
; (Its constant table of byte-sized values would be looked up by permutes in registers, permute-lookup-*.ll;
;  this file checks the route it takes without them.)
; SET: packetizer.permuteLookups=false
; RUN: packetize -f f -w 16 --params vv --target-cpu=skylake-avx512 --remarks
; CHECK-LABEL: define <16 x i32> @f_simd16(<16 x i32> %k, <16 x i32> %c)
; CHECK:       %word.offs = and <16 x i32> %offs.bounded, splat (i32 60)
; CHECK:       [[P:%[\w.]+]] = getelementptr i8, ptr @tab, <16 x i64> {{%[\w.]+}}
; CHECK:       [[W:%[\w.]+]] = call <16 x i32> @llvm.masked.gather.v16i32.v16p0(<16 x ptr> [[P]], i32 4, <16 x i1> splat (i1 true), <16 x i32> {{.*}})
; CHECK:       lshr <16 x i32> [[W]], {{%[\w.]+}}
; CHECK:       and <16 x i32> {{%[\w.]+}}, splat (i32 255)
; CHECK-NOT:   load i8
; SHAPES:      became one gather of the aligned 4-byte words containing the 16 lanes' 1-byte elements
; SHAPES-SAME: has fast gathers: llvm.masked.gather of 32-bit words
@tab = internal constant [61 x i8] c"\05\07\0B\0D\11\13\17\1D\1F\25\29\2B\2F\35\3B\3D\05\07\0B\0D\11\13\17\1D\1F\25\29\2B\2F\35\3B\3D\05\07\0B\0D\11\13\17\1D\1F\25\29\2B\2F\35\3B\3D\05\07\0B\0D\11\13\17\1D\1F\25\29\2B\2F", align 16
define i32 @f(i32 %k, i32 %c) {
entry:
  %t = icmp sgt i32 %c, 0
  br i1 %t, label %then, label %join
then:
  %i = urem i32 %k, 61
  %x = zext nneg i32 %i to i64
  %p = getelementptr inbounds [61 x i8], ptr @tab, i64 0, i64 %x
  %v = load i8, ptr %p, align 1
  %z = zext i8 %v to i32
  br label %join
join:
  %r = phi i32 [ %z, %then ], [ %c, %entry ]
  ret i32 %r
}
