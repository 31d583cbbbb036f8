; The same lookup on SSE4.2 (x86-64-v2), which has no gather instruction: W scalar loads, the inactive
; lanes reading element 0 of the global table (one vector select of the offsets, no per-lane pointer
; select, no dummy slot).
; (The index is a shift the packetizer does not bound; a bounded one, `k & 63`, needs no select at
; all: table-lookup-bounded-index.ll.)
; (Its constant table of byte-sized values would be looked up by permutes in registers, permute-lookup-*.ll;
;  this file checks the route it takes without them.)
; SET: packetizer.permuteLookups=false
; RUN: packetize -f f -w 4 --params vv --target-cpu=x86-64-v2 --remarks
; CHECK-LABEL: define <4 x i32> @f_simd4(<4 x i32> %k, <4 x i32> %c)
; CHECK:       %offs.active = select <4 x i1>
; CHECK:       load i8, ptr
; CHECK:       load i8, ptr
; CHECK:       load i8, ptr
; CHECK:       load i8, ptr
; CHECK-NOT:   gather
; CHECK-NOT:   inactive.lane
; SHAPES:      (inactive lanes read element 0 of tab, so no mask is needed)
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
