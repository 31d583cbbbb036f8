; byte-window-page-end.ll's reload from inside the pages at W16 on znver4, where gathers stay gather instructions
; (-Dpacketizer.byteWindows.inPage=auto, the default): the lanes' clamped addresses (each moved back by
; d = max(0, offset in page - 4088), inactive lanes d = 0) are one masked gather of 8 bytes per active lane instead
; of 16 extractions and loads; its result is shifted right by 8 d bits, and the bytes used restart at 1 + the
; largest d. The plain reload (no lane near its page's end) keeps its 16 loads.
; RUN: packetize -f f -w 16 --params uvv --target-cpu=znver4 --remarks
; CHECK-LABEL: define <16 x i32> @f_simd16(ptr %s, <16 x i32> %start, <16 x i32> %len)
; CHECK:       [[P:%[\w.]+]] = getelementptr inbounds i8, <16 x ptr> %base, i64 {{%[\w.]+}}
; CHECK:       [[OFF:%[\w.]+]] = and <16 x i64> {{%[\w.]+}}, splat (i64 4095)
; CHECK:       icmp {{.*}}ugt <16 x i64> [[OFF]], splat (i64 4088)
; CHECK:       br i1 {{%[\w.]+}}, label %[[WINDOW:[\w.]+]], label %[[INPAGE:[\w.]+]]
; CHECK:       [[WINDOW]]:
; CHECK:       load i64, ptr {{%[\w.]+}}, align 1
; CHECK:       [[INPAGE]]:
; CHECK-NEXT:  [[BACK:%[\w.]+]] = call <16 x i64> @llvm.usub.sat.v16i64(<16 x i64> [[OFF]], <16 x i64> splat (i64 4088))
; CHECK-NEXT:  [[D:%[\w.]+]] = select <16 x i1> [[M:%[\w.]+]], <16 x i64> [[BACK]], <16 x i64> zeroinitializer
; CHECK-NEXT:  [[NEG:%[\w.]+]] = sub {{.*}}<16 x i64> zeroinitializer, [[D]]
; CHECK-NEXT:  [[CL:%[\w.]+]] = getelementptr i8, <16 x ptr> [[P]], <16 x i64> [[NEG]]
; CHECK-NEXT:  [[G:%[\w.]+]] = call <16 x i64> @llvm.masked.gather.v16i64.v16p0(<16 x ptr> [[CL]], i32 1, <16 x i1> [[M]], <16 x i64> zeroinitializer)
; CHECK-NEXT:  [[BITS:%[\w.]+]] = shl {{.*}}<16 x i64> [[D]], splat (i64 3)
; CHECK-NEXT:  [[SHIFTED:%[\w.]+]] = lshr <16 x i64> [[G]], [[BITS]]
; CHECK-NEXT:  [[D8:%[\w.]+]] = trunc {{.*}}<16 x i64> [[D]] to <16 x i8>
; CHECK-NEXT:  [[MOST:%[\w.]+]] = call i8 @llvm.vector.reduce.umax.v16i8(<16 x i8> [[D8]])
; CHECK-NEXT:  [[START8:%[\w.]+]] = add {{.*}}i8 [[MOST]], 1
; CHECK-NEXT:  [[START:%[\w.]+]] = zext {{.*}}i8 [[START8]] to i64
; CHECK-NEXT:  br label %[[JOIN:[\w.]+]]
; CHECK:       [[JOIN]]:
; CHECK-NEXT:  phi <16 x i64> [ {{%[\w.]+}}, %loop ], [ {{%[\w.]+}}, %[[WINDOW]] ], [ [[SHIFTED]], %[[INPAGE]] ]
; CHECK-NEXT:  phi i64 [ {{%[\w.]+}}, %loop ], [ 1, %[[WINDOW]] ], [ [[START]], %[[INPAGE]] ]
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
