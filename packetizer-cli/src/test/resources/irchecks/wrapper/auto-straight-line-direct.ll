; --wrapper auto (the default) serves straight-line code directly even at 8 times the hardware
; width: the measured rule picks LOOP only for divergent loops at S/N >= 8.
; RUN: packetize -f f -w 32 --params v --target-cpu x86-64-v2 --target-features +sse4.2
; CHECK-LABEL: define <32 x float> @f_simd32(<32 x float> %x)
; CHECK-NOT:   .n4
define float @f(float %x) #0 {
entry:
  %a = fmul float %x, %x
  %b = fadd float %a, 1.0
  ret float %b
}
attributes #0 = { "target-cpu"="x86-64-v2" "target-features"="+sse4.2,+sse4.1,+ssse3,+sse3" }
