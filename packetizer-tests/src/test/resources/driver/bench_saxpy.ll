target triple = "x86_64-pc-linux-gnu"
define float @saxpy(float %x, float %y, float %a) #0 {
entry:
  %m = fmul float %a, %x
  %s = fadd float %m, %y
  ret float %s
}
attributes #0 = { nounwind "target-cpu"="haswell" }
