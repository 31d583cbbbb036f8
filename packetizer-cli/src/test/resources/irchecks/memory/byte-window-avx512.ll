; The byte loop of byte-window.ll at W16 on znver4 (AVX-512), where byte windows are on by default: the
; 16 per-lane byte loads of every iteration become 16 loads of 8 bytes every 8 iterations, behind the
; test of the bytes used, and a shift of the <16 x i64> windows per iteration. No byte gather (the reload from
; inside the pages near a page's end gathers 8-byte windows: byte-window-page-end-gather.ll).
; RUN: packetize -f f -w 16 --params uvv --target-cpu=znver4 --remarks
; CHECK-LABEL: define <16 x i32> @f_simd16(ptr %s, <16 x i32> %start, <16 x i32> %len)
; CHECK:       loop:
; CHECK:       [[USED:%[\w.]+]] = phi i64 [ 8, %{{[\w.]+}} ], [ {{%[\w.]+}}, %{{[\w.]+}} ]
; CHECK:       [[LEFT:%[\w.]+]] = icmp ult i64 [[USED]], 8
; CHECK-NEXT:  br i1 [[LEFT]], label %[[JOIN:[\w.]+]], label %[[RELOAD:[\w.]+]]
; CHECK:       [[RELOAD]]:
; CHECK:       and <16 x i64> {{%[\w.]+}}, splat (i64 4095)
; CHECK:       load i64, ptr {{%[\w.]+}}, align 1
; CHECK:       load i64, ptr {{%[\w.]+}}, align 1
; CHECK:       load i64, ptr {{%[\w.]+}}, align 1
; CHECK:       load i64, ptr {{%[\w.]+}}, align 1
; CHECK:       load i64, ptr {{%[\w.]+}}, align 1
; CHECK:       load i64, ptr {{%[\w.]+}}, align 1
; CHECK:       load i64, ptr {{%[\w.]+}}, align 1
; CHECK:       load i64, ptr {{%[\w.]+}}, align 1
; CHECK:       load i64, ptr {{%[\w.]+}}, align 1
; CHECK:       load i64, ptr {{%[\w.]+}}, align 1
; CHECK:       load i64, ptr {{%[\w.]+}}, align 1
; CHECK:       load i64, ptr {{%[\w.]+}}, align 1
; CHECK:       load i64, ptr {{%[\w.]+}}, align 1
; CHECK:       load i64, ptr {{%[\w.]+}}, align 1
; CHECK:       load i64, ptr {{%[\w.]+}}, align 1
; CHECK:       load i64, ptr {{%[\w.]+}}, align 1
; CHECK:       [[JOIN]]:
; CHECK:       lshr <16 x i64>
; CHECK-NOT:   masked.gather.v16i8
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
