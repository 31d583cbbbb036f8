; The same loop on a target with mask registers (znver4). A compare of other 64-bit values stays
; 64-bit there (it writes a mask register directly), but the loop counter's exit compare is narrowed
; and the clamped counter carried as a 32-bit vector phi, stepped by an add and a select on the scalar
; counter's compare with 2^31 (CounterBroadcasts.runClamped): one 32-bit compare of a vector register
; per iteration instead of a broadcast of the counter and two 64-bit compares and a mask concatenation
; (strhash W16/AVX-512 ~1.35x faster, issue 16, eleventh round). With
; -Dpacketizer.narrowCounterCompares=false the 64-bit compare stays: narrow-64bit-compare-avx512-knob-off.ll.
; RUN: packetize -f f -w 16 --params uv --target-cpu=znver4 --remarks
; CHECK-LABEL: define <16 x i32> @f_simd16(ptr %s, <16 x i32> %len)
; CHECK:       body:
; CHECK-NEXT:  [[C:%[a-z0-9.]+]] = phi <16 x i32> [ zeroinitializer, %entry ], [ [[N:%[a-z0-9.]+]], %body ]
; CHECK:       %iv.next = add nuw nsw i64 %{{[a-z0-9.]+}}, 1
; CHECK-NEXT:  [[S:%[a-z0-9.]+]] = add <16 x i32> [[C]], splat (i32 1)
; CHECK-NEXT:  [[U:%[a-z0-9.]+]] = icmp ult i64 %iv.next, 2147483649
; CHECK-NEXT:  [[N]] = select i1 [[U]], <16 x i32> [[S]], <16 x i32> splat (i32 -2147483648)
; CHECK-NEXT:  icmp eq <16 x i32> [[N]], %len
; CHECK-NOT:   icmp {{.*}} <16 x i64>
; CHECK-NOT:   call <16 x i32> @llvm.umin
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
