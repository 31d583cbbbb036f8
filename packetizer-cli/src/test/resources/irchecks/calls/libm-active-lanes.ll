; The bit-exact vector math mode under a partial mask: llvm.exp10 has no vector instruction, so its
; vector form would be W libm calls whatever the mask; instead the active lanes call the scalar
; intrinsic in a loop over the mask's set bits (cttz, clear the lowest bit). Under a full mask
; (the first call, placed after the loop) a counted loop over all lanes through stack arrays.
; RUN: packetize -f f -w 8 --params v --vector-math=intrinsics --remarks
; CHECK-LABEL: define <8 x float> @f_simd8(<8 x float> %x)
; CHECK:       bitcast <8 x i1> %{{.*}} to i8
; CHECK:       {{.*}}.lanes:
; CHECK:       @llvm.cttz.i8(i8 %lanes.left, i1 true)
; CHECK:       extractelement <8 x float> %{{.*}}, i32 %lane
; CHECK:       call float @llvm.exp10.f32(float
; CHECK:       insertelement <8 x float> %{{.*}}, float %{{.*}}, i32 %lane
; CHECK:       store <8 x float> %x, ptr %e0.arg
; CHECK:       phi i64 [ 0, {{.*}} ]
; CHECK:       call float @llvm.exp10.f32(float
; CHECK-NOT:   @llvm.exp10.v8f32
; SHAPES:      call to llvm.exp10.f32 became llvm.exp10 on each active lane (a loop over the mask's set lanes
define float @f(float %x) {
entry:
  %e0 = call float @llvm.exp10.f32(float %x)
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
  %e = call float @llvm.exp10.f32(float %n)
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
declare float @llvm.exp10.f32(float)
