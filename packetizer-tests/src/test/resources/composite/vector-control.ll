; Varying indices, vector compares and selects, bit casts between vector shapes, phis of vectors.
; check @varidx: varying, varying, varying
; check @uniidx: varying, uniform
; check @cmpsel: varying, varying, varying, varying
; check @bits: varying, varying, varying
; check @bits2: varying, varying
; check @vphi: varying, varying
; check @vloop: varying, varying
; check @vparam: varying, varying
; check @vparam_uniform: varying, uniform
; check @mask_ret: varying, varying
define float @varidx(float %a, float %b, i32 %i) {
  %v0 = insertelement <4 x float> <float 1.0, float 2.0, float 3.0, float 4.0>, float %a, i32 0
  %j = and i32 %i, 3
  %v = insertelement <4 x float> %v0, float %b, i32 %j
  %k = xor i32 %j, 1
  %e = extractelement <4 x float> %v, i32 %k
  %f = extractelement <4 x float> %v, i32 %j
  %r = fsub float %e, %f
  ret float %r
}
define i64 @uniidx(i64 %a, i32 %u) {
  %j = and i32 %u, 1
  %v = insertelement <2 x i64> <i64 10, i64 20>, i64 %a, i32 %j
  %w = add <2 x i64> %v, <i64 1, i64 2>
  %e0 = extractelement <2 x i64> %w, i32 %j
  %e1 = extractelement <2 x i64> %w, i32 1
  %r = mul i64 %e0, %e1
  ret i64 %r
}
define float @cmpsel(float %a, float %b, float %c, float %d) {
  %v0 = insertelement <4 x float> poison, float %a, i32 0
  %v1 = insertelement <4 x float> %v0, float %b, i32 1
  %v2 = insertelement <4 x float> %v1, float %c, i32 2
  %v = insertelement <4 x float> %v2, float %d, i32 3
  %w = shufflevector <4 x float> %v, <4 x float> poison, <4 x i32> <i32 1, i32 2, i32 3, i32 0>
  %lt = fcmp olt <4 x float> %v, %w
  %m = select <4 x i1> %lt, <4 x float> %v, <4 x float> %w
  %s = fcmp ogt float %a, %b
  %n = select i1 %s, <4 x float> %m, <4 x float> %w
  %nz = icmp ne <4 x i32> <i32 0, i32 1, i32 0, i32 1>, zeroinitializer
  %o = select <4 x i1> %nz, <4 x float> %n, <4 x float> <float 9.0, float 9.0, float 9.0, float 9.0>
  %any = call i1 @llvm.vector.reduce.or.v4i1(<4 x i1> %lt)
  %z = zext <4 x i1> %lt to <4 x i32>
  %cnt = call i32 @llvm.vector.reduce.add.v4i32(<4 x i32> %z)
  %cf = sitofp i32 %cnt to float
  %sum = call float @llvm.vector.reduce.fadd.v4f32(float %cf, <4 x float> %o)
  %r = select i1 %any, float %sum, float -1.0
  ret float %r
}
define double @bits(float %x, float %y, i64 %z) {
  %v0 = insertelement <2 x float> poison, float %x, i32 0
  %v = insertelement <2 x float> %v0, float %y, i32 1
  %asi = bitcast <2 x float> %v to i64
  %asd = bitcast <2 x float> %v to double
  %s = xor i64 %asi, %z
  %back = bitcast i64 %s to <2 x float>
  %b0 = extractelement <2 x float> %back, i32 0
  %b1 = extractelement <2 x float> %back, i32 1
  %as4 = bitcast i64 %z to <4 x i16>
  %h = extractelement <4 x i16> %as4, i32 3
  %hf = uitofp i16 %h to float
  %t = fadd float %b0, %b1
  %t2 = fadd float %t, %hf
  %td = fpext float %t2 to double
  %r = fadd double %td, %asd
  ret double %r
}
define i32 @bits2(i32 %a, i32 %b) {
  %v0 = insertelement <4 x i32> poison, i32 %a, i32 0
  %v1 = insertelement <4 x i32> %v0, i32 %b, i32 1
  %v2 = insertelement <4 x i32> %v1, i32 -7, i32 2
  %v = insertelement <4 x i32> %v2, i32 %a, i32 3
  %l = bitcast <4 x i32> %v to <2 x i64>
  %l2 = lshr <2 x i64> %l, <i64 13, i64 29>
  %s = bitcast <2 x i64> %l2 to <8 x i16>
  %s2 = add <8 x i16> %s, <i16 1, i16 2, i16 3, i16 4, i16 5, i16 6, i16 7, i16 8>
  %q = bitcast <8 x i16> %s2 to <16 x i8>
  %qq = bitcast <16 x i8> %q to <4 x float>
  %qi = bitcast <4 x float> %qq to <4 x i32>
  %r = call i32 @llvm.vector.reduce.xor.v4i32(<4 x i32> %qi)
  %m = bitcast <8 x i16> %s2 to i128
  %mt = trunc i128 %m to i32
  %r2 = add i32 %r, %mt
  %bb = icmp slt <8 x i16> %s2, zeroinitializer
  %bi = bitcast <8 x i1> %bb to i8
  %bz = zext i8 %bi to i32
  %r3 = xor i32 %r2, %bz
  ret i32 %r3
}
define float @vphi(float %a, float %b) {
entry:
  %v0 = insertelement <2 x float> poison, float %a, i32 0
  %v = insertelement <2 x float> %v0, float %b, i32 1
  %c = fcmp ogt float %a, 0.0
  br i1 %c, label %t, label %e
t:
  %m = fmul <2 x float> %v, <float 2.0, float 3.0>
  br label %j
e:
  %n = fsub <2 x float> %v, <float 1.0, float 1.0>
  %c2 = fcmp olt float %b, 0.0
  br i1 %c2, label %j, label %j2
j2:
  %o = shufflevector <2 x float> %n, <2 x float> poison, <2 x i32> <i32 1, i32 0>
  br label %j
j:
  %p = phi <2 x float> [ %m, %t ], [ %n, %e ], [ %o, %j2 ]
  %x = extractelement <2 x float> %p, i32 0
  %y = extractelement <2 x float> %p, i32 1
  %r = fdiv float %x, %y
  ret float %r
}
define float @vloop(float %a, i32 %n) {
entry:
  %cnt = and i32 %n, 15
  %v0 = insertelement <4 x float> zeroinitializer, float %a, i32 0
  br label %h
h:
  %i = phi i32 [ 0, %entry ], [ %i1, %h ]
  %acc = phi <4 x float> [ %v0, %entry ], [ %acc2, %h ]
  %rot = shufflevector <4 x float> %acc, <4 x float> poison, <4 x i32> <i32 3, i32 0, i32 1, i32 2>
  %acc2 = fadd <4 x float> %rot, <float 0.5, float 1.0, float 1.5, float 2.0>
  %i1 = add i32 %i, 1
  %c = icmp slt i32 %i1, %cnt
  br i1 %c, label %h, label %x
x:
  %r = call float @llvm.vector.reduce.fadd.v4f32(float 0.0, <4 x float> %acc2)
  ret float %r
}
; clang's x86-64 lowering of struct vec { float x, y, z; } passed and returned by value
define { <2 x float>, float } @vparam(<2 x float> %xy, float %z) {
  %x = extractelement <2 x float> %xy, i32 0
  %y = extractelement <2 x float> %xy, i32 1
  %l2 = fmul float %x, %x
  %l = call float @llvm.fmuladd.f32(float %y, float %y, float %l2)
  %ll = call float @llvm.fmuladd.f32(float %z, float %z, float %l)
  %len = call float @llvm.sqrt.f32(float %ll)
  %inv = fdiv float 1.0, %len
  %s0 = insertelement <2 x float> poison, float %inv, i32 0
  %s = shufflevector <2 x float> %s0, <2 x float> poison, <2 x i32> zeroinitializer
  %nxy = fmul <2 x float> %xy, %s
  %nz = fmul float %z, %inv
  %r0 = insertvalue { <2 x float>, float } poison, <2 x float> %nxy, 0
  %r = insertvalue { <2 x float>, float } %r0, float %nz, 1
  ret { <2 x float>, float } %r
}
define <4 x i32> @vparam_uniform(<4 x i32> %v, <4 x i32> %u) {
  %a = add <4 x i32> %v, %u
  %c = icmp sgt <4 x i32> %a, %u
  %m = select <4 x i1> %c, <4 x i32> %a, <4 x i32> %u
  ret <4 x i32> %m
}
define <4 x i1> @mask_ret(float %a, float %b) {
  %v0 = insertelement <4 x float> <float 0.0, float 1.0, float -1.0, float 2.0>, float %a, i32 1
  %w0 = insertelement <4 x float> poison, float %b, i32 0
  %w = shufflevector <4 x float> %w0, <4 x float> poison, <4 x i32> zeroinitializer
  %c = fcmp ult <4 x float> %v0, %w
  ret <4 x i1> %c
}
declare i1 @llvm.vector.reduce.or.v4i1(<4 x i1>)
declare i32 @llvm.vector.reduce.add.v4i32(<4 x i32>)
declare i32 @llvm.vector.reduce.xor.v4i32(<4 x i32>)
declare float @llvm.vector.reduce.fadd.v4f32(float, <4 x float>)
declare float @llvm.fmuladd.f32(float, float, float)
declare float @llvm.sqrt.f32(float)
