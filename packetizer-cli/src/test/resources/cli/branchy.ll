; Two small functions for the packetize command's tests: a divergent if/else and a loop whose trip
; count is a parameter (uniform with --params, varying by default).
source_filename = "branchy.ll"
target triple = "x86_64-pc-linux-gnu"

define float @clamp_scale(float %a, float %b) {
entry:
  %c = fcmp olt float %a, %b
  br i1 %c, label %then, label %else
then:
  %x = fadd float %a, 1.0
  br label %join
else:
  %y = fmul float %b, 2.0
  br label %join
join:
  %p = phi float [ %x, %then ], [ %y, %else ]
  ret float %p
}

define i32 @triangle(i32 %n) {
entry:
  br label %h
h:
  %i = phi i32 [ 0, %entry ], [ %i1, %h ]
  %s = phi i32 [ 0, %entry ], [ %s1, %h ]
  %s1 = add i32 %s, %i
  %i1 = add i32 %i, 1
  %c = icmp slt i32 %i1, %n
  br i1 %c, label %h, label %x
x:
  ret i32 %s1
}
