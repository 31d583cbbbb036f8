; The byte loop of lane-loads-masked.ll with -Dpacketizer.allActiveLaneLoads=true (off by default: it
; is faster with coherent inputs and slower with random ones, docs/performance.md): under the loop's
; partial mask the W per-lane loads get a second copy, taken when every bit of the mask is set, whose
; loads read the lanes' addresses directly; the other copy keeps a select of the private dummy slot per
; lane; a phi joins the two packets. The lanes' roots are extracted once, before the test.
; SET: packetizer.allActiveLaneLoads=true
; RUN: packetize -f f -w 8 --params uvv --target-cpu=haswell --remarks
; CHECK-LABEL: define <8 x i32> @f_simd8(ptr %s, <8 x i32> %start, <8 x i32> %len)
; CHECK:       loop:
; CHECK:       [[ALL:%[\w.]+]] = icmp eq i8 {{%[\w.]+}}, -1
; CHECK-NEXT:  br i1 [[ALL]], label %[[FAST:[\w.]+]], label %[[SOME:[\w.]+]]
; CHECK:       [[FAST]]:
; CHECK-NOT:   select
; CHECK:       load i8, ptr
; CHECK-NOT:   select
; CHECK:       [[SOME]]:
; CHECK:       select i1 {{.*}}, ptr {{.*}}, ptr @__packetizer.inactive.lane
; CHECK:       phi <8 x i8>
; CHECK-NOT:   gather
; SHAPES:      have a copy without the inactive lanes' selects, taken when every lane of the mask is active
define i32 @f(ptr %s, i32 %start, i32 %len) {
entry:
  %b64 = sext i32 %start to i64
  %base = getelementptr inbounds i8, ptr %s, i64 %b64
  %n = zext i32 %len to i64
  %empty = icmp eq i32 %len, 0
  br i1 %empty, label %done, label %loop
loop:
  %k = phi i64 [ 0, %entry ], [ %k1, %loop ]
  %h = phi i32 [ -2128831035, %entry ], [ %h1, %loop ]
  %p = getelementptr inbounds i8, ptr %base, i64 %k
  %c = load i8, ptr %p, align 1
  %c32 = zext i8 %c to i32
  %x = xor i32 %h, %c32
  %h1 = mul i32 %x, 16777619
  %k1 = add nuw nsw i64 %k, 1
  %more = icmp ult i64 %k1, %n
  br i1 %more, label %loop, label %done
done:
  %r = phi i32 [ -2128831035, %entry ], [ %h1, %loop ]
  ret i32 %r
}
