; A loop whose trip count differs per lane, as clang -O2 emits `for (int k = 0; k < len; ++k)`: a
; uniform 64-bit induction variable compared with zext nneg of the lane's 32-bit length. On a
; target without mask registers (haswell) the compare is done in 32 bits against the counter clamped
; to 2^31 (one <8 x i32> compare instead of two <4 x i64> ones and a pack); with mask registers
; (integer-masks/avx512 targets) it stays 64-bit: narrow-64bit-compare-avx512.ll.
; The clamped counter, trunc(umin(iv.next, 2^31)) broadcast to every lane, is then carried as a
; vector phi stepped by add and umin on the vector (CounterBroadcasts): no scalar clamp, move and
; broadcast in the loop (-Dpacketizer.vectorCounters=false keeps them).
; RUN: packetize -f f -w 8 --params uv --target-cpu=haswell --remarks
; CHECK-LABEL: define <8 x i32> @f_simd8(ptr %s, <8 x i32> %len)
; CHECK:       body:
; CHECK-NEXT:  [[C:%[a-z0-9.]+]] = phi <8 x i32> [ zeroinitializer, %entry ], [ [[N:%[a-z0-9.]+]], %body ]
; CHECK-NOT:   @llvm.umin.i64
; CHECK:       [[S:%[a-z0-9.]+]] = add <8 x i32> [[C]], splat (i32 1)
; CHECK-NEXT:  [[N]] = call <8 x i32> @llvm.umin.v8i32(<8 x i32> [[S]], <8 x i32> splat (i32 -2147483648))
; CHECK-NEXT:  icmp eq <8 x i32> [[N]], %len
; CHECK-NOT:   icmp {{.*}} <8 x i64>
; SHAPES:      compare of 64-bit values done in 32 bits: %n is the non-negative extension of a 32-bit value and %iv.next is uniform (clamped to 2^31)
define i32 @f(ptr %s, i32 %len) {
entry:
  %pos = icmp sgt i32 %len, 0
  br i1 %pos, label %pre, label %exit
pre:
  %n = zext nneg i32 %len to i64
  br label %body
body:
  %iv = phi i64 [ 0, %pre ], [ %iv.next, %body ]
  %h = phi i32 [ 5381, %pre ], [ %h.next, %body ]
  %p = getelementptr inbounds i8, ptr %s, i64 %iv
  %c = load i8, ptr %p, align 1
  %cz = zext i8 %c to i32
  %h33 = mul i32 %h, 33
  %h.next = xor i32 %h33, %cz
  %iv.next = add nuw nsw i64 %iv, 1
  %done = icmp eq i64 %iv.next, %n
  br i1 %done, label %exit, label %body
exit:
  %r = phi i32 [ 0, %entry ], [ %h.next, %body ]
  ret i32 %r
}
