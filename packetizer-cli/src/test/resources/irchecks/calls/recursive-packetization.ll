; A call to a function defined in the module gets a packet version of the callee (recursive
; packetization, thesis 7.2): the packet function calls a vector function, not W scalar calls.
; RUN: packetize -f f -w 4 --params v
; CHECK-LABEL: define <4 x float> @f_simd4(<4 x float> %x)
; CHECK:       call {{.*}}<4 x float> @{{[^(]*}}helper{{[^(]*}}(<4 x float>
; CHECK-NOT:   call float @helper
define float @f(float %x) {
entry:
  %c = fcmp ogt float %x, 1.0
  br i1 %c, label %then, label %done
then:
  %h = call float @helper(float %x)
  br label %done
done:
  %r = phi float [ %h, %then ], [ %x, %entry ]
  ret float %r
}
define float @helper(float %y) noinline {
entry:
  %t = fmul float %y, %y
  %u = call float @llvm.sqrt.f32(float %t)
  %v = fadd float %u, %y
  ret float %v
}
declare float @llvm.sqrt.f32(float)
