; Byte and 16-bit lookups in global tables (a uniform base plus a bounded 32-bit index) under a
; divergent branch, on an AVX2 target without fast gathers (haswell): each lookup is ONE gather of the
; aligned 4-byte words that contain the lanes' elements (llvm.x86.avx2.gather.d.d.256: LLVM would
; expand llvm.masked.gather into a branch per lane here), then a shift by 8 * (offset mod 4) and a
; truncation (which the clean-up folds into the extension that follows). The tables are aligned to 16, so the word offsets are the byte offsets rounded down; an
; aligned word never crosses a page. The offsets are bounded within the tables (urem 61 into 61
; bytes, and 15 into 29 shorts), so inactive lanes read the tables too and the gathers are unmasked.
; (Its constant table of byte-sized values would be looked up by permutes in registers, permute-lookup-*.ll;
;  this file checks the route it takes without them.)
; SET: packetizer.permuteLookups=false
; RUN: packetize -f f -w 8 --params vv --target-cpu=haswell --remarks
; CHECK-LABEL: define <8 x i32> @f_simd8(<8 x i32> %k, <8 x i32> %c)
; CHECK:       call <8 x i32> @llvm.umin.v8i32({{.*}}, <8 x i32> splat (i32 60))
; CHECK:       %word.offs = and <8 x i32> %offs.bounded, splat (i32 60)
; CHECK:       [[W:%[\w.]+]] = call <8 x i32> @llvm.x86.avx2.gather.d.d.256(<8 x i32> zeroinitializer, ptr {{.*}}@tab, <8 x i32> %word.offs, <8 x i32> splat (i32 -1), i8 1)
; CHECK:       lshr <8 x i32> [[W]], {{%[\w.]+}}
; CHECK:       and <8 x i32> {{%[\w.]+}}, splat (i32 255)
; CHECK:       [[H:%[\w.]+]] = call <8 x i32> @llvm.x86.avx2.gather.d.d.256(<8 x i32> zeroinitializer, ptr {{.*}}@half, <8 x i32> {{%[\w.]+}}, <8 x i32> splat (i32 -1), i8 1)
; CHECK:       lshr <8 x i32> [[H]], {{%[\w.]+}}
; CHECK-NOT:   load i8
; CHECK-NOT:   load i16
; CHECK-NOT:   inactive.lane
; SHAPES:      became one gather of the aligned 4-byte words containing the 8 lanes' 1-byte elements, a shift and a truncation
; SHAPES-SAME: the AVX2 gather intrinsic
; SHAPES:      became one gather of the aligned 4-byte words containing the 8 lanes' 2-byte elements
@tab = internal constant [61 x i8] c"\05\07\0B\0D\11\13\17\1D\1F\25\29\2B\2F\35\3B\3D\05\07\0B\0D\11\13\17\1D\1F\25\29\2B\2F\35\3B\3D\05\07\0B\0D\11\13\17\1D\1F\25\29\2B\2F\35\3B\3D\05\07\0B\0D\11\13\17\1D\1F\25\29\2B\2F", align 16
@half = internal global [29 x i16] zeroinitializer, align 16
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
  %j = add i32 %c, %z
  %r0 = and i32 %j, 15
  %rx = zext nneg i32 %r0 to i64
  %h = getelementptr inbounds [29 x i16], ptr @half, i64 0, i64 %rx
  %hv = load i16, ptr %h, align 2
  %hz = sext i16 %hv to i32
  %s = add i32 %z, %hz
  br label %join
join:
  %r = phi i32 [ %s, %then ], [ %c, %entry ]
  ret i32 %r
}
