; The bit-exact vector math mode: llvm.exp (expf) becomes glibc's own algorithm as vector IR, a call of
; the internal helper with the lanes' mask (all true under a full mask), no per-lane loop in the packet
; function; the helper checks the linked libm once per process (issue 16).
; RUN: packetize -f f -w 8 --params v --vector-math=intrinsics --remarks
; CHECK-LABEL: define <8 x float> @f_simd8(<8 x float> %x)
; CHECK:       call <8 x float> @__packetizer_glibc_expf_v8_{{.*}}(<8 x float> %{{.*}}, <8 x i1> %{{.*}})
; CHECK:       call <8 x float> @__packetizer_glibc_expf_v8_{{.*}}(<8 x float> %x, <8 x i1> splat (i1 true))
; CHECK-NOT:   @llvm.exp.
; CHECK-LABEL: define internal <8 x float> @__packetizer_glibc_expf_v8_
; CHECK:       load atomic i8, ptr @__packetizer_glibc_expf_v8_{{.*}}.ok monotonic
; SHAPES:      call to llvm.exp.f32 became glibc-exact vector (verified at run time)
define float @f(float %x) {
entry:
  %e0 = call float @llvm.exp.f32(float %x)
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i1, %latch ]
  %t = phi float [ 1.0, %entry ], [ %t1, %latch ]
  %fi = sitofp i32 %i to float
  %s = fsub float %x, %fi
  %c = fcmp ogt float %s, 0.25
  br i1 %c, label %then, label %latch
then:
  %n = fneg float %s
  %e = call float @llvm.exp.f32(float %n)
  %te = fmul float %t, %e
  %small = fcmp olt float %te, 6.250000e-02
  br i1 %small, label %exit, label %latch
latch:
  %t1 = phi float [ %te, %then ], [ %t, %loop ]
  %i1 = add i32 %i, 1
  %more = icmp slt i32 %i1, 16
  br i1 %more, label %loop, label %exit
exit:
  %r = phi float [ %te, %then ], [ %t1, %latch ]
  %out = fadd float %r, %e0
  ret float %out
}
declare float @llvm.exp.f32(float)
