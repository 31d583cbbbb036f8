; --masked adds a trailing <W x i1> mask parameter; it is the entry mask: nothing runs when it is
; empty (an any-lane test first), and the consecutive store (l4: 4 bytes per lane) becomes a masked
; store under that mask, so inactive lanes write nothing.
; RUN: packetize -f f -w 4 --params vl4 --masked
; CHECK-LABEL: define void @f_simd4(<4 x float> %x, ptr %p, <4 x i1> [[M:%[a-z0-9.]+]])
; CHECK:       {{llvm.vector.reduce.or.v4i1|bitcast <4 x i1> .* to i4}}
; CHECK:       br i1
; CHECK:       call void @llvm.masked.store.v4f32.p0(<4 x float> {{.*}}, ptr %p, i32 4, <4 x i1> [[M]])
; CHECK-NOT:   store <4 x float>
; CHECK-NOT:   scatter
define void @f(float %x, ptr %p) {
entry:
  %y = fmul float %x, 2.0
  store float %y, ptr %p, align 4
  ret void
}
