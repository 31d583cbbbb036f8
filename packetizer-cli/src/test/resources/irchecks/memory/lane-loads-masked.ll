; A byte loaded in a loop whose trip count differs per lane (s[start + k], k < len): the address is
; a varying root (s + start, loop-invariant) plus the uniform k, under the loop's partial mask. Bytes
; have no gather instruction on any x86 target, so even on a fast-gather CPU (znver4) the load is W
; scalar loads at root + k; an inactive lane (finished, its next byte maybe past the string's end)
; reads the module's private zero constant through a select instead of its own address: no gather,
; no branch per lane. (The file is about these per-lane loads: the byte windows that replace them for
; this shape from W8 on, byte-window.ll, are turned off here.)
; SET: packetizer.byteWindows=false
; RUN: packetize -f f -w 16 --params uvv --target-cpu=znver4 --remarks
; CHECK:       @__packetizer.inactive.lane = private unnamed_addr constant [64 x i8] zeroinitializer, align 64
; CHECK-LABEL: define <16 x i32> @f_simd16(ptr %s, <16 x i32> %start, <16 x i32> %len)
; CHECK:       loop:
; CHECK:       bitcast <16 x i1> {{.*}} to i16
; CHECK:       select i1 {{.*}}, ptr {{.*}}, ptr @__packetizer.inactive.lane
; CHECK:       load i8, ptr
; CHECK-NOT:   gather
; SHAPES:      became 16 scalar loads at each lane's %base plus 1 uniform offset(s) (inactive lanes read a private dummy slot)
; SHAPES-SAME: gather instructions load only 4- and 8-byte elements
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
