; Thesis 4.1 / DESIGN §3 step 0: all work happens on a copy; the user's scalar function is written
; back exactly as it was read, and the packet function is added beside it.
; RUN: packetize -f f -w 4 --params v
; CHECK-LABEL: define float @f(float %x) {
; CHECK-NEXT:  entry:
; CHECK-NEXT:    %c = fcmp olt float %x, 0.000000e+00
; CHECK-NEXT:    br i1 %c, label %neg, label %done
; CHECK:       neg:
; CHECK-NEXT:    %n = fneg float %x
; CHECK-NEXT:    br label %done
; CHECK:       done:
; CHECK-NEXT:    %r = phi float [ %n, %neg ], [ %x, %entry ]
; CHECK-NEXT:    ret float %r
; CHECK-LABEL: define <4 x float> @f_simd4(<4 x float> %x)
; CHECK-NOT:   __packetizer
define float @f(float %x) {
entry:
  %c = fcmp olt float %x, 0.0
  br i1 %c, label %neg, label %done
neg:
  %n = fneg float %x
  br label %done
done:
  %r = phi float [ %n, %neg ], [ %x, %entry ]
  ret float %r
}
