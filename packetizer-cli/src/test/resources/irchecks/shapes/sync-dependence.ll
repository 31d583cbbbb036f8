; Sync dependence: both incoming values of the join's phi are uniform, but the branch that chooses
; between them is divergent, so the phi is varying; the values themselves stay uniform (scalar code).
; RUN: packetize -f f -w 4 --params vuuu --print-shapes
; SHAPES:      block %entry: full mask, divergent branch
; SHAPES:        %a: uniform
; SHAPES:      block %then: partial mask
; SHAPES-NEXT:   %b: uniform
; SHAPES:      block %join: full mask
; SHAPES-NEXT:   %r: varying
; CHECK-LABEL: define <4 x i32> @f_simd4(<4 x i32> %x, i32 %u, i32 %v, ptr %out)
; (the clean-up sinks %a to its use after the store's write-back: the order is the clean-up's)
; CHECK:       %b = add i32 %v, 2
; CHECK:       %a = add i32 %u, 1
; CHECK:       select <4 x i1>
define i32 @f(i32 %x, i32 %u, i32 %v, ptr %out) {
entry:
  %a = add i32 %u, 1
  %c = icmp sgt i32 %x, 0
  br i1 %c, label %then, label %join
then:
  %b = add i32 %v, 2
  store i32 %b, ptr %out, align 4
  br label %join
join:
  %r = phi i32 [ %b, %then ], [ %a, %entry ]
  ret i32 %r
}
