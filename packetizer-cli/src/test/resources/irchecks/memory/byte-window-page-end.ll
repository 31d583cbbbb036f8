; byte-window.ll's byte loop at W8 on haswell with the page-end form of the reload
; (-Dpacketizer.byteWindows.slowLanes=shifted, the default since issue 16's nineteenth round). A reload with
; no active lane within 8 bytes of its page's end loads the windows as before; otherwise, instead of a rare
; path that loads that iteration's bytes one per lane (byte-window.ll's loop, byte-window-unrolled-bytes.ll),
; every lane loads its 8 bytes from its address moved back by d = max(0, offset in page - 4088) (usub.sat;
; inactive lanes d = 0 and the dummy slot), so the read ends at or before its page's last byte, and its window
; is shifted right by 8 d bits (the shifts in the windows' lane order 0 1 4 5 2 3 6 7, as the windows). The
; bytes used after that reload start at 1 + the active lanes' largest d (reduce.umax), so the next reload comes
; when that lane's window runs out. No loop over the lanes and no byte load.
; SET: packetizer.byteWindows=true
; RUN: packetize -f f -w 8 --params uvv --target-cpu=haswell --remarks
; CHECK-LABEL: define <8 x i32> @f_simd8(ptr %s, <8 x i32> %start, <8 x i32> %len)
; CHECK:       loop:
; CHECK:       [[USED:%[\w.]+]] = phi i64 [ 8, %{{[\w.]+}} ], [ {{%[\w.]+}}, %{{[\w.]+}} ]
; CHECK:       [[P:%[\w.]+]] = getelementptr inbounds i8, <8 x ptr> %base, i64 {{%[\w.]+}}
; CHECK:       [[LEFT:%[\w.]+]] = icmp ult i64 [[USED]], 8
; CHECK-NEXT:  br i1 [[LEFT]], label %[[JOIN:[\w.]+]], label %[[RELOAD:[\w.]+]]
; CHECK:       [[RELOAD]]:
; CHECK:       [[OFF:%[\w.]+]] = and <8 x i64> {{%[\w.]+}}, splat (i64 4095)
; CHECK:       icmp {{.*}}ugt <8 x i64> [[OFF]], splat (i64 4088)
; CHECK:       br i1 {{%[\w.]+}}, label %[[WINDOW:[\w.]+]], label %[[INPAGE:[\w.]+]]
; CHECK:       [[WINDOW]]:
; CHECK:       load i64, ptr {{%[\w.]+}}, align 1
; CHECK:       load i64, ptr {{%[\w.]+}}, align 1
; CHECK:       load i64, ptr {{%[\w.]+}}, align 1
; CHECK:       load i64, ptr {{%[\w.]+}}, align 1
; CHECK:       load i64, ptr {{%[\w.]+}}, align 1
; CHECK:       load i64, ptr {{%[\w.]+}}, align 1
; CHECK:       load i64, ptr {{%[\w.]+}}, align 1
; CHECK:       load i64, ptr {{%[\w.]+}}, align 1
; CHECK:       br label %[[JOIN]]
; CHECK:       [[INPAGE]]:
; CHECK-NEXT:  [[BACK:%[\w.]+]] = call <8 x i64> @llvm.usub.sat.v8i64(<8 x i64> [[OFF]], <8 x i64> splat (i64 4088))
; CHECK:       [[D:%[\w.]+]] = select <8 x i1> {{%[\w.]+}}, <8 x i64> [[BACK]], <8 x i64> zeroinitializer
; CHECK-NEXT:  [[NEG:%[\w.]+]] = sub {{.*}}<8 x i64> zeroinitializer, [[D]]
; CHECK-NEXT:  [[CL:%[\w.]+]] = getelementptr i8, <8 x ptr> [[P]], <8 x i64> [[NEG]]
; CHECK-NEXT:  extractelement <8 x ptr> [[CL]], i64 0
; CHECK:       load i64, ptr {{%[\w.]+}}, align 1
; CHECK:       load i64, ptr {{%[\w.]+}}, align 1
; CHECK:       load i64, ptr {{%[\w.]+}}, align 1
; CHECK:       load i64, ptr {{%[\w.]+}}, align 1
; CHECK:       load i64, ptr {{%[\w.]+}}, align 1
; CHECK:       load i64, ptr {{%[\w.]+}}, align 1
; CHECK:       load i64, ptr {{%[\w.]+}}, align 1
; CHECK:       load i64, ptr {{%[\w.]+}}, align 1
; CHECK:       [[BITS:%[\w.]+]] = shl {{.*}}<8 x i64> [[D]], splat (i64 3)
; CHECK-NEXT:  [[ORD:%[\w.]+]] = shufflevector <8 x i64> [[BITS]], <8 x i64> poison, <8 x i32> <i32 0, i32 1, i32 4, i32 5, i32 2, i32 3, i32 6, i32 7>
; CHECK-NEXT:  [[SHIFTED:%[\w.]+]] = lshr <8 x i64> {{%[\w.]+}}, [[ORD]]
; CHECK-NEXT:  [[D8:%[\w.]+]] = trunc {{.*}}<8 x i64> [[D]] to <8 x i8>
; CHECK-NEXT:  [[MOST:%[\w.]+]] = call i8 @llvm.vector.reduce.umax.v8i8(<8 x i8> [[D8]])
; CHECK-NEXT:  [[START8:%[\w.]+]] = add {{.*}}i8 [[MOST]], 1
; CHECK-NEXT:  [[START:%[\w.]+]] = zext {{.*}}i8 [[START8]] to i64
; CHECK-NEXT:  br label %[[JOIN]]
; CHECK:       [[JOIN]]:
; CHECK-NEXT:  phi <8 x i64> [ {{%[\w.]+}}, %loop ], [ {{%[\w.]+}}, %[[WINDOW]] ], [ [[SHIFTED]], %[[INPAGE]] ]
; CHECK-NEXT:  phi i64 [ {{%[\w.]+}}, %loop ], [ 1, %[[WINDOW]] ], [ [[START]], %[[INPAGE]] ]
; CHECK:       lshr <8 x i64> {{%[\w.]+}}, splat (i64 8)
; CHECK-NOT:   llvm.cttz
; CHECK-NOT:   load i8
; SHAPES:      reads the page's last 8 bytes, shifted
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
