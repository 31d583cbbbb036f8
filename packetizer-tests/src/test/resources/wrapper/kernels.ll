; Kernels for the wrapper tests (LoopWrapperTest): every parameter kind the wrapper slices, divergent
; control flow and a loop with per-lane trip counts. The data layout is x86-64's.
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

%Color = type { float, float, float }

; varying a, b; uniform u (iteration limit); linear lin. An if/else, then an escape loop whose trip
; count differs per lane (at most u iterations); the counter is uniform inside the divergent loop
; but its value after the loop is not.
define float @mix(float %a, float %b, i32 %u, i32 %lin) {
entry:
  %c = fcmp olt float %a, %b
  br i1 %c, label %then, label %else
then:
  %t = fmul float %a, 0.5
  br label %loop
else:
  %linf = sitofp i32 %lin to float
  %l8 = fmul float %linf, 0.0078125
  %e = fadd float %b, %l8
  br label %loop
loop:
  %x = phi float [ %t, %then ], [ %e, %else ], [ %x1, %body ]
  %i = phi i32 [ 0, %then ], [ 0, %else ], [ %i1, %body ]
  %xx = fmul float %x, %x
  %big = fcmp ogt float %xx, 4.0
  %done = icmp sge i32 %i, %u
  %stop = or i1 %big, %done
  br i1 %stop, label %exit, label %body
body:
  %q = fmul float %a, 0.25
  %x0 = fsub float %xx, 0.5
  %x1 = fadd float %x0, %q
  %i1 = add nsw i32 %i, 1
  br label %loop
exit:
  %if = sitofp i32 %i to float
  %r = fadd float %x, %if
  ret float %r
}

; A struct-of-arrays Color buffer of two objects, read and written at constant offsets under
; divergent control: reads c[0].g and c[1].r, writes c[0].r or c[0].b, always c[0].g.
define void @color(float %a, float %b, ptr %c) {
entry:
  %gp = getelementptr inbounds %Color, ptr %c, i64 0, i32 1
  %g = load float, ptr %gp, align 4
  %r1p = getelementptr inbounds %Color, ptr %c, i64 1, i32 0
  %r1 = load float, ptr %r1p, align 4
  %s0 = fadd float %a, %g
  %s = fadd float %s0, %r1
  %cmp = fcmp ogt float %s, %b
  br i1 %cmp, label %t, label %f
t:
  store float %s, ptr %c, align 4
  br label %j
f:
  %bp = getelementptr inbounds %Color, ptr %c, i64 0, i32 2
  store float %b, ptr %bp, align 4
  br label %j
j:
  %m = fmul float %s, 0.5
  store float %m, ptr %gp, align 4
  ret void
}

; A varying pointer (each lane its own buffer of two floats): reads p[0], writes p[1] when x > 0.
define float @vptr(ptr %p, float %x) {
entry:
  %v = load float, ptr %p, align 4
  %c = fcmp ogt float %x, 0.0
  br i1 %c, label %t, label %j
t:
  %q = getelementptr inbounds float, ptr %p, i64 1
  %s = fadd float %v, %x
  store float %s, ptr %q, align 4
  br label %j
j:
  %r = phi float [ %s, %t ], [ %v, %entry ]
  ret float %r
}

; A linear pointer (lane k writes p + 4k), a uniform table read at a varying index, and a varying
; integer.
define void @lptr(ptr %p, ptr %tab, i32 %i) {
entry:
  %idx = and i32 %i, 7
  %idx64 = zext i32 %idx to i64
  %tp = getelementptr inbounds float, ptr %tab, i64 %idx64
  %t = load float, ptr %tp, align 4
  %c = icmp slt i32 %i, 100
  br i1 %c, label %w, label %j
w:
  %t2 = fmul float %t, 2.0
  store float %t2, ptr %p, align 4
  br label %j
j:
  ret void
}

; A struct-of-arrays parameter indexed at run time: c[i].g with a uniform i. The wrapper cannot know
; which objects it touches.
define float @dyn(ptr %c, i32 %i, float %a) {
entry:
  %i64 = sext i32 %i to i64
  %gp = getelementptr inbounds %Color, ptr %c, i64 %i64, i32 1
  %g = load float, ptr %gp, align 4
  %s = fadd float %g, %a
  store float %s, ptr %gp, align 4
  ret float %s
}

; A struct-of-arrays pointer passed to a function of the module (which gets a packet version taking
; it as a struct-of-arrays pointer too): the wrapper finds the leaf the callee stores to.
define void @set_g(ptr %p, float %v) noinline {
entry:
  %gp = getelementptr inbounds %Color, ptr %p, i64 0, i32 1
  store float %v, ptr %gp, align 4
  ret void
}

define float @viacall(float %a, ptr %c) {
entry:
  %r = load float, ptr %c, align 4
  %cmp = fcmp ogt float %a, %r
  br i1 %cmp, label %t, label %j
t:
  %v = fmul float %a, 2.0
  call void @set_g(ptr %c, float %v)
  br label %j
j:
  %s = fadd float %a, %r
  ret float %s
}
