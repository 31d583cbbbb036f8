; Thesis 4.5 memory: a uniform base indexed by a consecutive index is a consecutive access: one
; vector load and one vector store, no gather, scatter or per-lane access.
; RUN: packetize -f f -w 8 --params uul
; CHECK-LABEL: define void @f_simd8(ptr %in, ptr %out, i64 %i)
; CHECK:       load <8 x float>, ptr
; CHECK:       store <8 x float> {{.*}}, ptr
; CHECK-NOT:   gather
; CHECK-NOT:   scatter
; CHECK-NOT:   extractelement
define void @f(ptr %in, ptr %out, i64 %i) {
entry:
  %p = getelementptr inbounds float, ptr %in, i64 %i
  %v = load float, ptr %p, align 4
  %w = fmul float %v, %v
  %q = getelementptr inbounds float, ptr %out, i64 %i
  store float %w, ptr %q, align 4
  ret void
}
