; A multiply by FNV-1a's prime on the loop-carried hash (issue 16, twenty-second round: widen.MulShifts): on Intel
; (haswell: vpmulld 10 cycles) the vector multiply becomes shifts and adds of depth 4, h*3 shared (x + x<<1, then
; its <<7), x<<4, x<<24, and no multiply is left in the loop; the remark names the multiply, the constant, the depth
; against the latency and the CPU. The AMD twin (znver3: multiply 3 cycles, kept): mul-shifts-amd.ll.
; RUN: packetize -f fnv -w 8 --params vv --target-cpu=haswell --remarks
; CHECK-LABEL: define <8 x i32> @fnv_simd8(
; CHECK:       loop:
; CHECK-NOT:   mul <8 x i32>
; CHECK:       [[X:%[a-z0-9.]+]] = xor <8 x i32>
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
; SHAPES:      note: multiply by a constant as shifts and adds: %h.next = mul <8 x i32> %x, splat (i32 16777619) (x * 16777619 = 0x1000193, 32-bit) in 8 shifts/adds/subtracts of depth 4 cycles against the multiply's 10 on haswell (intel family), on a loop-carried recurrence
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
