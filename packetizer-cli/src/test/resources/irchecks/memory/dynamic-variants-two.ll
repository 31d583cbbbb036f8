; The dynamic variants' two-valued variant (issue 16, seventeenth round): where the all-equal and the
; consecutive tests fail, a packet whose active lanes hold only two pointers, the first active lane's
; and the last's (a packet straddling two runs of a Z-ordered grid, two texels of a magnified texture),
; takes two scalar loads per member and a blend instead of the per-lane loads. On AVX-512 (64-byte
; registers) the default -Dpacketizer.dynamicVariants.twoValued=auto has it, since the all-equal test
; is on the narrow offsets: the two-valued test compares the two offsets' lanes with the last lane's
; (one <16 x i32> compare each) and reuses the compare with the first lane's, which also picks each
; lane's value in the blend; the last lane's pointer is rebuilt from g and its offsets, so the
; <16 x ptr> vector is still needed only on the per-lane path. Knob-off twin: dynamic-variants-offsets.ll
; (SET twoValued=false), where the failing tests branch straight to the per-lane path.
; RUN: packetize -f f -w 16 --params uvv --target-cpu=znver4 --remarks
; CHECK-LABEL: define <16 x float> @f_simd16(ptr %g, <16 x i32> %x, <16 x i32> %y)
; CHECK:       %dyn.off.eq = icmp eq <16 x i32> %row,
; CHECK:       %dyn.off.eq{{[0-9]+}} = icmp eq <16 x i32> %x,
; CHECK:       [[EQ:%[\w.]+]] = and <16 x i1> %dyn.off.eq, %dyn.off.eq{{[0-9]+}}
; CHECK:       br i1 %dyn.same, label %entry1.same, label %entry1.notsame
; CHECK:       entry1.notsame:
; CHECK:       br i1 %dyn.candidate, label %entry1.consecutivetest, label %entry1.twotest
; CHECK:       entry1.consecutivetest:
; CHECK:       br i1 {{%[\w.]+}}, label %entry1.consecutive, label %entry1.twotest
; CHECK:       entry1.twotest:
; CHECK-NOT:   <16 x ptr>
; CHECK:       shufflevector <16 x i32> %row, <16 x i32> poison, <16 x i32> <i32 15,
; CHECK-NEXT:  %dyn.off.eqlast = icmp eq <16 x i32> %row,
; CHECK-NEXT:  shufflevector <16 x i32> %x, <16 x i32> poison, <16 x i32> <i32 15,
; CHECK-NEXT:  %dyn.off.eqlast{{[0-9]+}} = icmp eq <16 x i32> %x,
; CHECK-NEXT:  [[LAST:%[\w.]+]] = and <16 x i1> %dyn.off.eqlast, %dyn.off.eqlast{{[0-9]+}}
; CHECK-NEXT:  %dyn.either = or <16 x i1> [[EQ]], [[LAST]]
; CHECK:       %dyn.two = icmp eq i16 {{%[\w.]+}}, -1
; CHECK-NEXT:  br i1 %dyn.two, label %entry1.two, label %entry1.lanes
; CHECK:       entry1.two:
; CHECK-NOT:   <16 x ptr>
; CHECK:       %dyn.ptr.last = getelementptr float,
; CHECK-NOT:   <16 x ptr>
; CHECK:       load float, ptr %dyn.ptr,
; CHECK-NOT:   <16 x ptr>
; CHECK:       load float, ptr %dyn.ptr.last,
; CHECK-NOT:   <16 x ptr>
; CHECK:       %dyn.blend = select <16 x i1> [[EQ]],
; CHECK-NOT:   <16 x ptr>
; CHECK:       %dyn.blend{{[0-9]+}} = select <16 x i1> [[EQ]],
; CHECK-NOT:   <16 x ptr>
; CHECK:       %dyn.blend{{[0-9]+}} = select <16 x i1> [[EQ]],
; CHECK-NOT:   <16 x ptr>
; CHECK:       %dyn.blend{{[0-9]+}} = select <16 x i1> [[EQ]],
; CHECK-NOT:   <16 x ptr>
; CHECK:       br label %entry1.dyn
; CHECK:       entry1.lanes:
; CHECK:       extractelement <16 x ptr> %c,
; CHECK:       .dyn:
; CHECK-NEXT:  phi <16 x float> [ {{%[\w.]+}}, %entry1.same ], [ {{%[\w.]+}}, %entry1.consecutive ], [ %dyn.blend, %entry1.two ], [ {{%[\w.]+}}, %entry1.lanes ]
; SHAPES:      remark: f:entry: memory: dynamic variants for the 4 loads at constant offsets from %c: one run-time test of its lanes (all equal: its 2 varying offset(s)
; SHAPES-SAME: consecutive (stride 4 bytes) -> 4 vector loads; two values (each active lane at the first or the last active lane's pointer) -> 8 scalar loads and 4 blends; otherwise
define float @f(ptr %g, i32 %x, i32 %y) {
entry:
  %row = mul nsw i32 %y, 24
  %r64 = sext i32 %row to i64
  %rp = getelementptr inbounds float, ptr %g, i64 %r64
  %x64 = sext i32 %x to i64
  %c = getelementptr inbounds float, ptr %rp, i64 %x64
  %v0 = load float, ptr %c, align 4
  %pl = getelementptr inbounds i8, ptr %c, i64 -4
  %vl = load float, ptr %pl, align 4
  %pr = getelementptr inbounds i8, ptr %c, i64 4
  %vr = load float, ptr %pr, align 4
  %pu = getelementptr inbounds i8, ptr %c, i64 -96
  %vu = load float, ptr %pu, align 4
  %s1 = fadd float %v0, %vl
  %s2 = fadd float %s1, %vr
  %s3 = fadd float %s2, %vu
  ret float %s3
}
