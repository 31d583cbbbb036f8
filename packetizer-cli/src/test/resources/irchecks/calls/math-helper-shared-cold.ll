; The glibc-exact helpers' cold pieces shared by the helpers of a module (issue 16, code growth, fifteenth
; round, SharedCold): a unary helper (expf) and a binary one (powf, under a partial mask) that one
; packetization adds have one .lanes, .verify (the probe) and .slow between them, which read what differs
; from each helper's descriptor (its entry in binary shape, the libm function in binary shape, the flag,
; the probe inputs x and y, their count) and call them through its pointers; the unary helper's two
; thunks give its entry and expf the binary shape. The helpers have no pieces of their own. A helper alone
; in its packetization keeps its own (glibc-powf.ll, math-helper-out-of-line.ll), as every helper does
; with -Dpacketizer.mathHelpers.sharedCold=false (math-helper-shared-cold-off.ll).
; RUN: packetize -f f -w 8 --params vv --vector-math=intrinsics
; CHECK:       @[[P:__packetizer_glibc_powf_v8_[0-9a-f]+[a-z]*]].desc = internal constant { ptr, ptr, ptr, ptr, ptr, i64 }
; CHECK-SAME:  { ptr @[[P]], ptr @powf, ptr @[[P]].ok, ptr @[[P]].px, ptr @[[P]].py, i64 16 }
; CHECK:       @[[E:__packetizer_glibc_expf_v8_[0-9a-f]+[a-z]*]].desc = internal constant { ptr, ptr, ptr, ptr, ptr, i64 }
; CHECK-SAME:  { ptr @[[E]].v2, ptr @[[E]].s2, ptr @[[E]].ok, ptr @[[E]].probes, ptr @[[E]].probes, i64 16 }
; CHECK-LABEL: define internal <8 x float> @[[C:__packetizer_cold_v8_[0-9a-f]+]].lanes(
; CHECK-SAME:  <8 x float> %x, <8 x float> %y, <8 x i1> %mask, <8 x float> %acc, ptr %d)
; CHECK:       call i8 @llvm.cttz.i8(
; CHECK:       call float %fn(float %xi, float %yi)
; CHECK-LABEL: define internal i1 @[[C]].verify(ptr %d)
; CHECK:       load atomic i8, ptr %okp monotonic
; CHECK:       load volatile <8 x float>
; CHECK:       call <8 x float> %ef(<8 x float> %xv, <8 x float> %yv, <8 x i1> zeroinitializer)
; CHECK:       call float %fn(float %xs, float %ys) #[[NB:[0-9]+]]
; CHECK:       store atomic i8 %flag, ptr %okp2 monotonic
; CHECK-LABEL: define internal <8 x float> @[[C]].slow(<8 x float> %x, <8 x float> %y, <8 x i1> %m, ptr %d)
; CHECK:       call i1 @[[C]].verify(ptr %d)
; CHECK:       tail call <8 x float> %ef(<8 x float> %x, <8 x float> %y, <8 x i1> %m)
; CHECK:       tail call <8 x float> @[[C]].lanes(<8 x float> %x, <8 x float> %y, <8 x i1> %m, <8 x float> poison, ptr %d)
; CHECK-LABEL: define internal <8 x float> @[[P]](<8 x float> %x, <8 x float> %y, <8 x i1> %m)
; CHECK:       call <8 x float> @[[C]].lanes(<8 x float> %x, <8 x float> %y, <8 x i1> %sm, <8 x float> %r0, ptr @[[P]].desc)
; CHECK:       call <8 x float> @[[C]].slow(<8 x float> %x, <8 x float> %y, <8 x i1> %m, ptr @[[P]].desc)
; CHECK-LABEL: define internal <8 x float> @[[E]](<8 x float> %x, <8 x i1> %m)
; CHECK:       call <8 x float> @[[C]].lanes(<8 x float> %x, <8 x float> poison, <8 x i1> %sm, <8 x float> %y{{.*}}, ptr @[[E]].desc)
; CHECK:       call <8 x float> @[[C]].slow(<8 x float> %x, <8 x float> poison, <8 x i1> %m, ptr @[[E]].desc)
; CHECK-LABEL: define internal <8 x float> @[[E]].v2(<8 x float> %x, <8 x float> %y, <8 x i1> %m)
; CHECK-NEXT:  entry:
; CHECK-NEXT:  tail call <8 x float> @[[E]](<8 x float> %x, <8 x i1> %m)
; CHECK-LABEL: define internal float @[[E]].s2(float %x, float %y)
; CHECK-NEXT:  entry:
; CHECK-NEXT:  tail call float @expf(float %x)
; CHECK-NOT:   define internal {{.*}}.lanes(
; CHECK-NOT:   define internal {{.*}}.probe(
; CHECK-NOT:   define internal {{.*}}.slow(
; CHECK:       attributes #[[NB]] = { nobuiltin }
define float @f(float %x, float %y) #0 {
entry:
  %s = fsub float %x, %y
  %e = call float @llvm.exp.f32(float %s)
  %c = fcmp ogt float %x, 0.0
  br i1 %c, label %then, label %exit
then:
  %p = call float @powf(float %x, float %y)
  br label %exit
exit:
  %r = phi float [ %p, %then ], [ 0.0, %entry ]
  %t = fadd float %r, %e
  ret float %t
}
declare float @llvm.exp.f32(float)
declare float @powf(float, float)
attributes #0 = { "target-cpu"="haswell" "target-features"="+avx,+avx2,+fma,+sse4.2" }
