; A libmvec call in a block that may run with a partial mask gets 1.0 in its inactive lanes (inside
; every function's fast domain), so garbage in those lanes cannot send it down its slow path.
; RUN: packetize -f f -w 8 --params v --vector-math libmvec
; CHECK-LABEL: define <8 x float> @f_simd8(<8 x float> %x)
; CHECK:       [[A:%[a-z0-9.]+]] = select <8 x i1> {{.*}}, <8 x float> {{(%x, <8 x float> splat \(float 1.000000e\+00\)|splat \(float 1.000000e\+00\), <8 x float> %x)}}
; CHECK:       call <8 x float> @_ZGVdN8v_logf(<8 x float> [[A]])
define float @f(float %x) #0 {
entry:
  %c = fcmp ogt float %x, 0.0
  br i1 %c, label %then, label %done
then:
  %l = call float @logf(float %x)
  br label %done
done:
  %r = phi float [ %l, %then ], [ 0.0, %entry ]
  ret float %r
}
declare float @logf(float)
attributes #0 = { "target-cpu"="haswell" "target-features"="+avx,+avx2,+fma,+sse4.2" }
