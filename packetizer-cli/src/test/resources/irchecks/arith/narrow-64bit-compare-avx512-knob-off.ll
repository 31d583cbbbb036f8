; The loop of narrow-64bit-compare-avx512.ll with -Dpacketizer.narrowCounterCompares=false: on a target
; with mask registers (znver4) the 64-bit compare stays (it writes a mask register directly; narrowed
; without the vector counter, LLVM folds it and the loop mask into one masked compare behind the
; counter's broadcast: strhash W16/AVX-512 1.63x -> 1.47x over scalar, fourth round).
; SET: packetizer.narrowCounterCompares=false
; RUN: packetize -f f -w 16 --params uv --target-cpu=znver4 --remarks
; CHECK-LABEL: define <16 x i32> @f_simd16(ptr %s, <16 x i32> %len)
; CHECK:       icmp eq <16 x i64>
; CHECK-NOT:   umin
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
