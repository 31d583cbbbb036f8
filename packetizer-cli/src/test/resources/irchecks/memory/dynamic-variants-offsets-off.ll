; The knob-off twin of dynamic-variants-offsets.ll: with -Dpacketizer.dynamicVariants.offsets=false the
; AVX-512 all-equal test compares the 64-bit pointers, as before the sixteenth round: the scalar
; pre-test on the first and last lanes' pointers, then a <16 x i64> compare, no narrow offsets.
; RUN: packetize -f f -w 16 --params uvv --target-cpu=znver4 --remarks
; SET: packetizer.dynamicVariants.offsets=false
; CHECK-LABEL: define <16 x float> @f_simd16(ptr %g, <16 x i32> %x, <16 x i32> %y)
; CHECK-NOT:   %dyn.off
; CHECK:       %dyn.ptr = extractelement <16 x ptr> %c, i64 0
; CHECK:       %dyn.span = sub i64
; CHECK:       switch i64 %dyn.span, label %entry1.lanes [
; CHECK:       entry1.dyntest:
; CHECK:       icmp ne <16 x i64>
; CHECK:       entry1.same:
; CHECK-NOT:   %dyn.off
; CHECK:       ret <16 x float>
; SHAPES:      remark: f:entry: memory: dynamic variants for the 4 loads at constant offsets from %c: one run-time test of its lanes: all equal
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
