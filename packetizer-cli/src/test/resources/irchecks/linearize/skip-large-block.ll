; A block of 48 instructions under a divergent branch is worth skipping at run time when no lane
; takes the branch (skip threshold 40): a real branch on an any-lane test jumps around it. The loop
; is there so that partial blocks really occur.
; RUN: packetize -f f -w 8 --params v --remarks
; SHAPES:      remark: f:heavy: skip-if-empty: block is skipped when no lane is active
; CHECK-LABEL: define <8 x float> @f_simd8(<8 x float> %x)
; CHECK:       {{llvm.vector.reduce.or.v8i1|bitcast <8 x i1> .* to i8}}
; CHECK:       br i1 {{.*}}, label %{{.*}}, label %{{.*}}
; CHECK:       fmul <8 x float>
; CHECK:       ret <8 x float>
define float @f(float %x) {
entry:
  %c = fcmp ogt float %x, 2.0
  br i1 %c, label %heavy, label %join
heavy:
  %t0 = fmul float %x, 1.0000
  %t1 = fadd float %t0, 1.1250
  %t2 = fsub float %t1, 1.2500
  %t3 = fmul float %t2, 1.3750
  %t4 = fadd float %t3, 1.5000
  %t5 = fsub float %t4, 1.6250
  %t6 = fmul float %t5, 1.7500
  %t7 = fadd float %t6, 1.8750
  %t8 = fsub float %t7, 2.0000
  %t9 = fmul float %t8, 2.1250
  %t10 = fadd float %t9, 2.2500
  %t11 = fsub float %t10, 2.3750
  %t12 = fmul float %t11, 2.5000
  %t13 = fadd float %t12, 2.6250
  %t14 = fsub float %t13, 2.7500
  %t15 = fmul float %t14, 2.8750
  %t16 = fadd float %t15, 3.0000
  %t17 = fsub float %t16, 3.1250
  %t18 = fmul float %t17, 3.2500
  %t19 = fadd float %t18, 3.3750
  %t20 = fsub float %t19, 3.5000
  %t21 = fmul float %t20, 3.6250
  %t22 = fadd float %t21, 3.7500
  %t23 = fsub float %t22, 3.8750
  %t24 = fmul float %t23, 4.0000
  %t25 = fadd float %t24, 4.1250
  %t26 = fsub float %t25, 4.2500
  %t27 = fmul float %t26, 4.3750
  %t28 = fadd float %t27, 4.5000
  %t29 = fsub float %t28, 4.6250
  %t30 = fmul float %t29, 4.7500
  %t31 = fadd float %t30, 4.8750
  %t32 = fsub float %t31, 5.0000
  %t33 = fmul float %t32, 5.1250
  %t34 = fadd float %t33, 5.2500
  %t35 = fsub float %t34, 5.3750
  %t36 = fmul float %t35, 5.5000
  %t37 = fadd float %t36, 5.6250
  %t38 = fsub float %t37, 5.7500
  %t39 = fmul float %t38, 5.8750
  %t40 = fadd float %t39, 6.0000
  %t41 = fsub float %t40, 6.1250
  %t42 = fmul float %t41, 6.2500
  %t43 = fadd float %t42, 6.3750
  %t44 = fsub float %t43, 6.5000
  %t45 = fmul float %t44, 6.6250
  %t46 = fadd float %t45, 6.7500
  %t47 = fsub float %t46, 6.8750
  br label %join
join:
  %r = phi float [ %t47, %heavy ], [ %x, %entry ]
  ret float %r
}
