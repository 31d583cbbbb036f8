; A byte-hash loop (FNV-1a over s[start .. start+len), then a finaliser) through the refill driver at W16 on AVX-512
; (issue 17, eighteenth round): the refill iteration keeps the loop with a uniform budget of 8 iterations
; (-Dpacketizer.refill.iterBudget=auto), so the byte load reads one 8-byte window per lane every 8 iterations
; (16 i64 loads at a reload, a shift by a byte in the other iterations) and the finaliser runs after the inner loop,
; once per driver iteration; the refill blocks count driver iterations of up to 8 loop iterations, so k = sqrt(4T/8)
; (c·IC·W·steps / 8: 64/8, a shift by 3); without the budget the iteration is 16 single-byte loads, selects and inserts, and the
; finaliser, every iteration (refill-byte-windows-knob-off.ll).
; RUN: packetize -f hash -w 16 --params uvv --array-driver --refill --remarks
; SHAPES: each iteration of the driver runs up to 8 iterations of the loop
; CHECK-LABEL: define void @hash_map(ptr %s, ptr %start, ptr %len, ptr %out, i64 %n)
; CHECK:       run.check:
; CHECK:       shl i64 %iterations, 3
; CHECK-NEXT:  %block.budget.steps{{[0-9]*}} = and i64
; CHECK:       iterate:
; CHECK:       br label %loop.i
; CHECK:       loop.i:
; CHECK:       %budget.count{{[0-9]*}}.i = phi i32 [ %budget.next.i, %at.loop.from.loop.stay.i ], [ 0, %iterate ]
; CHECK:       loop.window.i:
; CHECK:       load i64, ptr
; CHECK:       loop.loaded.i:
; CHECK:       mul <16 x i32> %x.i, splat (i32 16777619)
; CHECK:       icmp samesign ult i32 %budget.count{{[0-9]*}}.i, 7
; CHECK:       %c.window.next.i = lshr <16 x i64> %c.win.i, splat (i64 8)
; CHECK:       br i1 %continue.at.loop.from.loop.not.i, label %done.i, label %loop.i
; CHECK:       done.i:
; CHECK-NEXT:  %a.i = lshr <16 x i32> %h1.lcssa.blend.i, splat (i32 16)
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
