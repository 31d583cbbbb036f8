; Dynamic variants whose root is a uniform base plus narrow offsets (issue 16, sixteenth round): c is
; g + sext(y*24) + sext(x), two 32-bit offsets from the uniform g. The all-equal test compares those
; offsets' lanes (one <8 x i32> compare each) instead of the 64-bit pointers, and the first lane's
; pointer is rebuilt from g and the two offsets' first lanes, so the <8 x ptr> vector is used only
; where the test fails (the consecutive test, on the pointers as before, and the per-lane loads):
; LLVM builds it there. The scalar pre-test on the first and last lanes' pointers (difference 7*4
; bytes) now guards only the consecutive test. Knob-off twin: dynamic-variants.ll.
; RUN: packetize -f f -w 8 --params uvv --target-cpu=haswell --remarks
; CHECK-LABEL: define <8 x float> @f_simd8(ptr %g, <8 x i32> %x, <8 x i32> %y)
; CHECK-NOT:   .dyntest
; CHECK:       %dyn.off = extractelement <8 x i32> %row, i64 0
; CHECK:       %dyn.off{{[0-9]+}} = extractelement <8 x i32> %x, i64 0
; CHECK:       %dyn.ptr = getelementptr float, ptr
; CHECK:       icmp ne <8 x i32> %row,
; CHECK:       icmp ne <8 x i32> %x,
; CHECK-NOT:   extractelement <8 x ptr>
; CHECK:       br i1 %dyn.same, label %entry1.same, label %entry1.notsame
; CHECK:       entry1.same:
; CHECK-NEXT:  load float, ptr %dyn.ptr
; CHECK:       entry1.notsame:
; CHECK-NEXT:  %dyn.lane = ptrtoint ptr %dyn.ptr to i64
; CHECK-NEXT:  extractelement <8 x ptr> %c, i64 7
; CHECK:       %dyn.span = sub i64
; CHECK-NEXT:  %dyn.candidate = icmp eq i64 %dyn.span, 28
; CHECK-NEXT:  br i1 %dyn.candidate, label %entry1.consecutivetest, label %entry1.lanes
; CHECK:       entry1.consecutivetest:
; CHECK-NEXT:  %dyn.lanes = ptrtoint <8 x ptr> %c to <8 x i64>
; CHECK:       <i64 0, i64 4, i64 8, i64 12, i64 16, i64 20, i64 24, i64 28>
; CHECK:       .consecutive:
; CHECK:       load <8 x float>, ptr %dyn.ptr
; CHECK:       .lanes:
; CHECK:       load float, ptr
; CHECK:       .dyn:
; CHECK-NEXT:  phi <8 x float>
; CHECK-NOT:   gather
; SHAPES:      remark: f:entry: memory: dynamic variants for the 4 loads at constant offsets from %c: one run-time test of its lanes (all equal: its 2 varying offset(s) of at most 32 bits from a uniform base compared, not the 64-bit pointers)
; SHAPES-SAME: all equal -> 4 scalar loads and broadcasts; consecutive (stride 4 bytes) -> 4 vector loads
define float @f(ptr %g, i32 %x, i32 %y) {
entry:
  %row = mul nsw i32 %y, 24
  %r64 = sext i32 %row to i64
  %rp = getelementptr inbounds float, ptr %g, i64 %r64
  %x64 = sext i32 %x to i64
  %c = getelementptr inbounds float, ptr %rp, i64 %x64
  %v0 = load float, ptr %c, align 4
  %pl = getelementptr inbounds i8, ptr %c, i64 -4
  %vl = load float, ptr %pl, align 4
  %pr = getelementptr inbounds i8, ptr %c, i64 4
  %vr = load float, ptr %pr, align 4
  %pu = getelementptr inbounds i8, ptr %c, i64 -96
  %vu = load float, ptr %pu, align 4
  %s1 = fadd float %v0, %vl
  %s2 = fadd float %s1, %vr
  %s3 = fadd float %s2, %vu
  ret float %s3
}
