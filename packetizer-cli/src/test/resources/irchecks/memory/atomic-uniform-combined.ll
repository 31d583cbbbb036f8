; atomicrmw add at one address for all lanes: one combined atomic of the lanes' sum (an inclusive
; scan in lane order), keeping ordering and sync scope; lane k's old value is the initial value plus
; the sum of the lanes before k (the scan shifted by one lane).
; RUN: packetize -f f -w 4 --params uv
; CHECK-LABEL: define <4 x i32> @f_simd4(ptr %c, <4 x i32> %x)
; CHECK:       shufflevector <4 x i32> %x
; CHECK:       [[TOTAL:%[a-z0-9.]+]] = extractelement <4 x i32> {{%[0-9]+}}, i64 3
; CHECK-NEXT:  atomicrmw add ptr %c, i32 [[TOTAL]] syncscope("singlethread") seq_cst, align 4
; CHECK-NOT:   atomicrmw
; CHECK:       ret <4 x i32>
define i32 @f(ptr %c, i32 %x) {
entry:
  %o = atomicrmw add ptr %c, i32 %x syncscope("singlethread") seq_cst, align 4
  ret i32 %o
}
