; The per-lane loop of the glibc-exact helpers' cold path with -Dpacketizer.mathHelpers.sharedCold=false
; (LibmGuard.lanesLoop, sixteenth round): each helper's own .lanes, the binary one (powf: x and y, a
; two-argument call) and the unary one (expf: x alone), the scalar function called directly; the loop's
; phis come from the entry (no descriptor, no block between the mask test and the loop). The shared
; piece, with the same loop, is pinned in math-helper-lanes-loop.ll. The whole bodies at W16.
; RUN: packetize -f f -w 16 --params vv --vector-math=intrinsics
; SET: packetizer.mathHelpers.sharedCold=false
; CHECK-NOT:   __packetizer_cold_v
; CHECK-LABEL: define internal <16 x float> @{{__packetizer_glibc_powf_v16_[0-9a-f]+[a-z]*}}.lanes(<16 x float> %x, <16 x float> %y, <16 x i1> %mask, <16 x float> %acc)
; CHECK-NEXT:  entry:
; CHECK-NEXT:    %mi = bitcast <16 x i1> %mask to i16
; CHECK-NEXT:    %any = icmp ne i16 %mi, 0
; CHECK-NEXT:    br i1 %any, label %loop, label %done
; CHECK:       loop:
; CHECK-NEXT:    %bits = phi i16 [ %mi, %entry ], [ %rest, %loop ]
; CHECK-NEXT:    %a = phi <16 x float> [ %acc, %entry ], [ %na, %loop ]
; CHECK-NEXT:    %k = call i16 @llvm.cttz.i16(i16 %bits, i1 true)
; CHECK-NEXT:    %k32 = zext i16 %k to i32
; CHECK-NEXT:    %xi = extractelement <16 x float> %x, i32 %k32
; CHECK-NEXT:    %yi = extractelement <16 x float> %y, i32 %k32
; CHECK-NEXT:    %ri = call float @powf(float %xi, float %yi)
; CHECK-NEXT:    %na = insertelement <16 x float> %a, float %ri, i32 %k32
; CHECK-NEXT:    %m1 = sub i16 %bits, 1
; CHECK-NEXT:    %rest = and i16 %bits, %m1
; CHECK-NEXT:    %more = icmp ne i16 %rest, 0
; CHECK-NEXT:    br i1 %more, label %loop, label %done
; CHECK:       done:
; CHECK-NEXT:    %r = phi <16 x float> [ %acc, %entry ], [ %na, %loop ]
; CHECK-NEXT:    ret <16 x float> %r
; CHECK-NEXT:  }
; CHECK-LABEL: define internal <16 x float> @{{__packetizer_glibc_expf_v16_[0-9a-f]+[a-z]*}}.lanes(<16 x float> %x, <16 x i1> %mask, <16 x float> %acc)
; CHECK-NEXT:  entry:
; CHECK-NEXT:    %mi = bitcast <16 x i1> %mask to i16
; CHECK-NEXT:    %any = icmp ne i16 %mi, 0
; CHECK-NEXT:    br i1 %any, label %loop, label %done
; CHECK:       loop:
; CHECK-NEXT:    %bits = phi i16 [ %mi, %entry ], [ %rest, %loop ]
; CHECK-NEXT:    %a = phi <16 x float> [ %acc, %entry ], [ %na, %loop ]
; CHECK-NEXT:    %k = call i16 @llvm.cttz.i16(i16 %bits, i1 true)
; CHECK-NEXT:    %k32 = zext i16 %k to i32
; CHECK-NEXT:    %xi = extractelement <16 x float> %x, i32 %k32
; CHECK-NEXT:    %ri = call float @expf(float %xi)
; CHECK-NEXT:    %na = insertelement <16 x float> %a, float %ri, i32 %k32
; CHECK-NEXT:    %m1 = sub i16 %bits, 1
; CHECK-NEXT:    %rest = and i16 %bits, %m1
; CHECK-NEXT:    %more = icmp ne i16 %rest, 0
; CHECK-NEXT:    br i1 %more, label %loop, label %done
; CHECK:       done:
; CHECK-NEXT:    %r = phi <16 x float> [ %acc, %entry ], [ %na, %loop ]
; CHECK-NEXT:    ret <16 x float> %r
; CHECK-NEXT:  }
define float @f(float %x, float %y) #0 {
entry:
  %s = fsub float %x, %y
  %e = call float @llvm.exp.f32(float %s)
  %c = fcmp ogt float %x, 0.0
  br i1 %c, label %then, label %exit
then:
  %p = call float @powf(float %x, float %y)
  br label %exit
exit:
  %r = phi float [ %p, %then ], [ 0.0, %entry ]
  %t = fadd float %r, %e
  ret float %t
}
declare float @llvm.exp.f32(float)
declare float @powf(float, float)
attributes #0 = { "target-cpu"="haswell" "target-features"="+avx,+avx2,+fma,+sse4.2" }
