; Six fields of structs of 14 floats at a linear index (an array of structs handed to an array driver,
; p[i].f0..f5) under a full mask at W8 on AVX2: every lane's fields 0-3 and 2-5 are one <4 x float> row
; each (the second chunk moved back to end at the highest field: no row reads past field 5 of its
; struct, so none past the last lane's), the rows of lanes m and m+4 one 8-float vector, and a 4x4
; transpose in each 128-bit block (unpack low/high, then pairs) gives each field; no span, no gather.
; RUN: packetize -f f -w 8 --params l56 --target-cpu haswell --remarks
; CHECK-LABEL: define <8 x float> @f_simd8(ptr %p)
; CHECK-NOT:   load <{{[0-9][0-9]+}} x float>
; CHECK:       %x0.row0c0 = load <4 x float>, ptr %p, align 4
; CHECK:       %x0.at1c0 = getelementptr i8, ptr %p, i64 56
; CHECK:       %x0.at7c0 = getelementptr i8, ptr %p, i64 392
; CHECK:       %x0.row7c0 = load <4 x float>, ptr %x0.at7c0, align 4
; CHECK:       shufflevector <4 x float> {{.*}} <8 x i32> <i32 0, i32 1, i32 2, i32 3, i32 4, i32 5, i32 6, i32 7>
; CHECK:       shufflevector <8 x float> {{.*}} <8 x i32> <i32 0, i32 8, i32 1, i32 9, i32 4, i32 12, i32 5, i32 13>
; CHECK:       shufflevector <8 x float> {{.*}} <8 x i32> <i32 2, i32 10, i32 3, i32 11, i32 6, i32 14, i32 7, i32 15>
; CHECK:       %x0.col0 = shufflevector <8 x float> {{.*}} <8 x i32> <i32 0, i32 1, i32 8, i32 9, i32 4, i32 5, i32 12, i32 13>
; CHECK:       %x0.col1 = shufflevector <8 x float> {{.*}} <8 x i32> <i32 2, i32 3, i32 10, i32 11, i32 6, i32 7, i32 14, i32 15>
; CHECK:       %x0.at0c2 = getelementptr i8, ptr %p, i64 8
; CHECK:       %x0.at1c2 = getelementptr i8, ptr %p, i64 64
; CHECK:       %x0.at7c2 = getelementptr i8, ptr %p, i64 400
; CHECK:       %x0.row7c2 = load <4 x float>, ptr %x0.at7c2, align 4
; CHECK:       %x0.col4 = shufflevector
; CHECK:       %x0.col5 = shufflevector
; CHECK-NOT:   getelementptr i8, ptr %p, i64 40{{[1-9]}}
; CHECK-NOT:   load <{{[0-9][0-9]+}} x float>
; CHECK-NOT:   gather
; CHECK:       ret <8 x float>
; SHAPES:      became rows of 4 elements per lane transposed in 128-bit blocks (6 field(s) of the same structs, columns 6
%s14 = type { [14 x float] }
define float @f(ptr %p) {
entry:
  %x0 = load float, ptr %p, align 4
  %p1 = getelementptr inbounds i8, ptr %p, i64 4
  %x1 = load float, ptr %p1, align 4
  %p2 = getelementptr inbounds i8, ptr %p, i64 8
  %x2 = load float, ptr %p2, align 4
  %p3 = getelementptr inbounds i8, ptr %p, i64 12
  %x3 = load float, ptr %p3, align 4
  %p4 = getelementptr inbounds i8, ptr %p, i64 16
  %x4 = load float, ptr %p4, align 4
  %p5 = getelementptr inbounds i8, ptr %p, i64 20
  %x5 = load float, ptr %p5, align 4
  %a = fadd float %x0, %x1
  %b = fmul float %x2, %x3
  %c = fsub float %x4, %x5
  %d = fadd float %a, %b
  %e = fmul float %d, %c
  ret float %e
}
