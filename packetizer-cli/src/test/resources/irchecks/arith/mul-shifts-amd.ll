; The twin of mul-shifts-intel.ll on AMD (znver3: vpmulld 3 cycles, so shifts and adds of depth 4 would lengthen the
; recurrence): the multiply by FNV-1a's prime stays, and no remark about it.
; RUN: packetize -f fnv -w 8 --params vv --target-cpu=znver3 --remarks
; CHECK-LABEL: define <8 x i32> @fnv_simd8(
; CHECK:       loop:
; CHECK:       [[X:%x0[a-z0-9.]*]] = xor <8 x i32>
; CHECK-NEXT:  {{%h0[0-9]*}} = mul <8 x i32> [[X]], splat (i32 16777619)
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
  %h = phi i32 [ -2128831035, %entry ], [ %h3, %loop ]
  %k = add i32 %key, %i
  %b0 = and i32 %k, 255
  %x0 = xor i32 %h, %b0
  %h0 = mul i32 %x0, 16777619
  %k1 = lshr i32 %k, 8
  %b1 = and i32 %k1, 255
  %x1 = xor i32 %h0, %b1
  %h1 = mul i32 %x1, 16777619
  %k2 = lshr i32 %k, 16
  %b2 = and i32 %k2, 255
  %x2 = xor i32 %h1, %b2
  %h2 = mul i32 %x2, 16777619
  %b3 = lshr i32 %k, 24
  %x3 = xor i32 %h2, %b3
  %h3 = mul i32 %x3, 16777619
  %i.next = add nuw nsw i32 %i, 1
  %more = icmp slt i32 %i.next, %n
  br i1 %more, label %loop, label %exit
exit:
  %r = phi i32 [ -2128831035, %entry ], [ %h3, %loop ]
  ret i32 %r
}
