; --optimize size (issue 16, code growth): a function whose only stores go to its own local array (a
; histogram of byte classes: alloca, memset, a store at a data-dependent index) also becomes the loop over
; the 8 lanes running the scalar code (ScalarLanes, thirteenth round): the lanes run one after the other,
; each on the one array (moved to the entry block by the inliner), which cannot differ from each lane on its
; own array, since a lane that read the array before writing it would read an undefined value in the scalar
; function too. With -Dpacketizer.sizeLanesLocals=false it keeps its packetized body (per-lane arrays, a
; <8 x ptr> of their addresses).
; RUN: packetize -f f -w 8 --params uvv --target-cpu=haswell --optimize size --remarks
; CHECK-LABEL: define <8 x i32> @f_simd8(ptr %s, <8 x i32> %b, <8 x i32> %n)
; CHECK:       entry:
; CHECK-NEXT:  %counts.i = alloca [4 x i32]
; CHECK:       lanes:
; CHECK:       call void @llvm.memset.p0.i64(ptr {{.*}}%counts.i, i8 0, i64 16, i1 false)
; CHECK:       store i32 {{%[0-9a-z.]+}}, ptr {{%[0-9a-z.]+}}, align 4
; CHECK:       %result.lane = shufflevector <8 x i32> %result.lanes
; CHECK-NOT:   <8 x ptr>
; SHAPES:      remark: f: note: optimizing for size: the packet function would be
; SHAPES-SAME: a loop over the 8 lanes calling a copy of the scalar function instead
define i32 @f(ptr %s, i32 %b, i32 %n) {
entry:
  %counts = alloca [4 x i32], align 16
  call void @llvm.memset.p0.i64(ptr align 16 %counts, i8 0, i64 16, i1 false)
  %any = icmp sgt i32 %n, 0
  br i1 %any, label %loop, label %sum

loop:
  %k = phi i32 [ 0, %entry ], [ %k1, %loop ]
  %i = add nsw i32 %b, %k
  %i64 = sext i32 %i to i64
  %p = getelementptr inbounds i8, ptr %s, i64 %i64
  %byte = load i8, ptr %p, align 1
  %cls = and i8 %byte, 3
  %c64 = zext i8 %cls to i64
  %slot = getelementptr inbounds [4 x i32], ptr %counts, i64 0, i64 %c64
  %old = load i32, ptr %slot, align 4
  %new = add i32 %old, 1
  store i32 %new, ptr %slot, align 4
  %k1 = add nuw nsw i32 %k, 1
  %more = icmp slt i32 %k1, %n
  br i1 %more, label %loop, label %sum

sum:
  %c0 = load i32, ptr %counts, align 16
  %p1 = getelementptr inbounds i8, ptr %counts, i64 4
  %c1 = load i32, ptr %p1, align 4
  %p2 = getelementptr inbounds i8, ptr %counts, i64 8
  %c2 = load i32, ptr %p2, align 8
  %p3 = getelementptr inbounds i8, ptr %counts, i64 12
  %c3 = load i32, ptr %p3, align 4
  %h1 = mul i32 %c0, 31
  %h2 = add i32 %h1, %c1
  %h3 = mul i32 %h2, 31
  %h4 = add i32 %h3, %c2
  %h5 = mul i32 %h4, 31
  %h = add i32 %h5, %c3
  ret i32 %h
}

declare void @llvm.memset.p0.i64(ptr writeonly, i8, i64, i1 immarg)
