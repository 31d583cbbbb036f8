; Dynamic variants whose root is a uniform base plus narrow offsets (issue 16, sixteenth round): c is
; g + sext(y*24) + sext(x), two 32-bit offsets from the uniform g. On AVX-512 (64-byte registers: the
; default -Dpacketizer.dynamicVariants.offsets=auto) the all-equal test compares those offsets' lanes
; (one <16 x i32> compare each) instead of the 64-bit pointers, and the first lane's pointer is rebuilt
; from g and the two offsets' first lanes, so the <16 x ptr> vector is used only where the test fails
; (the consecutive test, on the pointers as before and behind their scalar pre-test, and the per-lane
; loads): LLVM builds it there. Knob-off twin: dynamic-variants-offsets-off.ll. The two-valued variant
; (default on here) is off in this file, so that it shows the shape without it; dynamic-variants-two.ll
; has it (and this file is its knob-off twin).
; RUN: packetize -f f -w 16 --params uvv --target-cpu=znver4 --remarks
; SET: packetizer.dynamicVariants.twoValued=false
; CHECK-LABEL: define <16 x float> @f_simd16(ptr %g, <16 x i32> %x, <16 x i32> %y)
; CHECK-NOT:   .dyntest
; CHECK:       %dyn.off = extractelement <16 x i32> %row, i64 0
; CHECK:       %dyn.off{{[0-9]+}} = extractelement <16 x i32> %x, i64 0
; CHECK:       %dyn.ptr = getelementptr float, ptr
; CHECK:       icmp ne <16 x i32> %row,
; CHECK:       icmp ne <16 x i32> %x,
; CHECK-NOT:   extractelement <16 x ptr>
; CHECK:       br i1 %dyn.same, label %entry1.same, label %entry1.notsame
; CHECK:       entry1.same:
; CHECK-NEXT:  load float, ptr %dyn.ptr
; CHECK:       entry1.notsame:
; CHECK-NEXT:  %dyn.lane = ptrtoint ptr %dyn.ptr to i64
; CHECK-NEXT:  extractelement <16 x ptr> %c, i64 15
; CHECK:       %dyn.span = sub i64
; CHECK-NEXT:  %dyn.candidate = icmp eq i64 %dyn.span, 60
; CHECK-NEXT:  br i1 %dyn.candidate, label %entry1.consecutivetest, label %entry1.lanes
; CHECK:       entry1.consecutivetest:
; CHECK-NEXT:  %dyn.lanes = ptrtoint <16 x ptr> %c to <16 x i64>
; CHECK:       .consecutive:
; CHECK:       load <16 x float>, ptr %dyn.ptr
; CHECK:       .lanes:
; CHECK:       .dyn:
; CHECK-NEXT:  phi <16 x float>
; SHAPES:      remark: f:entry: memory: dynamic variants for the 4 loads at constant offsets from %c: one run-time test of its lanes (all equal: its 2 varying offset(s) of at most 32 bits from a uniform base compared, not the 64-bit pointers)
; SHAPES-SAME: all equal -> 4 scalar loads and broadcasts; consecutive (stride 4 bytes) -> 4 vector loads; otherwise
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
