; Aggregates in registers: returned, passed by value, inserted, extracted, nested, arrays, phis and
; selects under divergence, loads and stores.
; check @ret_pair: varying, varying
; check @nested: varying, varying, varying
; check @agg_phi: varying, varying
; check @agg_select: varying, varying
; check @byval: varying, varying
; check @byval_uniform: uniform, varying
; check @agg_mem: lptr:{_i64,_float_}:16:16:inout, varying
; check @agg_gather: uptr:{_i32,_[2_x_i16]_}:8:in, varying
; check @array_ret: varying
; check @agg_store_uniform: uptr:{_i32,_float_}:1:out, varying
define { i64, float } @ret_pair(i64 %a, float %b) {
  %x = mul i64 %a, 3
  %y = fadd float %b, 1.0
  %r0 = insertvalue { i64, float } poison, i64 %x, 0
  %r = insertvalue { i64, float } %r0, float %y, 1
  ret { i64, float } %r
}
define float @nested(float %a, i32 %b, float %c) {
  %s0 = insertvalue { { float, float }, [2 x i32] } poison, float %a, 0, 0
  %s1 = insertvalue { { float, float }, [2 x i32] } %s0, float %c, 0, 1
  %s2 = insertvalue { { float, float }, [2 x i32] } %s1, i32 %b, 1, 0
  %s3 = insertvalue { { float, float }, [2 x i32] } %s2, i32 7, 1, 1
  %in = extractvalue { { float, float }, [2 x i32] } %s3, 0
  %x = extractvalue { float, float } %in, 1
  %i = extractvalue { { float, float }, [2 x i32] } %s3, 1, 0
  %j = extractvalue { { float, float }, [2 x i32] } %s3, 1, 1
  %ij = mul i32 %i, %j
  %f = sitofp i32 %ij to float
  %y = extractvalue { { float, float }, [2 x i32] } %s3, 0, 0
  %r0 = fmul float %x, %y
  %r = fadd float %r0, %f
  ret float %r
}
define { i32, double } @agg_phi(i32 %a, double %b) {
entry:
  %c = icmp sgt i32 %a, 0
  %p0 = insertvalue { i32, double } poison, i32 %a, 0
  %p = insertvalue { i32, double } %p0, double %b, 1
  br i1 %c, label %t, label %j
t:
  %q = insertvalue { i32, double } %p, i32 -1, 0
  br label %h
h:
  %i = phi i32 [ 0, %t ], [ %i1, %h ]
  %acc = phi { i32, double } [ %q, %t ], [ %acc2, %h ]
  %d = extractvalue { i32, double } %acc, 1
  %d2 = fmul double %d, 1.5
  %acc2 = insertvalue { i32, double } %acc, double %d2, 1
  %i1 = add i32 %i, 1
  %more = icmp slt i32 %i1, %a
  br i1 %more, label %h, label %j
j:
  %r = phi { i32, double } [ %p, %entry ], [ %acc2, %h ]
  ret { i32, double } %r
}
define [2 x float] @agg_select(float %a, float %b) {
  %x0 = insertvalue [2 x float] poison, float %a, 0
  %x = insertvalue [2 x float] %x0, float %b, 1
  %y = insertvalue [2 x float] %x, float 0.0, 0
  %c = fcmp olt float %a, %b
  %r = select i1 %c, [2 x float] %x, [2 x float] %y
  ret [2 x float] %r
}
define float @byval({ float, i32 } %s, float %k) {
  %f = extractvalue { float, i32 } %s, 0
  %i = extractvalue { float, i32 } %s, 1
  %fi = sitofp i32 %i to float
  %m = fmul float %f, %k
  %r = fadd float %m, %fi
  ret float %r
}
define { float, i32 } @byval_uniform({ float, i32 } %s, float %k) {
  %f = extractvalue { float, i32 } %s, 0
  %m = fmul float %f, %k
  %r = insertvalue { float, i32 } %s, float %m, 0
  ret { float, i32 } %r
}
define float @agg_mem(ptr %p, float %k) {
entry:
  %v = load { i64, float }, ptr %p, align 8
  %f = extractvalue { i64, float } %v, 1
  %c = fcmp ogt float %k, %f
  br i1 %c, label %t, label %x
t:
  %i = extractvalue { i64, float } %v, 0
  %i2 = add i64 %i, 1
  %w0 = insertvalue { i64, float } %v, i64 %i2, 0
  %w = insertvalue { i64, float } %w0, float %k, 1
  store { i64, float } %w, ptr %p, align 8
  br label %x
x:
  ret float %f
}
define i32 @agg_gather(ptr %tab, i32 %i) {
  %j = and i32 %i, 7
  %q = getelementptr { i32, [2 x i16] }, ptr %tab, i32 %j
  %v = load { i32, [2 x i16] }, ptr %q, align 4
  %a = extractvalue { i32, [2 x i16] } %v, 0
  %b = extractvalue { i32, [2 x i16] } %v, 1, 1
  %bz = sext i16 %b to i32
  %r = add i32 %a, %bz
  ret i32 %r
}
define [3 x i8] @array_ret(i8 %a) {
  %b = add i8 %a, 1
  %c = mul i8 %a, %a
  %r0 = insertvalue [3 x i8] poison, i8 %a, 0
  %r1 = insertvalue [3 x i8] %r0, i8 %b, 1
  %r = insertvalue [3 x i8] %r1, i8 %c, 2
  ret [3 x i8] %r
}
define void @agg_store_uniform(ptr %p, i32 %a) {
entry:
  %c = icmp slt i32 %a, 100
  br i1 %c, label %t, label %x
t:
  %f = sitofp i32 %a to float
  %s0 = insertvalue { i32, float } poison, i32 %a, 0
  %s = insertvalue { i32, float } %s0, float %f, 1
  store { i32, float } %s, ptr %p, align 4
  br label %x
x:
  ret void
}
