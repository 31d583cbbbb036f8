; Thesis 4.5: uniform computations stay scalar and are broadcast once where varying code uses them.
; RUN: packetize -f f -w 8 --params vuu
; CHECK-LABEL: define <8 x i32> @f_simd8(<8 x i32> %x, i32 %a, i32 %b)
; CHECK:       [[U:%[a-z0-9.]+]] = mul i32 %a, %b
; CHECK:       insertelement <8 x i32> {{.*}}, i32 [[U]]
; CHECK:       shufflevector <8 x i32>
; CHECK:       add <8 x i32>
; CHECK-NOT:   mul <8 x i32>
define i32 @f(i32 %x, i32 %a, i32 %b) {
entry:
  %u = mul i32 %a, %b
  %r = add i32 %x, %u
  ret i32 %r
}
