; Dynamic variants on clang's SLP-merged loads (issue 16, eighteenth round): clang -O2 (the SLP
; vectorizer on) merges a bilinear fetch's t[y*64+x], t[y*64+x+1] and t[(y+1)*64+x], t[(y+1)*64+x+1]
; into two <2 x float> loads off two varying roots on one base (%p, %q). Both join ONE group behind ONE
; test (knob -Dpacketizer.dynamicVariants.mergeRoots=auto: groups with a vector load), each test the
; conjunction over the roots: all equal compares both roots' narrow offsets (%i, %j) and loads each
; <2 x float> once, broadcast by one shuffle; consecutive (the lanes' pointers a float apart: the
; pre-test on the last lane's pointer rebuilt from its offsets, then the offsets against the first
; lane's plus 0..15; InstCombine rewrites %j's compare in terms of %i) loads each element of each pair
; as one <16 x float> (element 1 at +4 bytes); two values loads each pair at the first and the last
; lane's pointers and blends by the first-lane compare (repeated for both elements); otherwise one
; gather per element, off %t (+4 for element 1) and the sign-extended offsets, which x86 gathers with
; 32-bit indices. No <16 x ptr> is built before the per-lane path. Before this round the two loads
; were one gather per element with no test at all.
; RUN: packetize -f bilinear -w 16 --params uvv --target-cpu=znver4 --remarks
; CHECK-LABEL: define <16 x float> @bilinear_simd16(ptr %t, <16 x float> %u, <16 x float> %v)
; CHECK:       %dyn.off.eq = icmp eq <16 x i32> %i,
; CHECK:       %dyn.off.eq{{[0-9]+}} = icmp eq <16 x i32> %j,
; CHECK:       [[EQ:%[\w.]+]] = and <16 x i1> %dyn.off.eq, %dyn.off.eq{{[0-9]+}}
; CHECK:       br i1 %dyn.same, label %entry1.same, label %entry1.notsame
; CHECK:       entry1.same:
; CHECK-NEXT:  [[A:%[\w.]+]] = load <2 x float>, ptr %dyn.ptr, align 4
; CHECK-NEXT:  shufflevector <2 x float> [[A]], <2 x float> poison, <32 x i32> <i32 0, i32 0,
; CHECK-NEXT:  [[C:%[\w.]+]] = load <2 x float>, ptr %dyn.ptr{{[0-9]+}}, align 4
; CHECK-NEXT:  shufflevector <2 x float> [[C]], <2 x float> poison, <32 x i32> <i32 0, i32 0,
; CHECK-NEXT:  br label %entry1.dyn
; CHECK:       entry1.notsame:
; CHECK-NOT:   <16 x ptr>
; CHECK:       extractelement <16 x i32> %i, i64 15
; CHECK:       %dyn.candidate = icmp eq i64 {{%[\w.]+}}, 60
; CHECK-NOT:   <16 x ptr>
; CHECK:       extractelement <16 x i32> %j, i64 15
; CHECK:       %dyn.candidate{{[0-9]+}} = icmp eq i64 {{%[\w.]+}}, 60
; CHECK:       entry1.consecutivetest:
; CHECK-NOT:   <16 x ptr>
; CHECK:       icmp ne <16 x i32> %i,
; CHECK-NOT:   <16 x ptr>
; CHECK:       br i1 {{%[\w.]+}}, label %entry1.consecutive, label %entry1.twotest
; CHECK:       entry1.consecutive:
; CHECK-NEXT:  load <16 x float>, ptr %dyn.ptr, align 4
; CHECK-NEXT:  getelementptr i8, ptr %dyn.ptr, i64 4
; CHECK-NEXT:  load <16 x float>,
; CHECK:       load <16 x float>, ptr %dyn.ptr{{[0-9]+}}, align 4
; CHECK-NEXT:  getelementptr i8, ptr %dyn.ptr{{[0-9]+}}, i64 4
; CHECK-NEXT:  load <16 x float>,
; CHECK:       entry1.twotest:
; CHECK-NOT:   <16 x ptr>
; CHECK:       %dyn.off.eqlast = icmp eq <16 x i32> %i,
; CHECK-NOT:   <16 x ptr>
; CHECK:       %dyn.off.eqlast{{[0-9]+}} = icmp eq <16 x i32> %j,
; CHECK:       %dyn.either = or <16 x i1> [[EQ]],
; CHECK:       entry1.two:
; CHECK-NOT:   <16 x ptr>
; CHECK:       load <2 x float>, ptr %dyn.ptr,
; CHECK-NEXT:  load <2 x float>, ptr {{%[\w.]+}},
; CHECK:       [[REP:%[\w.]+]] = shufflevector <16 x i1> [[EQ]], <16 x i1> poison, <32 x i32>
; CHECK-NEXT:  %dyn.blend = select <32 x i1> [[REP]],
; CHECK:       entry1.lanes:
; CHECK-NEXT:  [[X:%[\w.]+]] = sext <16 x i32> %i to <16 x i64>
; CHECK-NEXT:  [[P:%[\w.]+]] = getelementptr float, ptr %t, <16 x i64> [[X]]
; CHECK-NEXT:  @llvm.masked.gather.v16f32.v16p0(<16 x ptr> [[P]],
; CHECK-NEXT:  [[T4:%[\w.]+]] = getelementptr i8, ptr %t, i64 4
; CHECK-NEXT:  [[P4:%[\w.]+]] = getelementptr float, ptr [[T4]], <16 x i64> [[X]]
; CHECK-NEXT:  @llvm.masked.gather.v16f32.v16p0(<16 x ptr> [[P4]],
; CHECK:       .dyn:
; CHECK-NEXT:  %ab = phi <32 x float> [ {{%[\w.]+}}, %entry1.same ], [ {{%[\w.]+}}, %entry1.consecutive ], [ %dyn.blend, %entry1.two ], [ {{%[\w.]+}}, %entry1.lanes ]
; CHECK-NEXT:  %cd = phi <32 x float>
; SHAPES:      remark: bilinear:entry: memory: dynamic variants for the 2 loads at constant offsets from %p and 1 other root(s) on the same base (4 elements
; SHAPES-SAME: consecutive (stride 4 bytes) -> 4 vector loads; two values
define float @bilinear(ptr %t, float %u, float %v) {
entry:
  %x = fptosi float %u to i32
  %y = fptosi float %v to i32
  %xf = sitofp i32 %x to float
  %fx = fsub float %u, %xf
  %yf = sitofp i32 %y to float
  %fy = fsub float %v, %yf
  %row = shl nsw i32 %y, 6
  %i = add i32 %row, %x
  %i64 = sext i32 %i to i64
  %p = getelementptr inbounds float, ptr %t, i64 %i64
  %j = add i32 %i, 64
  %j64 = sext i32 %j to i64
  %q = getelementptr inbounds float, ptr %t, i64 %j64
  %ab = load <2 x float>, ptr %p, align 4
  %cd = load <2 x float>, ptr %q, align 4
  %hi = shufflevector <2 x float> %cd, <2 x float> %ab, <2 x i32> <i32 1, i32 3>
  %lo = shufflevector <2 x float> %cd, <2 x float> %ab, <2 x i32> <i32 0, i32 2>
  %d = fsub <2 x float> %hi, %lo
  %fxi = insertelement <2 x float> poison, float %fx, i64 0
  %fxs = shufflevector <2 x float> %fxi, <2 x float> poison, <2 x i32> zeroinitializer
  %m = fmul <2 x float> %fxs, %d
  %s = fadd <2 x float> %m, %lo
  %bot = extractelement <2 x float> %s, i64 0
  %top = extractelement <2 x float> %s, i64 1
  %e = fsub float %bot, %top
  %f = fmul float %fy, %e
  %r = fadd float %top, %f
  ret float %r
}
