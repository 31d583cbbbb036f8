; Four multiplies by FNV-1a's prime on the loop-carried hash (a key's four bytes per iteration, as clang unrolls the
; byte loop) (issue 16, twenty-second round: widen.MulShifts): on Intel
; (haswell: vpmulld 10 cycles) the vector multiply becomes shifts and adds of depth 4, h*3 shared (x + x<<1, then
; its <<7), x<<4, x<<24, and no multiply is left in the loop; the remark names the multiply, the constant, the depth
; against the latency and the CPU. The AMD twin (znver3: multiply 3 cycles, kept): mul-shifts-amd.ll.
; RUN: packetize -f fnv -w 8 --params vv --target-cpu=haswell --remarks
; CHECK-LABEL: define <8 x i32> @fnv_simd8(
; CHECK:       loop:
; CHECK-NOT:   mul <8 x i32>
; CHECK:       [[X:%x0[a-z0-9.]*]] = xor <8 x i32>
; CHECK-NEXT:  [[S1:%[a-z0-9.]+]] = shl <8 x i32> [[X]], splat (i32 1)
; CHECK-NEXT:  [[T:%[a-z0-9.]+]] = add <8 x i32> [[X]], [[S1]]
; CHECK-NEXT:  [[T7:%[a-z0-9.]+]] = shl <8 x i32> [[T]], splat (i32 7)
; CHECK-NEXT:  [[S4:%[a-z0-9.]+]] = shl <8 x i32> [[X]], splat (i32 4)
; CHECK-NEXT:  [[S24:%[a-z0-9.]+]] = shl <8 x i32> [[X]], splat (i32 24)
; CHECK-NEXT:  [[A:%[a-z0-9.]+]] = add <8 x i32> [[S4]], [[S24]]
; CHECK-NEXT:  [[B:%[a-z0-9.]+]] = add <8 x i32> [[T]], [[A]]
; CHECK-NEXT:  {{%[a-z0-9.]+}} = add <8 x i32> [[T7]], [[B]]
; CHECK-NOT:   mul <8 x i32>
; CHECK:       ret <8 x i32>
; SHAPES:      note: multiply by a constant as shifts and adds: %h0 = mul <8 x i32> %x0, splat (i32 16777619) (x * 16777619 = 0x1000193, 32-bit) in 8 shifts/adds/subtracts of depth 4 cycles against the multiply's 10 on haswell (intel family), on a loop-carried recurrence
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
