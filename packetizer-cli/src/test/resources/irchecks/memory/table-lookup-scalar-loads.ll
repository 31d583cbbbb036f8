; The same table lookup on an AVX2 target without fast gathers (haswell), where LLVM would expand a
; gather into extracts of 64-bit pointers: W scalar loads at the uniform base plus each lane's 32-bit
; offset, and a remark saying why.
; RUN: packetize -f f -w 8 --params uv --target-cpu=haswell --remarks
; CHECK-LABEL: define <8 x i32> @f_simd8(ptr %t, <8 x i32> %k)
; CHECK:       extractelement <8 x i32>
; CHECK:       load i32, ptr
; CHECK:       load i32, ptr
; CHECK:       load i32, ptr
; CHECK:       load i32, ptr
; CHECK:       load i32, ptr
; CHECK:       load i32, ptr
; CHECK:       load i32, ptr
; CHECK:       load i32, ptr
; CHECK-NOT:   gather
; CHECK-NOT:   <8 x i64>
; SHAPES:      table lookup (uniform base, 32-bit offsets) became 8 scalar loads: the target (haswell) has no fast hardware gather
define i32 @f(ptr %t, i32 %k) {
entry:
  %i = and i32 %k, 255
  %x = zext nneg i32 %i to i64
  %p = getelementptr inbounds i32, ptr %t, i64 %x
  %v = load i32, ptr %p, align 4
  ret i32 %v
}
