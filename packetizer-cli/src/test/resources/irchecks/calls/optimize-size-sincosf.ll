; --optimize size (issue 16, code growth): a sine and a cosine of one argument in the bit-exact mode do
; not become glibc's algorithm as vector IR (the fast path inlined into the packet function, two
; helpers with their probes and per-lane fallbacks; calls/exact-sincosf.ll), nor the back end's W
; unrolled sincosf calls, but two counted loops over the lanes calling libm (bit-identical).
; RUN: packetize -f f -w 8 --params v --vector-math intrinsics --optimize=size --remarks
; CHECK-LABEL: define <8 x float> @f_simd8(<8 x float> %x)
; CHECK-NOT:   @__packetizer_
; CHECK:       .lanes:
; CHECK:       call float @llvm.cos.f32(float
; CHECK:       .lanes:
; CHECK:       call float @llvm.sin.f32(float
; CHECK-NOT:   @llvm.sin.v8f32
; CHECK-NOT:   @llvm.cos.v8f32
; CHECK-NOT:   @__packetizer_
; SHAPES:      call to cosf became llvm.cos on each active lane
; SHAPES-SAME: optimizing for size
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
