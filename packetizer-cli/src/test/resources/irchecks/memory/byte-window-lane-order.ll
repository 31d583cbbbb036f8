; The byte loop of byte-window.ll at W8 on haswell, where byte windows are on by default (from W8) and
; the target's vector registers hold 32 bytes. Two things keep the loop's common path short:
; - the windows are shifted by a byte in every iteration (a constant shift carried by the loop in the
;   windows' variable) and each iteration takes the lowest byte, instead of a shift by 8 x the bytes
;   used, which needed the count moved into a vector register first;
; - lane k's window is kept at position 0 1 4 5 2 3 6 7 (per 8 lanes), so that the low dwords of the
;   two 4 x i64 registers, taken in their in-lane order (one vshufps), come out in lane order: the
;   shufflevector of the windows as 16 dwords picks dwords 0 2 8 10 4 6 12 14. In lane order the
;   narrowing is two cross-lane permutes and an insert per iteration.
; The per-lane path near a page end inserts its bytes at the same positions.
; RUN: packetize -f f -w 8 --params uvv --target-cpu=haswell --remarks
; CHECK-LABEL: define <8 x i32> @f_simd8(ptr %s, <8 x i32> %start, <8 x i32> %len)
; CHECK:       loop:
; CHECK:       [[WIN:%[\w.]+]] = phi <8 x i64> [ poison, %{{[\w.]+}} ], [ [[NEXT:%[\w.]+]], %[[JOIN:[\w.]+]] ]
; CHECK:       [[USED:%[\w.]+]] = phi i64 [ 8, %{{[\w.]+}} ], [ {{%[\w.]+}}, %[[JOIN]] ]
; CHECK:       icmp ult i64 [[USED]], 8
; CHECK:       extractelement <8 x ptr> {{%[\w.]+}}, i64 2
; CHECK:       [[L2:%[\w.]+]] = load i64, ptr {{%[\w.]+}}, align 1
; CHECK:       extractelement <8 x ptr> {{%[\w.]+}}, i64 4
; CHECK:       [[L4:%[\w.]+]] = load i64, ptr {{%[\w.]+}}, align 1
; CHECK-NEXT:  insertelement <8 x i64> {{%[\w.]+}}, i64 [[L4]], i64 2
; CHECK:       insertelement <8 x i64> {{%[\w.]+}}, i64 [[L2]], i64 4
; CHECK:       [[JOIN]]:
; CHECK-NEXT:  [[CUR:%[\w.]+]] = phi <8 x i64> [ [[WIN]], %loop ]
; CHECK:       [[DW:%[\w.]+]] = bitcast <8 x i64> [[CUR]] to <16 x i32>
; CHECK-NEXT:  shufflevector <16 x i32> [[DW]], <16 x i32> poison, <8 x i32> <i32 0, i32 2, i32 8, i32 10, i32 4, i32 6, i32 12, i32 14>
; CHECK:       [[NEXT]] = lshr <8 x i64> [[CUR]], splat (i64 8)
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
