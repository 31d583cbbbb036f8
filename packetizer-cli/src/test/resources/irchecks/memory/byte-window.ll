; (The rare path checked here is -Dpacketizer.byteWindows.slowLanes=loop, the default of the fourteenth to the
; eighteenth round; since the nineteenth, byte-window-page-end.ll checks the default, which has no rare path.)
; A byte loop with per-lane start and length (s[start + k], k < len: FNV-1a), at W8 on haswell: the
; address advances by one byte per iteration (a loop-invariant varying root plus the loop's counter k
; stepped by one) in the loop's header, and the loop writes no memory. Each lane reads 8 bytes from
; its address (one unaligned i64 load) once every 8 iterations; every iteration takes the windows'
; lowest byte, and the windows are shifted by a byte for the next one. The bytes used are a loop
; variable, 8 on entry (the first iteration reloads). A reload tests the active lanes' page offsets first: a lane within 8 bytes
; of its page's end would read into the next page, so that iteration loads its bytes one per lane
; instead, as before, in a loop over the active lanes (cttz of the lanes left, an extractelement of
; the lane's address and an insertelement of its byte at a variable index, in the lane order's
; position: the rare path costs a few instructions, not W loads; byte-window-unrolled-bytes.ll checks
; the knob's unrolled form). Inactive lanes read the private dummy slot in the window path and get 0
; in the loop. The loop over the lanes is not aligned, and the hot loop around it keeps its 64-byte
; alignment (LoopAlign.COLD_LANE_LOOP: without the mark it would no longer count as innermost). On by
; default from W8
; (byte-window-lane-order.ll checks the W8 lane order, byte-window-avx512.ll W16); the knob here
; keeps this check about the route itself.
; SET: packetizer.byteWindows=true
; SET: packetizer.byteWindows.slowLanes=loop
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
; CHECK:       br i1 {{%[\w.]+}}, label %[[WINDOW:[\w.]+]], label %[[LANE:[\w.]+]]
; CHECK:       [[WINDOW]]:
; CHECK:       load i64, ptr {{%[\w.]+}}, align 1
; CHECK:       load i64, ptr {{%[\w.]+}}, align 1
; CHECK:       load i64, ptr {{%[\w.]+}}, align 1
; CHECK:       load i64, ptr {{%[\w.]+}}, align 1
; CHECK:       load i64, ptr {{%[\w.]+}}, align 1
; CHECK:       load i64, ptr {{%[\w.]+}}, align 1
; CHECK:       load i64, ptr {{%[\w.]+}}, align 1
; CHECK:       load i64, ptr {{%[\w.]+}}, align 1
; CHECK:       [[LANE]]:
; CHECK-NEXT:  [[LEFT:%[\w.]+]] = phi i8 [ [[LEFT1:%[\w.]+]], %[[LANE]] ], [ {{%[\w.]+}}, %[[RELOAD]] ]
; CHECK-NEXT:  [[ACC:%[\w.]+]] = phi <8 x i8> [ [[ACC1:%[\w.]+]], %[[LANE]] ], [ zeroinitializer, %[[RELOAD]] ]
; CHECK-NEXT:  [[K:%[\w.]+]] = call {{.*}}i8 @llvm.cttz.i8(i8 [[LEFT]], i1 true)
; CHECK-NEXT:  [[K32:%[\w.]+]] = zext {{.*}}i8 [[K]] to i32
; CHECK-NEXT:  [[P:%[\w.]+]] = extractelement <8 x ptr> {{%[\w.]+}}, i32 [[K32]]
; CHECK-NEXT:  and i32 [[K32]], 1
; CHECK-NEXT:  shl {{.*}}i32 [[K32]], 1
; CHECK:       lshr i32 [[K32]], 1
; CHECK:       [[BYTE:%[\w.]+]] = load i8, ptr [[P]], align 1
; CHECK-NEXT:  [[ACC1]] = insertelement <8 x i8> [[ACC]], i8 [[BYTE]], i32 {{%[\w.]+}}
; CHECK-NEXT:  [[DEC:%[\w.]+]] = add i8 [[LEFT]], -1
; CHECK-NEXT:  [[LEFT1]] = and i8 [[LEFT]], [[DEC]]
; CHECK-NEXT:  [[NONE:%[\w.]+]] = icmp eq i8 [[LEFT1]], 0
; CHECK-NEXT:  br i1 [[NONE]], label %[[DONE:[\w.]+]], label %[[LANE]]
; CHECK-NOT:   llvm.loop
; CHECK:       [[DONE]]:
; CHECK-NEXT:  zext <8 x i8> [[ACC1]] to <8 x i64>
; CHECK-NOT:   load i8
; CHECK:       [[JOIN]]:
; CHECK-NEXT:  phi <8 x i64> [ {{%[\w.]+}}, %loop ], [ {{%[\w.]+}}, %[[WINDOW]] ], [ {{%[\w.]+}}, %[[DONE]] ]
; CHECK:       lshr <8 x i64> {{%[\w.]+}}, splat (i64 8)
; CHECK-NOT:   gather
; CHECK:       br i1 {{%[\w.]+}}, label %{{[\w.]+}}, label %loop, !llvm.loop [[ID:![0-9]+]]
; CHECK:       [[ID]] = distinct !{[[ID]], [[ALIGN:![0-9]+]]}
; CHECK-NEXT:  [[ALIGN]] = !{!"llvm.loop.align", i32 64}
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
