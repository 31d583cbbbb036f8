; --optimize size (issue 16, code growth): the four loads at constant offsets from one per-lane pointer
; of memory/dynamic-variants.ll get no dynamic variants (no run-time test, no all-equal and consecutive
; copies of the loads): the per-lane loads alone, and a remark says why.
; (This function is small enough that the size mode's last resort, a loop over the lanes running the scalar
; code, would take it over (memory/size-scalar-lanes.ll); the knob keeps this file's subject.)
; RUN: packetize -f f -w 8 --params uvv --target-cpu=haswell --optimize size --remarks
; SET: packetizer.sizeScalarLanes=false
; CHECK-LABEL: define <8 x float> @f_simd8(ptr %g, <8 x i32> %x, <8 x i32> %y)
; CHECK-NOT:   dyn.span
; CHECK-NOT:   .dyntest
; CHECK-NOT:   .consecutive
; CHECK-NOT:   load <8 x float>
; CHECK:       load float, ptr
; CHECK:       ret <8 x float>
; SHAPES:      remark: f:entry: memory: no dynamic variants for the 4 loads at constant offsets from %c: optimizing for size
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
