; --vector-abi: the packet function is named by the vector function ABI (AVX2: isa d, unmasked N,
; 8 lanes, one varying parameter), and the call of the scalar function is annotated for LLVM's
; loop vectorizer.
; RUN: packetize -f f -w 8 --params v --vector-abi
; CHECK-LABEL: define float @caller(float %y)
; CHECK:       call float @f(float %y) [[A:#[0-9]+]]
; CHECK-LABEL: define <8 x float> @_ZGVdN8v_f(<8 x float> %x)
; CHECK:       attributes [[A]] = { "vector-function-abi-variant"="_ZGVdN8v_f(_ZGVdN8v_f)" }
define float @f(float %x) #0 {
entry:
  %m = fmul float %x, %x
  ret float %m
}
define float @caller(float %y) #0 {
entry:
  %r = call float @f(float %y)
  ret float %r
}
attributes #0 = { "target-cpu"="haswell" "target-features"="+avx,+avx2,+fma,+sse4.2" }
