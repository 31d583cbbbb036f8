; A branch on a uniform parameter (--params vu): every lane takes the same way, so the packet
; function keeps it as a real branch (drawn blue by --dot).
define float @poly(float %x, i32 %mode) {
entry:
  %m = icmp eq i32 %mode, 0
  br i1 %m, label %cubic, label %quartic
cubic:
  %x2 = fmul float %x, %x
  %x3 = fmul float %x2, %x
  %a3 = fadd float %x3, %x2
  %b3 = fmul float %a3, 3.0
  %c3 = fsub float %b3, %x
  br label %join
quartic:
  %y2 = fmul float %x, %x
  %y4 = fmul float %y2, %y2
  %a4 = fadd float %y4, %y2
  %b4 = fmul float %a4, 5.0
  %c4 = fsub float %b4, %x
  br label %join
join:
  %r = phi float [ %c3, %cubic ], [ %c4, %quartic ]
  ret float %r
}
