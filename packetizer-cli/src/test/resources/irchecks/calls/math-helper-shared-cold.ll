; The glibc-exact helpers' cold pieces shared by the helpers of a module (issue 16, code growth, fifteenth
; round, SharedCold): a unary helper (expf) and a binary one (powf, under a partial mask) in one module
; have one .lanes, .probe and .slow between them, which read what differs from each helper's descriptor
; (entry, libm function, flag, probe inputs, the second operand's probes or null, their count) and call the
; entry and the libm function through its pointers; the helpers have no pieces of their own. The knob
; -Dpacketizer.mathHelpers.sharedCold=false keeps one set per helper (glibc-powf.ll, math-helper-out-of-line.ll).
; RUN: packetize -f f -f g -w 8 --params vv --vector-math=intrinsics
; CHECK:       @[[E:__packetizer_glibc_expf_v8_[0-9a-f]+]].desc = internal constant { ptr, ptr, ptr, ptr, ptr, i64 }
; CHECK-SAME:  { ptr @[[E]], ptr @expf, ptr @[[E]].ok, ptr @[[E]].probes, ptr null, i64 16 }
; CHECK:       @[[P:__packetizer_glibc_powf_v8_[0-9a-f]+]].desc = internal constant { ptr, ptr, ptr, ptr, ptr, i64 }
; CHECK-SAME:  { ptr @[[P]], ptr @powf, ptr @[[P]].ok, ptr @[[P]].px, ptr @[[P]].py, i64 16 }
; CHECK-LABEL: define internal <8 x float> @[[C:__packetizer_cold_v8_[0-9a-f]+]].lanes(
; CHECK-SAME:  <8 x float> %x, <8 x i1> %mask, <8 x float> %acc, ptr %d, <8 x float> %y)
; CHECK:       call i8 @llvm.cttz.i8(
; CHECK:       call float %fn(float %xi, float %yi)
; CHECK:       call float %fn(float %xi)
; CHECK-LABEL: define internal i1 @[[C]].probe(ptr %d)
; CHECK:       load volatile <8 x float>
; CHECK:       call <8 x float> %ef(<8 x float> %xv, <8 x float> %yv, <8 x i1> zeroinitializer)
; CHECK:       call <8 x float> %ef(<8 x float> %xv, <8 x i1> zeroinitializer)
; CHECK:       call float %fn(float %xs, float %ys) #[[NB:[0-9]+]]
; CHECK:       call float %fn(float %xs) #[[NB]]
; CHECK:       store atomic i8 %flag, ptr %okp monotonic
; CHECK-LABEL: define internal <8 x float> @[[C]].slow(<8 x float> %x, <8 x i1> %m, ptr %d, <8 x float> %y)
; CHECK:       call i1 @[[C]].probe(ptr %d)
; CHECK:       tail call <8 x float> %ef(<8 x float> %x, <8 x float> %y, <8 x i1> %m)
; CHECK:       tail call <8 x float> %ef(<8 x float> %x, <8 x i1> %m)
; CHECK:       call <8 x float> @[[C]].lanes(<8 x float> %x, <8 x i1> %m, <8 x float> poison, ptr %d, <8 x float> %y)
; CHECK-LABEL: define internal <8 x float> @[[E]](<8 x float> %x, <8 x i1> %m)
; CHECK:       call <8 x float> @[[C]].lanes(<8 x float> %x, <8 x i1> %sm, <8 x float> %y{{.*}}, ptr @[[E]].desc, <8 x float> poison)
; CHECK:       call <8 x float> @[[C]].slow(<8 x float> %x, <8 x i1> %m, ptr @[[E]].desc, <8 x float> poison)
; CHECK-LABEL: define internal <8 x float> @[[P]](<8 x float> %x, <8 x float> %y, <8 x i1> %m)
; CHECK:       call <8 x float> @[[C]].lanes(<8 x float> %x, <8 x i1> %sm, <8 x float> %r0, ptr @[[P]].desc, <8 x float> %y)
; CHECK:       call <8 x float> @[[C]].slow(<8 x float> %x, <8 x i1> %m, ptr @[[P]].desc, <8 x float> %y)
; CHECK-NOT:   define internal {{.*}}.lanes(
; CHECK-NOT:   define internal {{.*}}.probe(
; CHECK-NOT:   define internal {{.*}}.slow(
; CHECK:       attributes #[[NB]] = { nobuiltin }
define float @f(float %x, float %y) #0 {
entry:
  %s = fsub float %x, %y
  %e = call float @llvm.exp.f32(float %s)
  ret float %e
}
define float @g(float %x, float %y) #0 {
entry:
  %c = fcmp ogt float %x, 0.0
  br i1 %c, label %then, label %exit
then:
  %p = call float @powf(float %x, float %y)
  br label %exit
exit:
  %r = phi float [ %p, %then ], [ 0.0, %entry ]
  ret float %r
}
declare float @llvm.exp.f32(float)
declare float @powf(float, float)
attributes #0 = { "target-cpu"="haswell" "target-features"="+avx,+avx2,+fma,+sse4.2" }
