; --array-driver: full packets load plain vectors, call the unmasked packet function and store a
; plain vector; the remainder (n % 8 elements) runs ONCE through the masked variant with masked loads
; and stores (lane l active iff l < n % 8), and no scalar epilogue follows.
; RUN: packetize -f f -w 8 --params vvu --integer-masks never --array-driver
; CHECK-LABEL: define internal <8 x float> @f_simd8.masked(<8 x float> %x, <8 x float> %y, float %a, <8 x i1> %mask)
; CHECK-LABEL: define void @f_map(ptr %x, ptr %y, float %a, ptr %out, i64 %n)
; CHECK:       %n.full = and i64 %n, -8
; CHECK:       packet:
; CHECK:       %x.packet = load <8 x float>, ptr
; CHECK:       %y.packet = load <8 x float>, ptr
; CHECK-NEXT:  %r = call <8 x float> @f_simd8(<8 x float> %x.packet, <8 x float> %y.packet, float %a)
; CHECK:       store <8 x float> %r, ptr
; CHECK:       add nuw i64 %i, 8
; CHECK:       remainder:
; CHECK:       %mask = icmp ult <8 x i64> <i64 0, i64 1, i64 2, i64 3, i64 4, i64 5, i64 6, i64 7>
; CHECK:       call <8 x float> @llvm.masked.load.v8f32.p0(
; CHECK:       call <8 x float> @llvm.masked.load.v8f32.p0(
; CHECK:       call <8 x float> @f_simd8.masked(
; CHECK-SAME:  <8 x i1> %mask)
; CHECK:       call void @llvm.masked.store.v8f32.p0(<8 x float> %r.rest,
; CHECK-NOT:   @f_simd8(
; CHECK-NOT:   call float @f(
; CHECK:       ret void
define float @f(float %x, float %y, float %a) #0 {
entry:
  %m = fmul float %a, %x
  %s = fadd float %m, %y
  ret float %s
}
attributes #0 = { "target-cpu"="x86-64-v4" }
