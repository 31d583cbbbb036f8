; A linear parameter with step 1 is "consecutive"; adding a uniform keeps it consecutive; scaling by
; 3 makes the stride 3; a product of two linear values is varying.
; RUN: packetize -f f -w 8 --params lu --print-shapes
; SHAPES:        %a: consecutive
; SHAPES:        %b: linear(3)
; SHAPES:        %c: varying
define i32 @f(i32 %i, i32 %u) {
entry:
  %a = add i32 %i, %u
  %b = mul i32 %a, 3
  %c = mul i32 %a, %i
  %r = xor i32 %b, %c
  ret i32 %r
}
