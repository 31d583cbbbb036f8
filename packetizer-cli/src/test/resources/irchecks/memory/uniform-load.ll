; A load from a uniform address is one scalar load for all lanes, broadcast where varying code
; uses it.
; RUN: packetize -f f -w 8 --params uv
; CHECK-LABEL: define <8 x float> @f_simd8(ptr %p, <8 x float> %x)
; CHECK:       load float, ptr %p
; CHECK-NOT:   gather
; CHECK-NOT:   load <8 x float>
; CHECK:       fmul <8 x float>
define float @f(ptr %p, float %x) {
entry:
  %s = load float, ptr %p, align 4
  %r = fmul float %s, %x
  ret float %r
}
