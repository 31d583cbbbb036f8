; byte-window.ll's byte loop with -Dpacketizer.byteWindows.slowLanes=unrolled (the rule before the
; fourteenth round): a reload where a lane's window would cross into the next page loads the W bytes
; one per lane, unrolled (W selects of the lane's address or the dummy slot, W loads, W inserts),
; instead of byte-window.ll's loop over the lane numbers.
; SET: packetizer.byteWindows=true
; SET: packetizer.byteWindows.slowLanes=unrolled
; RUN: packetize -f f -w 8 --params uvv --target-cpu=haswell --remarks
; CHECK-LABEL: define <8 x i32> @f_simd8(ptr %s, <8 x i32> %start, <8 x i32> %len)
; CHECK:       loop:
; CHECK:       [[USED:%[\w.]+]] = phi i64 [ 8, %{{[\w.]+}} ], [ {{%[\w.]+}}, %{{[\w.]+}} ]
; CHECK:       [[LEFT:%[\w.]+]] = icmp ult i64 [[USED]], 8
; CHECK-NEXT:  br i1 [[LEFT]], label %[[JOIN:[\w.]+]], label %[[RELOAD:[\w.]+]]
; CHECK:       [[RELOAD]]:
; CHECK:       ptrtoint <8 x ptr> {{%[\w.]+}} to <8 x i64>
; CHECK:       and <8 x i64> {{%[\w.]+}}, splat (i64 4095)
; CHECK:       icmp {{.*}}ugt <8 x i64> {{%[\w.]+}}, splat (i64 4088)
; CHECK:       br i1 {{%[\w.]+}}, label %[[WINDOW:[\w.]+]], label %[[BYTES:[\w.]+]]
; CHECK:       [[WINDOW]]:
; CHECK:       load i64, ptr {{%[\w.]+}}, align 1
; CHECK:       load i64, ptr {{%[\w.]+}}, align 1
; CHECK:       load i64, ptr {{%[\w.]+}}, align 1
; CHECK:       load i64, ptr {{%[\w.]+}}, align 1
; CHECK:       load i64, ptr {{%[\w.]+}}, align 1
; CHECK:       load i64, ptr {{%[\w.]+}}, align 1
; CHECK:       load i64, ptr {{%[\w.]+}}, align 1
; CHECK:       load i64, ptr {{%[\w.]+}}, align 1
; CHECK:       [[BYTES]]:
; CHECK-NOT:   phi
; CHECK:       load i8, ptr {{%[\w.]+}}, align 1
; CHECK:       load i8, ptr {{%[\w.]+}}, align 1
; CHECK:       load i8, ptr {{%[\w.]+}}, align 1
; CHECK:       load i8, ptr {{%[\w.]+}}, align 1
; CHECK:       load i8, ptr {{%[\w.]+}}, align 1
; CHECK:       load i8, ptr {{%[\w.]+}}, align 1
; CHECK:       load i8, ptr {{%[\w.]+}}, align 1
; CHECK:       load i8, ptr {{%[\w.]+}}, align 1
; CHECK:       [[JOIN]]:
; CHECK-NEXT:  phi <8 x i64> [ {{%[\w.]+}}, %loop ], [ {{%[\w.]+}}, %[[WINDOW]] ], [ {{%[\w.]+}}, %[[BYTES]] ]
; CHECK:       lshr <8 x i64> {{%[\w.]+}}, splat (i64 8)
; CHECK-NOT:   gather
; SHAPES:      each lane reads 8 bytes once every 8 iterations
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
