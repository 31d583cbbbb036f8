; A table lookup in a global table under a divergent branch (partial mask), on an AVX2 target
; without fast gathers (haswell): inactive lanes read the table's element 0 instead of their own
; offset, so the load needs no mask — W plain loads instead of a masked gather that LLVM expands into
; a branch per lane. Active lanes still read their own element.
; (The index is a shift the packetizer does not bound; a bounded one, `k & 63`, needs no select at
; all: table-lookup-bounded-index.ll.)
; (1- and 2-byte lookups as per-lane loads: the word gathers of word-gather-table.ll off)
; SET: packetizer.wordGathers=false
; (Its constant table of byte-sized values would be looked up by permutes in registers, permute-lookup-*.ll;
;  this file checks the route it takes without them.)
; SET: packetizer.permuteLookups=false
; RUN: packetize -f f -w 8 --params vv --target-cpu=haswell --remarks
; CHECK-LABEL: define <8 x i32> @f_simd8(<8 x i32> %k, <8 x i32> %c)
; CHECK:       %offs.active = select <8 x i1>
; CHECK:       load i8, ptr
; CHECK:       load i8, ptr
; CHECK:       load i8, ptr
; CHECK:       load i8, ptr
; CHECK:       load i8, ptr
; CHECK:       load i8, ptr
; CHECK:       load i8, ptr
; CHECK:       load i8, ptr
; CHECK-NOT:   gather
; SHAPES:      became 8 scalar loads: the target (haswell) has no fast hardware gather, and LLVM would expand a gather into extracts of 64-bit pointers (measured: noise3 W8/AVX2 14.0x -> 15.7x over scalar) (inactive lanes read element 0 of tab, so no mask is needed)
@tab = internal constant [64 x i8] c"\05\07\0B\0D\11\13\17\1D\1F\25\29\2B\2F\35\3B\3D\05\07\0B\0D\11\13\17\1D\1F\25\29\2B\2F\35\3B\3D\05\07\0B\0D\11\13\17\1D\1F\25\29\2B\2F\35\3B\3D\05\07\0B\0D\11\13\17\1D\1F\25\29\2B\2F\35\3B\3D", align 16
define i32 @f(i32 %k, i32 %c) {
entry:
  %t = icmp sgt i32 %c, 0
  br i1 %t, label %then, label %join
then:
  %i = lshr i32 %k, 26
  %x = zext nneg i32 %i to i64
  %p = getelementptr inbounds [64 x i8], ptr @tab, i64 0, i64 %x
  %v = load i8, ptr %p, align 1
  %z = zext i8 %v to i32
  br label %join
join:
  %r = phi i32 [ %z, %then ], [ %c, %entry ]
  ret i32 %r
}
