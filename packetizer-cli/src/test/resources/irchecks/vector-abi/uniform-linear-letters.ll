; Parameter kinds become the ABI's letters: uniform u, linear l (SSE: isa b, 4 lanes).
; RUN: packetize -f f -w 4 --params vul --vector-abi
; CHECK-LABEL: define <4 x float> @_ZGVbN4vul_f(<4 x float> %x, float %k, i64 %i)
define float @f(float %x, float %k, i64 %i) #0 {
entry:
  %a = sitofp i64 %i to float
  %b = fmul float %x, %k
  %c = fadd float %a, %b
  ret float %c
}
attributes #0 = { "target-cpu"="x86-64-v2" "target-features"="+sse4.2,+sse4.1,+ssse3,+sse3" }
