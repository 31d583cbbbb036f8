; --optimize size (issue 16, code growth): a sine and a cosine of one argument in the bit-exact mode do
; not become glibc's algorithm as vector IR (the fast path inlined into the packet function, two
; helpers with their probes and per-lane fallbacks; calls/exact-sincosf.ll), nor the back end's W
; unrolled sincosf calls, but ONE loop over the lanes calling both on each lane's argument (which the
; back end fuses into one sincosf call per lane, as in the scalar function), each result stored at the
; lane and loaded as a packet after the loop; bit-identical.
; (This function is small enough that the size mode's last resort, a loop over the lanes running the scalar
; code, would take it over (memory/size-scalar-lanes.ll); the knob keeps this file's subject.)
; RUN: packetize -f f -w 8 --params v --vector-math intrinsics --optimize=size --remarks
; SET: packetizer.sizeScalarLanes=false
; CHECK-LABEL: define <8 x float> @f_simd8(<8 x float> %x)
; CHECK-NOT:   @__packetizer_
; CHECK:       .lanes:
; CHECK:       [[X:%[0-9]+]] = load float, ptr
; CHECK-NEXT:  call float @llvm.cos.f32(float [[X]])
; CHECK-NEXT:  call float @llvm.sin.f32(float [[X]])
; CHECK:       .lanes.done:
; CHECK-NEXT:  %c = load <8 x float>
; CHECK-NEXT:  %s = load <8 x float>
; CHECK-NOT:   .lanes:
; CHECK-NOT:   @llvm.sin.v8f32
; CHECK-NOT:   @llvm.cos.v8f32
; CHECK-NOT:   @__packetizer_
; SHAPES:      call to cosf and its partner sinf of the same argument became one loop over the lanes
; SHAPES-SAME: optimizing for size
; SHAPES:      call to sinf computed in the lane loop of its partner
define float @f(float %x) #0 {
entry:
  %c = call float @cosf(float %x)
  %s = call float @sinf(float %x)
  %r = fadd float %c, %s
  ret float %r
}
declare float @sinf(float)
declare float @cosf(float)
attributes #0 = { "target-cpu"="haswell" "target-features"="+avx,+avx2,+fma,+sse4.2" }
