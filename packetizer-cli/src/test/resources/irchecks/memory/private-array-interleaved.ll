; A private array (float V[64], as in a binomial options pricer) is laid out interleaved,
; [64 x <W x float>]: V[k] with the same k in every lane is one vector load or store, not a
; gather or scatter with a 256-byte stride (one block per lane).
; RUN: packetize -f f -w 8 --params vuu
; CHECK-LABEL: define <8 x float> @f_simd8(<8 x float> %x, i32 %k, i32 %j)
; CHECK:       alloca [8 x [64 x float]]
; CHECK:       store <8 x float>
; CHECK:       load <8 x float>, ptr
; CHECK-NOT:   gather
; CHECK-NOT:   scatter
define float @f(float %x, i32 %k, i32 %j) {
entry:
  %v = alloca [64 x float], align 16
  call void @llvm.memset.p0.i64(ptr %v, i8 0, i64 256, i1 false)
  %i = and i32 %k, 63
  %ix = zext i32 %i to i64
  %p = getelementptr inbounds [64 x float], ptr %v, i64 0, i64 %ix
  store float %x, ptr %p, align 4
  %i2 = and i32 %j, 63
  %jx = zext i32 %i2 to i64
  %q = getelementptr inbounds float, ptr %v, i64 %jx
  %r = load float, ptr %q, align 4
  ret float %r
}
declare void @llvm.memset.p0.i64(ptr, i8, i64, i1)
