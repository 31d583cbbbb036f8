; The glibc-exact helpers of expf, exp2f and powf finish their range lanes (results that over- or underflow) in the
; vector on their cold edge when no other special lane is active: glibc's constant (+0, the least subnormal, +inf) or
; its fast code's value by selects, and errno ERANGE (34) stored once through __errno_location; any other special
; active lane sends every special lane to the per-lane calls, as before (issue 16, twenty-third round). Linux target.
; RUN: packetize -f f -w 8 --params vvv --vector-math=intrinsics --remarks
; CHECK-LABEL: define internal <8 x float> @__packetizer_glibc_expf_v8_
; CHECK:       edge:
; CHECK:       %t.ok = or <8 x i1> %t.neg, %t.pos
; CHECK:       %t.y = select <8 x i1> %t.ov, <8 x float> splat (float 0x7FF0000000000000)
; CHECK:       br i1 %t.anyw, label %lanes, label %range
; CHECK:       lanes:
; CHECK:       range:
; CHECK:       erange:
; CHECK-NEXT:  %t.ep = call ptr @__errno_location()
; CHECK-NEXT:  store i32 34, ptr %t.ep
; CHECK:       %r = phi <8 x float> [ %{{.*}}, %fast ], [ %ye, %lanes ], [ %t.y, %range ], [ %t.y, %erange ]
; CHECK-LABEL: define internal <8 x float> @__packetizer_glibc_exp2f_v8_
; CHECK:       %t.uz = icmp ule <8 x i32> %t.uz.off
; CHECK:       call ptr @__errno_location()
; CHECK-LABEL: define internal <8 x float> @__packetizer_glibc_powf_v8_
; CHECK:       %o2{{.*}} = insertvalue { <8 x float>, <8 x i1>, <8 x double> } %o1{{.*}}, <8 x double> %ylogx{{.*}}, 2
; CHECK:       %c2 = extractvalue { <8 x float>, <8 x i1>, <8 x double> } %{{.*}}, 2
; CHECK:       %t.uz = fcmp ole <8 x double> %c2, splat (double -1.500000e+02)
; CHECK:       call ptr @__errno_location()
target triple = "x86_64-unknown-linux-gnu"
define float @f(float %x, float %y, float %z) #0 {
entry:
  %e = call float @expf(float %x)
  %e2 = call float @exp2f(float %y)
  %p = call float @powf(float %z, float %x)
  %a = fadd float %e, %e2
  %r = fadd float %a, %p
  ret float %r
}
declare float @expf(float)
declare float @exp2f(float)
declare float @powf(float, float)
attributes #0 = { "target-cpu"="haswell" }
