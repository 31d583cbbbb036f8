; The twin of mul-shifts-intel.ll on AMD (znver3: vpmulld 3 cycles, so shifts and adds of depth 4 would lengthen the
; recurrence): the multiply by FNV-1a's prime stays, and no remark about it.
; RUN: packetize -f fnv -w 8 --params vv --target-cpu=znver3 --remarks
; CHECK-LABEL: define <8 x i32> @fnv_simd8(
; CHECK:       loop:
; CHECK:       [[X:%[a-z0-9.]+]] = xor <8 x i32>
; CHECK-NEXT:  %h.next = mul <8 x i32> [[X]], splat (i32 16777619)
; CHECK-NOT:   shl <8 x i32>
; CHECK:       ret <8 x i32>
; SHAPES:      @fnv -> @fnv_simd8 (width 8
; SHAPES-NOT:  multiply by a constant
define i32 @fnv(i32 %key, i32 %n) {
entry:
  %none = icmp sle i32 %n, 0
  br i1 %none, label %exit, label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]
  %h = phi i32 [ -2128831035, %entry ], [ %h.next, %loop ]
  %sh = and i32 %i, 24
  %k = lshr i32 %key, %sh
  %b = and i32 %k, 255
  %x = xor i32 %h, %b
  %h.next = mul i32 %x, 16777619
  %i.next = add nuw nsw i32 %i, 1
  %more = icmp slt i32 %i.next, %n
  br i1 %more, label %loop, label %exit
exit:
  %r = phi i32 [ -2128831035, %entry ], [ %h.next, %loop ]
  ret i32 %r
}
