; atomicrmw at per-lane addresses: one atomic per lane, lanes 0, 1, 2, 3 in order, each with the
; scalar one's operation and ordering.
; RUN: packetize -f g -w 4 --params uv
; CHECK-LABEL: define <4 x i32> @g_simd4(ptr %p, <4 x i32> %x)
; CHECK:       extractelement <4 x ptr> %a, i64 0
; CHECK:       atomicrmw umax ptr {{%[0-9]+}}, i32 {{%[0-9]+}} acquire, align 4
; CHECK:       extractelement <4 x ptr> %a, i64 1
; CHECK:       atomicrmw umax
; CHECK:       extractelement <4 x ptr> %a, i64 2
; CHECK:       atomicrmw umax
; CHECK:       extractelement <4 x ptr> %a, i64 3
; CHECK:       atomicrmw umax
; CHECK-NOT:   atomicrmw
define i32 @g(ptr %p, i32 %x) {
entry:
  %i = sext i32 %x to i64
  %a = getelementptr inbounds i32, ptr %p, i64 %i
  %old = atomicrmw umax ptr %a, i32 %x acquire, align 4
  ret i32 %old
}
