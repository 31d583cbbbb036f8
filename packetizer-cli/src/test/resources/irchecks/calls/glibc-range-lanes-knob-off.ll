; -Dpacketizer.helperRangeLanes=libm: every special active lane of the glibc-exact expf helper calls libm on the cold
; edge, over- and underflowing ones included, as before the twenty-third round (issue 16); no errno store of its own.
; SET: packetizer.helperRangeLanes=libm
; RUN: packetize -f f -w 8 --params v --vector-math=intrinsics --remarks
; CHECK-LABEL: define internal <8 x float> @__packetizer_glibc_expf_v8_{{[0-9a-f]+}}gphl(
; CHECK:       edge:
; CHECK-NEXT:  %sm = and <8 x i1> %special, %m
; CHECK-NEXT:  %ye = call <8 x float> @__packetizer_glibc_expf_v8_{{.*}}.lanes(
; CHECK-NOT:   __errno_location
target triple = "x86_64-unknown-linux-gnu"
define float @f(float %x) #0 {
entry:
  %e = call float @expf(float %x)
  ret float %e
}
declare float @expf(float)
attributes #0 = { "target-cpu"="haswell" }
