; A vector library call under a partial mask is skipped when no lane is active: a linearized branch
; runs its block for every packet, and a rarely taken branch (a ray marcher's absorption step) would
; otherwise pay the whole vector call each time. Under a full mask there is no test. The test is the
; call's own (%any.call) or, when the cost model of the any-lane test guards the whole block (a call
; costs 10 per lane), the block's (%any.then): either way no library call without an active lane.
; RUN: packetize -f f -w 8 --params v --vector-math libmvec
; CHECK-LABEL: define <8 x float> @f_simd8(<8 x float> %x)
; CHECK:       call <8 x float> @_ZGVdN8v_expf(<8 x float> %x)
; CHECK:       bitcast <8 x i1> %{{.*}} to i8
; CHECK:       %any.{{call|then}}.not = icmp eq i8
; CHECK:       br i1 %any.{{call|then}}.not, label %{{.*}}, label %then{{[.a-z]*}}.call
; CHECK:       then{{[.a-z]*}}.call:
; CHECK:       call <8 x float> @_ZGVdN8v_logf(
; CHECK:       phi <8 x float> [ {{poison|zeroinitializer}}, %{{.*}} ], [ %{{.*}}, %then{{[.a-z]*}}.call ]
define float @f(float %x) #0 {
entry:
  %e = call float @expf(float %x)
  %c = fcmp ogt float %x, 0.0
  br i1 %c, label %then, label %done
then:
  %l = call float @logf(float %x)
  br label %done
done:
  %r = phi float [ %l, %then ], [ 0.0, %entry ]
  %s = fadd float %r, %e
  ret float %s
}
declare float @logf(float)
declare float @expf(float)
attributes #0 = { "target-cpu"="haswell" "target-features"="+avx,+avx2,+fma,+sse4.2" }
