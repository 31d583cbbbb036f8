; A linear index (kind l) into a uniform base (kind u) gives a linear address with a stride of the
; element size: consecutive floats, 4 bytes apart. A doubled index gives stride 8.
; RUN: packetize -f f -w 4 --params ul --print-shapes
; SHAPES:      block %entry: full mask
; SHAPES:        %p1: linear(4)
; SHAPES:        %p2: linear(8)
; SHAPES:        %s: varying
define float @f(ptr %p, i64 %i) {
entry:
  %p1 = getelementptr inbounds float, ptr %p, i64 %i
  %a = load float, ptr %p1, align 4
  %i2 = shl i64 %i, 1
  %p2 = getelementptr inbounds float, ptr %p, i64 %i2
  %b = load float, ptr %p2, align 4
  %s = fadd float %a, %b
  ret float %s
}
