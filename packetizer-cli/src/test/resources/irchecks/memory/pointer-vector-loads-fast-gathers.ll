; On a target with fast hardware gathers (znver4, W16), loads whose addresses are a vector of 64-bit
; pointers (a stencil's c = g + y*24 + x and its neighbours at constant offsets) become a window (one
; 16-byte load per lane and a transpose, for c[-2..1]) and per-lane scalar loads sharing the
; extraction of c (c[24]), not gathers: a <16 x ptr> gather is two gather instructions and 64-bit
; address arithmetic. A lookup with a uniform base and a 32-bit index (g[x & 63]) stays a hardware
; gather with a 32-bit index vector.
; RUN: packetize -f f -w 16 --params uvv --target-cpu=znver4 --remarks
; CHECK-LABEL: define <16 x float> @f_simd16(ptr %g, <16 x i32> %x, <16 x i32> %y)
; CHECK:       load <4 x float>, ptr
; CHECK-NOT:   gather
; CHECK:       shufflevector <4 x float>
; CHECK-NOT:   gather
; CHECK:       load float, ptr
; CHECK-NOT:   gather
; CHECK:       getelementptr inbounds float, ptr %g, <16 x
; CHECK:       call <16 x float> @llvm.masked.gather.v16f32.v16p0(<16 x ptr>
; CHECK-NOT:   call {{.*}}gather
; SHAPES:      loads of 4 neighbouring elements at constant offsets from %c became 16 16-byte loads (one per lane and window of four) and a transpose: the addresses are a vector of 64-bit pointers, not a uniform base plus 32-bit offsets
; SHAPES:      load from varying addresses became 16 scalar loads at each lane's %c plus 1 uniform offset(s): the addresses are a vector of 64-bit pointers
; SHAPES:      table lookup (uniform base, 32-bit offsets) became a gather with a 32-bit index vector: the target (znver4) has fast hardware gathers
define float @f(ptr %g, i32 %x, i32 %y) {
entry:
  %row = mul nsw i32 %y, 24
  %rowx = sext i32 %row to i64
  %r = getelementptr inbounds float, ptr %g, i64 %rowx
  %xx = sext i32 %x to i64
  %c = getelementptr inbounds float, ptr %r, i64 %xx
  %pm2 = getelementptr inbounds i8, ptr %c, i64 -8
  %vm2 = load float, ptr %pm2, align 4
  %pm1 = getelementptr inbounds i8, ptr %c, i64 -4
  %vm1 = load float, ptr %pm1, align 4
  %v0 = load float, ptr %c, align 4
  %p1 = getelementptr inbounds i8, ptr %c, i64 4
  %v1 = load float, ptr %p1, align 4
  %pd = getelementptr inbounds i8, ptr %c, i64 96
  %vd = load float, ptr %pd, align 4
  %i = and i32 %x, 63
  %ix = zext nneg i32 %i to i64
  %pt = getelementptr inbounds float, ptr %g, i64 %ix
  %vt = load float, ptr %pt, align 4
  %a = fadd float %vm2, %vm1
  %b = fadd float %a, %v0
  %d = fadd float %b, %v1
  %e = fadd float %d, %vd
  %f = fadd float %e, %vt
  ret float %f
}
