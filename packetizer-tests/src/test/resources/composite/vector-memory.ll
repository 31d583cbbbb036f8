; Loads and stores of vectors through consecutive, uniform and gathered addresses, under
; divergent control flow (masked), and through per-lane stack slots.
; check @consec: lptr:<4_x_float>:16:16:inout, varying
; check @consec3: lptr:<3_x_float>:16:16:inout, varying
; check @gathered: uptr:<2_x_i32>:8:in, varying, vptr:<2_x_i32>:1:out
; check @uniform_addr: uptr:<4_x_float>:2:inout, varying
; check @ints8: lptr:<8_x_i16>:16:16:inout, varying
; check @viastack: varying, varying
define void @consec(ptr %p, float %s) {
entry:
  %v = load <4 x float>, ptr %p, align 16
  %c = fcmp ogt float %s, 0.0
  br i1 %c, label %t, label %x
t:
  %s0 = insertelement <4 x float> poison, float %s, i32 0
  %sp = shufflevector <4 x float> %s0, <4 x float> poison, <4 x i32> zeroinitializer
  %m = fmul <4 x float> %v, %sp
  store <4 x float> %m, ptr %p, align 16
  br label %x
x:
  ret void
}
define float @consec3(ptr %p, float %s) {
entry:
  %v = load <3 x float>, ptr %p, align 4
  %c = fcmp ogt float %s, 0.0
  br i1 %c, label %t, label %x
t:
  %m = fadd <3 x float> %v, <float 1.0, float 2.0, float 3.0>
  store <3 x float> %m, ptr %p, align 4
  %e = extractelement <3 x float> %m, i32 2
  br label %x
x:
  %r = phi float [ %e, %t ], [ %s, %entry ]
  ret float %r
}
define void @gathered(ptr %tab, i32 %i, ptr %out) {
entry:
  %j = and i32 %i, 7
  %q = getelementptr <2 x i32>, ptr %tab, i32 %j
  %c = icmp slt i32 %i, 1000
  br i1 %c, label %t, label %x
t:
  %v = load <2 x i32>, ptr %q, align 4
  %w = shufflevector <2 x i32> %v, <2 x i32> poison, <2 x i32> <i32 1, i32 0>
  %s = sub <2 x i32> %v, %w
  store <2 x i32> %s, ptr %out, align 4
  br label %x
x:
  ret void
}
define float @uniform_addr(ptr %p, float %a) {
entry:
  %v = load <4 x float>, ptr %p, align 16
  %e = extractelement <4 x float> %v, i32 2
  %c = fcmp olt float %a, %e
  br i1 %c, label %t, label %x
t:
  %n = insertelement <4 x float> %v, float %a, i32 1
  %q = getelementptr <4 x float>, ptr %p, i32 1
  store <4 x float> %n, ptr %q, align 16
  br label %x
x:
  %r = phi float [ %a, %t ], [ %e, %entry ]
  ret float %r
}
define i16 @ints8(ptr %p, i16 %k) {
  %v = load <8 x i16>, ptr %p, align 2
  %k0 = insertelement <8 x i16> poison, i16 %k, i32 0
  %ks = shufflevector <8 x i16> %k0, <8 x i16> poison, <8 x i32> zeroinitializer
  %m = mul <8 x i16> %v, %ks
  %mx = call <8 x i16> @llvm.umax.v8i16(<8 x i16> %m, <8 x i16> %v)
  store <8 x i16> %mx, ptr %p, align 2
  %r = call i16 @llvm.vector.reduce.add.v8i16(<8 x i16> %mx)
  ret i16 %r
}
define float @viastack(float %a, float %b) {
  %slot = alloca <2 x float>, align 8
  %v0 = insertelement <2 x float> poison, float %a, i32 0
  %v = insertelement <2 x float> %v0, float %b, i32 1
  store <2 x float> %v, ptr %slot, align 8
  %q = getelementptr float, ptr %slot, i32 1
  %y = load float, ptr %q, align 4
  %w = load <2 x float>, ptr %slot, align 8
  %x = extractelement <2 x float> %w, i32 0
  %r = fsub float %x, %y
  ret float %r
}
declare <8 x i16> @llvm.umax.v8i16(<8 x i16>, <8 x i16>)
declare i16 @llvm.vector.reduce.add.v8i16(<8 x i16>)
; SLP code on a struct-of-arrays object: two adjacent floats loaded and stored as one <2 x float>
; check @soa_pair: sptr:{_float,_float,_float_}:4:inout, varying
define void @soa_pair(ptr %o, i32 %i) {
entry:
  %j = and i32 %i, 3
  %e = getelementptr { float, float, float }, ptr %o, i32 %j
  %yz = getelementptr i8, ptr %e, i64 4
  %v = load <2 x float>, ptr %e, align 4
  %c = icmp sgt i32 %i, 5
  br i1 %c, label %t, label %x
t:
  %w = fadd <2 x float> %v, <float 1.0, float -1.0>
  store <2 x float> %w, ptr %yz, align 4
  br label %x
x:
  %u = load <2 x float>, ptr %o, align 4
  %s = fmul <2 x float> %u, <float 2.0, float 2.0>
  store <2 x float> %s, ptr %o, align 4
  ret void
}
