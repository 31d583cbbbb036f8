; Vector values built, combined and taken apart inside a scalar function (what SLP emits).
; check @dot3: varying, varying, varying, varying, varying, varying
; check @shuf: varying, varying, varying, varying
; check @ints: varying, varying, uniform
; check @reduce: varying, varying, varying, varying
; check @reduce_fast: varying, varying, varying, varying
; check @intrin: varying, varying, varying, varying
; check @div: varying, varying
define float @dot3(float %ax, float %ay, float %az, float %bx, float %by, float %bz) {
  %a0 = insertelement <4 x float> poison, float %ax, i32 0
  %a1 = insertelement <4 x float> %a0, float %ay, i32 1
  %a2 = insertelement <4 x float> %a1, float %az, i32 2
  %a = insertelement <4 x float> %a2, float 0.0, i32 3
  %b0 = insertelement <4 x float> poison, float %bx, i32 0
  %b1 = insertelement <4 x float> %b0, float %by, i32 1
  %b = insertelement <4 x float> %b1, float %bz, i64 2
  %m = fmul <4 x float> %a, %b
  %x = extractelement <4 x float> %m, i32 0
  %y = extractelement <4 x float> %m, i64 1
  %z = extractelement <4 x float> %m, i32 2
  %s = fadd float %x, %y
  %t = fadd float %s, %z
  ret float %t
}
define float @shuf(float %a, float %b, float %c, float %d) {
  %v0 = insertelement <2 x float> poison, float %a, i32 0
  %v = insertelement <2 x float> %v0, float %b, i32 1
  %u0 = insertelement <2 x float> poison, float %c, i32 0
  %u = insertelement <2 x float> %u0, float %d, i32 1
  %cat = shufflevector <2 x float> %v, <2 x float> %u, <4 x i32> <i32 3, i32 0, i32 2, i32 1>
  %sp = shufflevector <4 x float> %cat, <4 x float> poison, <4 x i32> <i32 1, i32 1, i32 undef, i32 0>
  %k = shufflevector <4 x float> %sp, <4 x float> <float 1.0, float 2.0, float 3.0, float 4.0>, <3 x i32> <i32 0, i32 6, i32 3>
  %n = fneg <3 x float> %k
  %q = fsub <3 x float> %n, <float 0.5, float 0.25, float 0.125>
  %e0 = extractelement <3 x float> %q, i32 0
  %e1 = extractelement <3 x float> %q, i32 1
  %e2 = extractelement <3 x float> %q, i32 2
  %r0 = fmul float %e0, %e1
  %r = fadd float %r0, %e2
  ret float %r
}
define i32 @ints(i32 %a, i32 %b, <4 x i32> %u) {
  %v0 = insertelement <4 x i32> poison, i32 %a, i32 0
  %v1 = insertelement <4 x i32> %v0, i32 %b, i32 1
  %v = shufflevector <4 x i32> %v1, <4 x i32> poison, <4 x i32> <i32 0, i32 1, i32 0, i32 1>
  %m = mul <4 x i32> %v, %u
  %x = xor <4 x i32> %m, <i32 7, i32 -1, i32 3, i32 255>
  %sh = ashr <4 x i32> %x, <i32 1, i32 2, i32 3, i32 4>
  %tr = trunc <4 x i32> %sh to <4 x i16>
  %ze = zext <4 x i16> %tr to <4 x i64>
  %r = call i64 @llvm.vector.reduce.add.v4i64(<4 x i64> %ze)
  %mx = call i32 @llvm.vector.reduce.smax.v4i32(<4 x i32> %sh)
  %mn = call i32 @llvm.vector.reduce.umin.v4i32(<4 x i32> %x)
  %o = call i32 @llvm.vector.reduce.or.v4i32(<4 x i32> %m)
  %r32 = trunc i64 %r to i32
  %s1 = add i32 %r32, %mx
  %s2 = xor i32 %s1, %mn
  %s3 = sub i32 %s2, %o
  ret i32 %s3
}
define float @reduce(float %a, float %b, float %c, float %d) {
  %v0 = insertelement <4 x float> poison, float %a, i32 0
  %v1 = insertelement <4 x float> %v0, float %b, i32 1
  %v2 = insertelement <4 x float> %v1, float %c, i32 2
  %v = insertelement <4 x float> %v2, float %d, i32 3
  %s = call float @llvm.vector.reduce.fadd.v4f32(float -0.0, <4 x float> %v)
  %p = call float @llvm.vector.reduce.fmul.v4f32(float 1.5, <4 x float> %v)
  %mx = call float @llvm.vector.reduce.fmax.v4f32(<4 x float> %v)
  %mn = call float @llvm.vector.reduce.fminimum.v4f32(<4 x float> %v)
  %t0 = fadd float %s, %p
  %t1 = fsub float %t0, %mx
  %t2 = fmul float %t1, %mn
  ret float %t2
}
define float @reduce_fast(float %a, float %b, float %c, float %d) {
  %v0 = insertelement <4 x float> poison, float %a, i32 0
  %v1 = insertelement <4 x float> %v0, float %b, i32 1
  %v2 = insertelement <4 x float> %v1, float %c, i32 2
  %v = insertelement <4 x float> %v2, float %d, i32 3
  %s = call reassoc float @llvm.vector.reduce.fadd.v4f32(float 0.0, <4 x float> %v)
  ret float %s
}
define float @intrin(float %a, float %b, float %c, float %d) {
  %v0 = insertelement <4 x float> poison, float %a, i32 0
  %v1 = insertelement <4 x float> %v0, float %b, i32 1
  %v2 = insertelement <4 x float> %v1, float %c, i32 2
  %v = insertelement <4 x float> %v2, float %d, i32 3
  %w = shufflevector <4 x float> %v, <4 x float> poison, <4 x i32> <i32 3, i32 2, i32 1, i32 0>
  %ab = call <4 x float> @llvm.fabs.v4f32(<4 x float> %v)
  %sq = call <4 x float> @llvm.sqrt.v4f32(<4 x float> %ab)
  %f = call <4 x float> @llvm.fma.v4f32(<4 x float> %sq, <4 x float> %w, <4 x float> %v)
  %mn = call <4 x float> @llvm.minnum.v4f32(<4 x float> %f, <4 x float> %w)
  %mx = call <4 x float> @llvm.maxnum.v4f32(<4 x float> %mn, <4 x float> <float 0.0, float -1.0, float 1.0, float 2.0>)
  %fl = call <4 x float> @llvm.floor.v4f32(<4 x float> %mx)
  %i = fptosi <4 x float> %fl to <4 x i32>
  %ia = call <4 x i32> @llvm.abs.v4i32(<4 x i32> %i, i1 false)
  %im = call <4 x i32> @llvm.smin.v4i32(<4 x i32> %ia, <4 x i32> <i32 100, i32 100, i32 100, i32 100>)
  %back = sitofp <4 x i32> %im to <4 x float>
  %sum = fadd <4 x float> %back, %mx
  %r = call float @llvm.vector.reduce.fadd.v4f32(float 0.0, <4 x float> %sum)
  ret float %r
}
define i32 @div(i32 %a, i32 %b) {
entry:
  %c = icmp sgt i32 %b, 0
  br i1 %c, label %t, label %e
t:
  %v0 = insertelement <2 x i32> poison, i32 %a, i32 0
  %v = insertelement <2 x i32> %v0, i32 1000, i32 1
  %d0 = insertelement <2 x i32> poison, i32 %b, i32 0
  %d = shufflevector <2 x i32> %d0, <2 x i32> poison, <2 x i32> zeroinitializer
  %q = sdiv <2 x i32> %v, %d
  %q0 = extractelement <2 x i32> %q, i32 0
  %q1 = extractelement <2 x i32> %q, i32 1
  %qs = add i32 %q0, %q1
  br label %e
e:
  %r = phi i32 [ %qs, %t ], [ %a, %entry ]
  ret i32 %r
}
declare i64 @llvm.vector.reduce.add.v4i64(<4 x i64>)
declare i32 @llvm.vector.reduce.smax.v4i32(<4 x i32>)
declare i32 @llvm.vector.reduce.umin.v4i32(<4 x i32>)
declare i32 @llvm.vector.reduce.or.v4i32(<4 x i32>)
declare float @llvm.vector.reduce.fadd.v4f32(float, <4 x float>)
declare float @llvm.vector.reduce.fmul.v4f32(float, <4 x float>)
declare float @llvm.vector.reduce.fmax.v4f32(<4 x float>)
declare float @llvm.vector.reduce.fminimum.v4f32(<4 x float>)
declare <4 x float> @llvm.fabs.v4f32(<4 x float>)
declare <4 x float> @llvm.sqrt.v4f32(<4 x float>)
declare <4 x float> @llvm.fma.v4f32(<4 x float>, <4 x float>, <4 x float>)
declare <4 x float> @llvm.minnum.v4f32(<4 x float>, <4 x float>)
declare <4 x float> @llvm.maxnum.v4f32(<4 x float>, <4 x float>)
declare <4 x float> @llvm.floor.v4f32(<4 x float>)
declare <4 x i32> @llvm.abs.v4i32(<4 x i32>, i1)
declare <4 x i32> @llvm.smin.v4i32(<4 x i32>, <4 x i32>)
