; join-mask-of-two-edges.ll with -Dpacketizer.joinMaskShortcut=false: the join's mask is accumulated
; as the `or` of the branch's two edge masks, which the clean-up's InstCombine folds back to the
; branch block's mask.
; SET: packetizer.joinMaskShortcut=false
; SET: packetizer.cleanupPasses=early-cse,simplifycfg
; RUN: packetize -f f -w 8 --params vv
; CHECK-LABEL: define <8 x float> @f_simd8(<8 x float> %a, <8 x float> %b)
; CHECK:       %e.outer.then = select <8 x i1> %c1, <8 x i1> %c2, <8 x i1> zeroinitializer
; CHECK:       %m.acc.join = or <8 x i1> %e.outer.then, %e.outer.else
; CHECK:       ret <8 x float>
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

define float @f(float noundef %a, float noundef %b) {
entry:
  %c1 = fcmp ogt float %a, 0.0
  br i1 %c1, label %outer, label %exit

outer:
  %c2 = fcmp ogt float %b, 0.0
  br i1 %c2, label %then, label %else

then:
  %t1 = fmul float %a, %b
  %t2 = fmul float %t1, %a
  %t3 = fmul float %t2, %b
  %t4 = fmul float %t3, %a
  %t5 = fmul float %t4, %b
  %t6 = fmul float %t5, %a
  br label %join

else:
  %u1 = fadd float %a, %b
  %u2 = fadd float %u1, %a
  %u3 = fadd float %u2, %b
  %u4 = fadd float %u3, %a
  %u5 = fadd float %u4, %b
  %u6 = fadd float %u5, %a
  br label %join

join:
  %x = phi float [ %t6, %then ], [ %u6, %else ]
  %z = fmul float %x, %a
  br label %exit

exit:
  %r = phi float [ %z, %join ], [ %b, %entry ]
  ret float %r
}
