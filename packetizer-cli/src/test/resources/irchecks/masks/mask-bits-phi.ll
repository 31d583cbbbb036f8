; Integer masks on SSE (x86-64-v2, W4): per-lane loads under the partial mask of a divergent loop test
; one bit each of the mask's lane bits. Those bits are carried around the loop as an i4 phi whose
; latch value is the bitcast the any-lane test of the latch makes already (movmskps), instead of a
; bitcast of the header's mask phi at the top of every iteration (x86 made it again there, lane 0
; through pxor/pcmpgtd/movd). Knob: -Dpacketizer.maskBitsPhis=false.
; RUN: packetize -f f -w 4 --params uvv --target-cpu x86-64-v2
; CHECK-LABEL: define <4 x i32> @f_simd4(ptr %s, <4 x i32> %start, <4 x i32> %len)
; CHECK:       icmp slt <4 x i32> %empty.wide, zeroinitializer
; CHECK-NEXT:  [[ENTRY:%[a-z0-9.]+]] = bitcast <4 x i1> {{.*}} to i4
; CHECK-NEXT:  br i1
; CHECK:       loop:
; CHECK:       [[BITS:%[a-z0-9.]+]] = phi i4 [ [[ENTRY]], %entry ], [ [[LATCH:%[a-z0-9.]+]], %loop ]
; CHECK-NOT:   bitcast <4 x i1>
; CHECK:       and i4 [[BITS]], 2
; CHECK:       select i1 {{.*}}, ptr @__packetizer.inactive.lane
; CHECK:       [[LATCH]] = bitcast <4 x i1> {{.*}} to i4
; CHECK-NEXT:  icmp eq i4 [[LATCH]], 0
; CHECK:       br i1
define i32 @f(ptr %s, i32 %start, i32 %len) #0 {
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
attributes #0 = { "target-cpu"="x86-64-v2" }
