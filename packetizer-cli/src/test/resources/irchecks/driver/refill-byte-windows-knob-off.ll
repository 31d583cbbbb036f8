; The kernel of refill-byte-windows.ll under -Dpacketizer.refill.iterBudget=0 (before the eighteenth round): the
; refill iteration has no loop, so each iteration loads the 16 lanes' bytes one by one (a select of the inactive-lane
; slot, a byte load, an insert per lane), no windows, and runs the finaliser every iteration.
; SET: packetizer.refill.iterBudget=0
; RUN: packetize -f hash -w 16 --params uvv --array-driver --refill --remarks
; SHAPES:     lane refill (--refill) at the loop at %loop
; SHAPES-NOT: iterations of the loop (iter keeps
; CHECK-LABEL: define void @hash_map(ptr %s, ptr %start, ptr %len, ptr %out, i64 %n)
; CHECK:       run.check:
; CHECK:       %block.budget = shl i64 %iterations, 6
; CHECK:       iterate:
; CHECK-NOT:   budget
; CHECK-NOT:   load i64
; CHECK:       load i8, ptr
; CHECK:       %c.i = insertelement <16 x i8>
; CHECK-NOT:   load i64
; CHECK:       mul <16 x i32> %b.i, splat (i32 -2048144789)
; CHECK:       %active.next = select
; CHECK:       ret void
define i32 @hash(ptr readonly %s, i32 %start, i32 %len) #0 {
entry:
  %any = icmp sgt i32 %len, 0
  br i1 %any, label %pre, label %done
pre:
  %off = sext i32 %start to i64
  %n = zext nneg i32 %len to i64
  %base = getelementptr i8, ptr %s, i64 %off
  br label %loop
loop:
  %k = phi i64 [ 0, %pre ], [ %k1, %loop ]
  %h = phi i32 [ -2128831035, %pre ], [ %h1, %loop ]
  %p = getelementptr i8, ptr %base, i64 %k
  %c = load i8, ptr %p, align 1
  %c32 = zext i8 %c to i32
  %x = xor i32 %h, %c32
  %h1 = mul i32 %x, 16777619
  %k1 = add nuw nsw i64 %k, 1
  %end = icmp eq i64 %k1, %n
  br i1 %end, label %done, label %loop
done:
  %hf = phi i32 [ -2128831035, %entry ], [ %h1, %loop ]
  %a = lshr i32 %hf, 16
  %b = xor i32 %a, %hf
  %m = mul i32 %b, -2048144789
  %r = lshr i32 %m, 13
  %y = xor i32 %r, %m
  ret i32 %y
}
attributes #0 = { "target-cpu"="skylake-avx512" "target-features"="+avx512f,+avx512vl,+avx512bw,+avx512dq,+avx2,+avx,+fma,+sse4.2" }
