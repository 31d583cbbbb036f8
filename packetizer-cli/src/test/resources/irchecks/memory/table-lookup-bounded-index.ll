; Table lookups under a partial mask (a divergent branch) whose index is bounded within the global
; table whatever the lane holds: `k & 63` into 64 bytes, a zero-extended byte into 256 ints, `u urem 48`
; into 64 shorts. The frozen offsets get the bound again (an and, or a umin for the remainder), so an
; inactive lane reads some element of the table: no select on the mask, no private dummy slot, and
; nothing after the loads waits for the mask (in a loop, the previous iteration's result). A bound
; beyond the table (`k & 127` into 64 elements) keeps the select on the mask.
; (1- and 2-byte lookups as per-lane loads: the word gathers of word-gather-table.ll off)
; SET: packetizer.wordGathers=false
; (Its constant table of byte-sized values would be looked up by permutes in registers, permute-lookup-*.ll;
;  this file checks the route it takes without them.)
; SET: packetizer.permuteLookups=false
; RUN: packetize -f f -w 8 --params vv --target-cpu=haswell --remarks
; CHECK-LABEL: define <8 x i32> @f_simd8(<8 x i32> %k, <8 x i32> %c)
; CHECK:       and <8 x i32> {{.*}}, splat (i32 63)
; CHECK-NOT:   offs.active
; CHECK:       load i8, ptr
; CHECK-NOT:   offs.active
; CHECK:       load i32, ptr
; CHECK-NOT:   offs.active
; CHECK:       call <8 x i32> @llvm.umin.v8i32(<8 x i32> %offs.frozen{{[0-9]*}}, <8 x i32> splat (i32 47))
; CHECK:       load i16, ptr
; CHECK:       %offs.active = select <8 x i1> %t, <8 x i32> %o, <8 x i32> zeroinitializer
; CHECK:       load i8, ptr
; CHECK-NOT:   gather
; CHECK-NOT:   inactive.lane
; SHAPES:      (the offset is at most 63, within tab, so inactive lanes read the table too and no mask is needed)  [%v = load i8
; SHAPES:      (the offset is at most 255, within big, so inactive lanes read the table too and no mask is needed)  [%u = load i32
; SHAPES:      (the offset is at most 47, within half, so inactive lanes read the table too and no mask is needed)  [%hv = load i16
; SHAPES:      (inactive lanes read element 0 of tab, so no mask is needed)  [%ov = load i8
@tab = internal constant [64 x i8] c"\05\07\0B\0D\11\13\17\1D\1F\25\29\2B\2F\35\3B\3D\05\07\0B\0D\11\13\17\1D\1F\25\29\2B\2F\35\3B\3D\05\07\0B\0D\11\13\17\1D\1F\25\29\2B\2F\35\3B\3D\05\07\0B\0D\11\13\17\1D\1F\25\29\2B\2F\35\3B\3D", align 16
@big = internal global [256 x i32] zeroinitializer, align 16
@half = internal global [64 x i16] zeroinitializer, align 16
define i32 @f(i32 %k, i32 %c) {
entry:
  %t = icmp sgt i32 %c, 0
  br i1 %t, label %then, label %join
then:
  %i = and i32 %k, 63
  %x = zext nneg i32 %i to i64
  %p = getelementptr inbounds [64 x i8], ptr @tab, i64 0, i64 %x
  %v = load i8, ptr %p, align 1
  %z = zext i8 %v to i32
  %j = zext i8 %v to i32
  %j2 = add i32 %k, %z
  %jb = trunc i32 %j2 to i8
  %jz = zext i8 %jb to i32
  %jx = zext nneg i32 %jz to i64
  %q = getelementptr inbounds i32, ptr @big, i64 %jx
  %u = load i32, ptr %q, align 4
  %r0 = urem i32 %u, 48
  %rx = zext nneg i32 %r0 to i64
  %h = getelementptr inbounds [64 x i16], ptr @half, i64 0, i64 %rx
  %hv = load i16, ptr %h, align 2
  %hz = zext i16 %hv to i32
  %o = and i32 %k, 127
  %ox = zext nneg i32 %o to i64
  %op = getelementptr inbounds [64 x i8], ptr @tab, i64 0, i64 %ox
  %ov = load i8, ptr %op, align 1
  %oz = zext i8 %ov to i32
  %s1 = add i32 %z, %u
  %s2 = add i32 %s1, %hz
  %s3 = add i32 %s2, %oz
  br label %join
join:
  %r = phi i32 [ %s3, %then ], [ %c, %entry ]
  ret i32 %r
}
