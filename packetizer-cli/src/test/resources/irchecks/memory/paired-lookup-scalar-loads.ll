; Paired table lookups on an AVX2 target without fast gathers (haswell, W8), the upper one first in
; program order and the table a float parameter: W scalar 8-byte loads at &t[i] (one per lane instead of
; two), then the two halves as the even and odd floats (two shuffles). Fails with
; -Dpacketizer.pairedLookups=false (16 scalar 4-byte loads).
; RUN: packetize -f f -w 8 --params uv --target-cpu=haswell --remarks
; CHECK-LABEL: define <8 x float> @f_simd8(ptr %t, <8 x i32> %k)
; CHECK:       load i64, ptr {{.*}}, align 4
; CHECK:       load i64, ptr
; CHECK:       load i64, ptr
; CHECK:       load i64, ptr
; CHECK:       load i64, ptr
; CHECK:       load i64, ptr
; CHECK:       load i64, ptr
; CHECK:       load i64, ptr
; CHECK-NOT:   load float
; CHECK-NOT:   load i32
; CHECK:       bitcast <8 x i64> {{.*}} to <16 x float>
; CHECK:       shufflevector <16 x float> %pair.elems, <16 x float> poison, <8 x i32> <i32 0, i32 2,
; CHECK:       shufflevector <16 x float> %pair.elems, <16 x float> poison, <8 x i32> <i32 1, i32 3,
; CHECK:       ret <8 x float>
; SHAPES:      table lookups t[i] and t[i + 1] (with lo) became 8 scalar 8-byte loads and two shuffles
define float @f(ptr %t, i32 %k) {
entry:
  %i = and i32 %k, 1023
  %i1 = add nsw i32 %i, 1
  %x1 = sext i32 %i1 to i64
  %p1 = getelementptr inbounds float, ptr %t, i64 %x1
  %hi = load float, ptr %p1, align 4
  %x = zext nneg i32 %i to i64
  %p = getelementptr inbounds float, ptr %t, i64 %x
  %lo = load float, ptr %p, align 4
  %d = fsub float %hi, %lo
  ret float %d
}
