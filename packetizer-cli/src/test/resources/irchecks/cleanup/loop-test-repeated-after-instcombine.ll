; Why the clean-up keeps its second early-cse (Pipeline.CLEANUP_PIPELINE; issue 16, fifteenth round). A uniform counted
; loop inside a divergent region (irr03 of testdata cf/irreducible.c, clang -O2): the loop's latch also asks whether any
; lane is still in the loop, and that test is the one made before the loop is entered. They become equal only once
; InstCombine has put both masks in one form (`icmp slt <8 x i32> ..., zeroinitializer` + `bitcast` to i8). Then the
; early-cse after InstCombine finds the duplicate and knows it is false inside the loop (the entry branched on it), and the
; last simplifycfg removes the second latch block. Without that pass the loop keeps a `for.body.stay` block with that test
; in every iteration: see loop-test-repeated-after-instcombine-knob.ll (-Dpacketizer.cleanupPasses without it). Over the
; 1,863 modules of bin/dump-packets, leaving the pass out makes the machine code of 81 modules larger (+304 instructions).
; RUN: packetize -f irr03 -w 8 --params vv
; CHECK-LABEL: define <8 x float> @irr03_simd8(<8 x float> %a, <8 x float> %b)
; CHECK:       for.body:
; CHECK:       %exitcond49.not = icmp eq i32 %inc, 3
; CHECK-NEXT:  br i1 %exitcond49.not, label %B.loopexit, label %for.body,
; CHECK-NOT:   for.body.stay:
; CHECK:       ret <8 x float>
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

define float @irr03(float noundef %a, float noundef %b) {
entry:
  %mul = fmul float %a, 5.000000e-01
  %cmp = fcmp ogt float %b, 0.000000e+00
  br i1 %cmp, label %B, label %A

A.loopexit:                                       ; preds = %if.end10
  %0 = add nsw i32 %n.241, 1
  br label %A

A:                                                ; preds = %A.loopexit, %entry
  %x.0 = phi float [ %mul, %entry ], [ %sub42, %A.loopexit ]
  %n.0 = phi i32 [ 1, %entry ], [ %0, %A.loopexit ]
  br label %for.body

for.body:                                         ; preds = %A, %for.body
  %i.044 = phi i32 [ 0, %A ], [ %inc, %for.body ]
  %x.143 = phi float [ %x.0, %A ], [ %add, %for.body ]
  %mul2 = fmul float %x.143, 0x3FECCCCCC0000000
  %conv = uitofp nneg i32 %i.044 to float
  %mul3 = fmul float %conv, 0x3FB99999A0000000
  %add = fadd float %mul2, %mul3
  %inc = add nuw nsw i32 %i.044, 1
  %exitcond49.not = icmp eq i32 %inc, 3
  br i1 %exitcond49.not, label %B, label %for.body

B:                                                ; preds = %for.body, %entry
  %x.2 = phi float [ %mul, %entry ], [ %add, %for.body ]
  %n.1 = phi i32 [ 0, %entry ], [ %n.0, %for.body ]
  %mul5 = fmul float %b, 0x3FC99999A0000000
  %add6 = fadd float %mul5, %x.2
  %sub39 = fadd float %add6, 0xBFD3333340000000
  %cmp740 = icmp sgt i32 %n.1, 30
  br i1 %cmp740, label %cleanup, label %if.end10

if.end10:                                         ; preds = %B, %if.then17
  %sub42 = phi float [ %sub, %if.then17 ], [ %sub39, %B ]
  %n.241 = phi i32 [ %inc18, %if.then17 ], [ %n.1, %B ]
  %cmp11 = fcmp ogt float %sub42, 2.000000e+00
  br i1 %cmp11, label %A.loopexit, label %if.end14

if.end14:                                         ; preds = %if.end10
  %cmp15 = fcmp olt float %sub42, -2.000000e+00
  br i1 %cmp15, label %if.then17, label %if.end19

if.then17:                                        ; preds = %if.end14
  %inc18 = add i32 %n.241, 1
  %sub = fadd float %sub42, 0xBFD3333340000000
  %exitcond = icmp eq i32 %inc18, 31
  br i1 %exitcond, label %cleanup, label %if.end10

if.end19:                                         ; preds = %if.end14
  %conv20 = sitofp i32 %n.241 to float
  %add21 = fadd float %sub42, %conv20
  br label %cleanup

cleanup:                                          ; preds = %if.then17, %B, %if.end19
  %retval.0 = phi float [ %add21, %if.end19 ], [ %sub39, %B ], [ %sub, %if.then17 ]
  ret float %retval.0
}
