; Dynamic variants (issue 16): four loads at constant offsets from one per-lane pointer c (a stencil's
; c[0], c[-1], c[1], c[-24]) on haswell at W8 (4 loads x 8 lanes pay for the test) get ONE run-time
; test of c's lanes: a scalar pre-test on the first and last lanes' pointers (difference 0 or 7*4
; bytes), then the vector test; all lanes equal -> four scalar loads and broadcasts; consecutive
; (4-byte stride) -> four vector loads; otherwise the per-lane loads (the path without the variants);
; each load's packet is a phi of the three. The remark names the decision and the cost rule.
; With 32-byte registers the default (-Dpacketizer.dynamicVariants.offsets=auto) compares the 64-bit
; pointers, not the narrow offsets (those are AVX-512's: dynamic-variants-offsets.ll), and so has no
; two-valued variant (-Dpacketizer.dynamicVariants.twoValued=auto: only on narrow offsets).
; RUN: packetize -f f -w 8 --params uvv --target-cpu=haswell --remarks
; CHECK-LABEL: define <8 x float> @f_simd8(ptr %g, <8 x i32> %x, <8 x i32> %y)
; CHECK-NOT:   .twotest
; CHECK:       %dyn.span = sub i64
; CHECK:       switch i64 %dyn.span, label %entry1.lanes [
; CHECK-NEXT:  i64 28, label %entry1.dyntest
; CHECK-NEXT:  i64 0, label %entry1.dyntest
; CHECK:       .dyntest:
; CHECK:       icmp ne <8 x i64>
; CHECK:       .same:
; CHECK:       load float, ptr %dyn.ptr
; CHECK:       shufflevector <8 x float>
; CHECK:       .notsame:
; CHECK:       <i64 0, i64 4, i64 8, i64 12, i64 16, i64 20, i64 24, i64 28>
; CHECK:       .consecutive:
; CHECK:       load <8 x float>, ptr
; CHECK:       load <8 x float>, ptr
; CHECK:       load <8 x float>, ptr
; CHECK:       load <8 x float>, ptr
; CHECK:       .lanes:
; CHECK:       load float, ptr
; CHECK:       .dyn:
; CHECK-NEXT:  phi <8 x float>
; CHECK-NOT:   gather
; CHECK-NOT:   .two
; SHAPES:      remark: f:entry: memory: dynamic variants for the 4 loads at constant offsets from %c: one run-time test of its lanes
; SHAPES-SAME: all equal -> 4 scalar loads and broadcasts; consecutive (stride 4 bytes) -> 4 vector loads; otherwise
; SHAPES-SAME: cost rule: 4 loads x 8 lanes = 32 per-lane loads >= 4 x 8 instructions of the test (32-byte vector registers)
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
