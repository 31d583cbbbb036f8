; Struct-of-arrays kernels for WrapperBenchmark, besides the testdata set's: one with a divergent
; loop (real work per call) and one with little work per call (the wrapper's copies dominate).
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

; Mandelbrot's escape loop with a colour result through a struct-of-arrays pointer: real work per
; call plus the wrapper's copies of three leaves.
define void @escape_color(float %cx, float %cy, i32 %maxIter, ptr %out) {
entry:
  br label %loop
loop:
  %x = phi float [ 0.0, %entry ], [ %xn, %loop ]
  %y = phi float [ 0.0, %entry ], [ %yn, %loop ]
  %i = phi i32 [ 0, %entry ], [ %i1, %loop ]
  %x2 = fmul float %x, %x
  %y2 = fmul float %y, %y
  %xy = fmul float %x, %y
  %d = fsub float %x2, %y2
  %xn = fadd float %d, %cx
  %xy2 = fadd float %xy, %xy
  %yn = fadd float %xy2, %cy
  %i1 = add i32 %i, 1
  %r2 = fadd float %x2, %y2
  %esc = fcmp ogt float %r2, 4.0
  %last = icmp sge i32 %i1, %maxIter
  %stop = or i1 %esc, %last
  br i1 %stop, label %exit, label %loop
exit:
  %n = phi i32 [ %i1, %loop ]
  %rr = phi float [ %r2, %loop ]
  %nf = sitofp i32 %n to float
  %t = fmul float %nf, 0.0078125
  %g = fmul float %t, %t
  %b = fmul float %rr, 0.125
  store float %t, ptr %out, align 4
  %gp = getelementptr inbounds { float, float, float }, ptr %out, i64 0, i32 1
  store float %g, ptr %gp, align 4
  %bp = getelementptr inbounds { float, float, float }, ptr %out, i64 0, i32 2
  store float %b, ptr %bp, align 4
  ret void
}

; Straight-line math with one divergent branch between struct-of-arrays input and output: normalise
; a vector (zero when it is too short) and map it to a colour.
define void @soa_math(ptr %in, ptr %out) {
entry:
  %x = load float, ptr %in, align 4
  %yp = getelementptr inbounds { float, float, float }, ptr %in, i64 0, i32 1
  %y = load float, ptr %yp, align 4
  %zp = getelementptr inbounds { float, float, float }, ptr %in, i64 0, i32 2
  %z = load float, ptr %zp, align 4
  %xx = fmul float %x, %x
  %yy = fmul float %y, %y
  %zz = fmul float %z, %z
  %s0 = fadd float %xx, %yy
  %s = fadd float %s0, %zz
  %len = call float @llvm.sqrt.f32(float %s)
  %ok = fcmp ogt float %len, 0x3EB0C6F7A0000000
  br i1 %ok, label %norm, label %join
norm:
  %inv = fdiv float 1.0, %len
  br label %join
join:
  %k = phi float [ %inv, %norm ], [ 0.0, %entry ]
  %nx = fmul float %x, %k
  %ny = fmul float %y, %k
  %nz = fmul float %z, %k
  %r0 = fmul float %nx, 0.5
  %r = fadd float %r0, 0.5
  %g0 = fmul float %ny, 0.5
  %g = fadd float %g0, 0.5
  %b0 = fmul float %nz, 0.5
  %b = fadd float %b0, 0.5
  store float %r, ptr %out, align 4
  %gp = getelementptr inbounds { float, float, float }, ptr %out, i64 0, i32 1
  store float %g, ptr %gp, align 4
  %bp = getelementptr inbounds { float, float, float }, ptr %out, i64 0, i32 2
  store float %b, ptr %bp, align 4
  ret void
}

declare float @llvm.sqrt.f32(float)
