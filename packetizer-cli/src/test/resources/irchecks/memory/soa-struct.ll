; A struct pointer parameter defaults to struct-of-arrays (kind s, thesis Fig 4.4): field k of lane
; l lives at packet field k, element l, so each field access is one vector load or store.
; RUN: packetize -f f -w 4
; CHECK-LABEL: define void @f_simd4(ptr %v)
; CHECK:       load <4 x float>, ptr
; CHECK:       load <4 x float>, ptr
; CHECK:       store <4 x float>
; CHECK-NOT:   gather
; CHECK-NOT:   scatter
%vec2 = type { float, float }
define void @f(ptr %v) {
entry:
  %px = getelementptr inbounds %vec2, ptr %v, i32 0, i32 0
  %py = getelementptr inbounds %vec2, ptr %v, i32 0, i32 1
  %x = load float, ptr %px, align 4
  %y = load float, ptr %py, align 4
  %s = fadd float %x, %y
  store float %s, ptr %px, align 4
  ret void
}
