; Stores of both fields of the same structs at a linear index (q[i].a, q[i].b of {i32, i32}), one
; after the other under a full mask, writing every byte of the stride: one interleaving shuffle and
; one store of the 4 structs; no scatter.
; RUN: packetize -f f -w 4 --params ulvv --remarks
; CHECK-LABEL: define void @f_simd4(ptr %q, i64 %i, <4 x i32> %a, <4 x i32> %b)
; CHECK:       shufflevector <4 x i32> %a, <4 x i32> %b, <8 x i32> <i32 0, i32 4, i32 1, i32 5, i32 2, i32 6, i32 3, i32 7>
; CHECK:       store <8 x i32>
; CHECK-NOT:   scatter
; SHAPES:      became one interleaving shuffle and one store of 8 elements
%s2 = type { i32, i32 }
define void @f(ptr %q, i64 %i, i32 %a, i32 %b) {
entry:
  %p = getelementptr inbounds %s2, ptr %q, i64 %i
  store i32 %a, ptr %p, align 4
  %pb = getelementptr inbounds i8, ptr %p, i64 4
  store i32 %b, ptr %pb, align 4
  ret void
}
