; --optimize size (issue 16, code growth): expf under a partial mask (a divergent branch) in the bit-exact
; mode: the argument packet stored once, a loop over the mask's set bits (cttz) loading lane k's argument,
; calling expf and storing its result at k, the result packet loaded once after the loop; no insert at a
; variable lane (insertelement ... i32 %lane, a broadcast, compare and blend per lane in machine code),
; no glibc-exact helper.
; (This function is small enough that the size mode's last resort, a loop over the lanes running the scalar
; code, would take it over (memory/size-scalar-lanes.ll); the knob keeps this file's subject.)
; RUN: packetize -f f -w 8 --params v --vector-math=intrinsics --optimize size
; SET: packetizer.sizeScalarLanes=false
; CHECK-LABEL: define <8 x float> @f_simd8(<8 x float> %x)
; CHECK:       store <8 x float>
; CHECK:       .lanes:
; CHECK:       %lanes.left = phi i8
; CHECK:       @llvm.cttz.i8(i8 %lanes.left, i1 true)
; CHECK:       call float @llvm.exp.f32(float
; CHECK:       store float
; CHECK:       .lanes.done:
; CHECK:       load <8 x float>, ptr %e.out
; CHECK-NOT:   @__packetizer_glibc
; CHECK-NOT:   insertelement <8 x float> %{{.*}}, float %{{.*}}, i32 %lane
define float @f(float %x) #0 {
entry:
  %c = fcmp ogt float %x, 1.0
  br i1 %c, label %then, label %exit
then:
  %e = call float @expf(float %x)
  br label %exit
exit:
  %r = phi float [ %e, %then ], [ %x, %entry ]
  ret float %r
}
declare float @expf(float)
attributes #0 = { "target-cpu"="haswell" "target-features"="+avx,+avx2,+fma,+sse4.2" }
