; With -Dpacketizer.wordGathers=all, a byte loaded through a vector of 64-bit pointers (s + start + k
; in a loop with per-lane trip counts, as in lane-loads-masked.ll) is also gathered as aligned words:
; on haswell two llvm.x86.avx2.gather.q.d.256 of four words per 8 lanes, masked by the loop's mask.
; Off by default: measured slower than the per-lane loads on strhash (docs/performance.md).
; SET: packetizer.wordGathers=all
; RUN: packetize -f f -w 8 --params uvv --target-cpu=haswell --remarks
; CHECK-LABEL: define <8 x i32> @f_simd8(ptr %s, <8 x i32> %start, <8 x i32> %len)
; CHECK:       loop:
; CHECK:       and <8 x i64> {{%[\w.]+}}, splat (i64 -4)
; CHECK:       call <4 x i32> @llvm.x86.avx2.gather.q.d.256(<4 x i32> zeroinitializer, ptr null, <4 x i64>
; CHECK:       call <4 x i32> @llvm.x86.avx2.gather.q.d.256(<4 x i32> zeroinitializer, ptr null, <4 x i64>
; CHECK:       lshr <8 x i32>
; CHECK-NOT:   load i8
; CHECK-NOT:   inactive.lane
; SHAPES:      became one gather of the aligned 4-byte words containing the 8 lanes' 1-byte elements
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
