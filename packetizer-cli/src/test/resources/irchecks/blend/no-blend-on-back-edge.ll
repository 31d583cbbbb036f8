; Mandelbrot's loop: the loop-carried values are written on the back edge without a blend (the
; exit's LCSSA phis freeze the lanes that left), so the header phi's incoming from the latch is the
; arithmetic itself (an SSA name has one definition: if it is an fadd, it is no select).
; RUN: packetize -f f -w 8 --params vvu
; CHECK-LABEL: define <8 x i32> @f_simd8(<8 x float> %x0, <8 x float> %y0, i32 %n)
; CHECK:       phi <8 x float> [ [[X:%[a-z0-9.]+]], %[[LATCH:[a-z0-9.]+]] ], [ zeroinitializer, %entry ]
; CHECK:       [[X]] = fadd <8 x float>
; CHECK:       ret <8 x i32>
define i32 @f(float %x0, float %y0, i32 %n) {
entry:
  %c0 = icmp sgt i32 %n, 0
  br i1 %c0, label %loop, label %exit
loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %body ]
  %x = phi float [ 0.0, %entry ], [ %xt, %body ]
  %y = phi float [ 0.0, %entry ], [ %yt, %body ]
  %xx = fmul float %x, %x
  %yy = fmul float %y, %y
  %r2 = fadd float %xx, %yy
  %in = fcmp ole float %r2, 4.0
  br i1 %in, label %body, label %exit
body:
  %d = fsub float %xx, %yy
  %xt = fadd float %d, %x0
  %xy = fmul float %x, %y
  %xy2 = fmul float %xy, 2.0
  %yt = fadd float %xy2, %y0
  %i.next = add i32 %i, 1
  %more = icmp slt i32 %i.next, %n
  br i1 %more, label %loop, label %exit
exit:
  %r = phi i32 [ 0, %entry ], [ %i, %loop ], [ %i.next, %body ]
  ret i32 %r
}
