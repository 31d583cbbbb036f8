; With AVX-512F the ISA letter is e.
; RUN: packetize -f f -w 16 --params v --vector-abi
; CHECK-LABEL: define <16 x float> @_ZGVeN16v_f(<16 x float> %x)
define float @f(float %x) #0 {
entry:
  %m = fmul float %x, 3.0
  ret float %m
}
attributes #0 = { "target-cpu"="skylake-avx512" "target-features"="+avx,+avx2,+fma,+avx512f,+avx512vl" }
