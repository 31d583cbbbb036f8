; --memory cascade: the thesis' split of a per-lane access into W scalar accesses (4.5.3, Fig 4.16),
; each guarded by its lane's mask bit: no gather, and scalar loads of lanes extracted from the
; pointer vector.
; RUN: packetize -f f -w 4 --params uv --memory cascade
; CHECK-LABEL: define <4 x float> @f_simd4(ptr %t, <4 x i64> %i)
; CHECK-NOT:   gather
; CHECK:       extractelement <4 x ptr>
; CHECK:       load float, ptr
; CHECK:       insertelement <4 x float>
; CHECK:       ret <4 x float>
define float @f(ptr %t, i64 %i) {
entry:
  %p = getelementptr inbounds float, ptr %t, i64 %i
  %v = load float, ptr %p, align 4
  ret float %v
}
