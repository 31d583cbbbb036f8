; --scalable --array-driver --refill (issue 17): the refill driver for vscale x 4 lanes on SVE. The lanes in the
; loop are counted by cntp, compacted to the front by SVE compact (the 64-bit element indices: two registers, so
; two compacts of the halves joined by two splices at the first half's count, the second splice's other operand
; not poison), the next elements loaded at &a[next - c] under whilelo(0, c + taken) & ~whilelo(0, c), the results
; scattered; no gather, no stack slot, no call left in the iterations (pre and iter inlined).
; RUN: packetize -f steps -w 4 --params vu --scalable --array-driver --refill
; CHECK-LABEL: define void @steps_map(ptr %x, i32 %limit, ptr %out, i64 %n)
; CHECK:       call i64 @llvm.vscale.i64()
; CHECK:       call <vscale x 4 x i64> @llvm.stepvector.nxv4i64()
; CHECK:       call void @llvm.masked.scatter.nxv4i32.nxv4p0(<vscale x 4 x i32> %res, <vscale x 4 x ptr> {{.*}}, <vscale x 4 x i1> %done)
; CHECK:       %in.loop = call i64 @llvm.aarch64.sve.cntp.nxv4i1(<vscale x 4 x i1> splat (i1 true), <vscale x 4 x i1> %active)
; CHECK:       [[FRONT:%[a-z0-9.]+]] = call <vscale x 4 x i1> @llvm.get.active.lane.mask.nxv4i1.i64(i64 0, i64 %in.loop)
; CHECK:       [[UPTO:%[a-z0-9.]+]] = call <vscale x 4 x i1> @llvm.get.active.lane.mask.nxv4i1.i64(i64 0, i64 %end)
; CHECK:       %take = xor <vscale x 4 x i1> [[UPTO]], [[FRONT]]
; CHECK:       %base = sub i64 %next, %in.loop
; CHECK:       call <vscale x 4 x i32> @llvm.aarch64.sve.compact.nxv4i32(<vscale x 4 x i1> %active,
; CHECK:       [[NLO:%[a-z0-9.]+]] = call i64 @llvm.aarch64.sve.cntp.nxv2i1(
; CHECK:       [[PGLO:%[a-z0-9.]+]] = call <vscale x 2 x i1> @llvm.get.active.lane.mask.nxv2i1.i64(i64 0, i64 [[NLO]])
; CHECK:       [[CLO:%[a-z0-9.]+]] = call <vscale x 2 x i64> @llvm.aarch64.sve.compact.nxv2i64(
; CHECK:       [[CHI:%[a-z0-9.]+]] = call <vscale x 2 x i64> @llvm.aarch64.sve.compact.nxv2i64(
; CHECK:       call <vscale x 2 x i64> @llvm.aarch64.sve.splice.nxv2i64(<vscale x 2 x i1> [[PGLO]], <vscale x 2 x i64> [[CLO]], <vscale x 2 x i64> [[CHI]])
; CHECK:       call <vscale x 2 x i64> @llvm.aarch64.sve.splice.nxv2i64(<vscale x 2 x i1> {{.*}}, <vscale x 2 x i64> [[CHI]], <vscale x 2 x i64> zeroinitializer)
; CHECK:       [[AT:%[a-z0-9.]+]] = getelementptr float, ptr %x, i64 %base
; CHECK:       call <vscale x 4 x float> @llvm.masked.load.nxv4f32.p0(ptr [[AT]], i32 4, <vscale x 4 x i1> %take,
; CHECK:       iterate:
; CHECK-NOT:   call {{.*}}@__packetizer.refill
; CHECK:       %in.count = icmp ult i64 %count.next, %block.next
; CHECK-NOT:   alloca
; CHECK-NOT:   llvm.masked.gather
; CHECK:       ret void
target triple = "aarch64-unknown-linux-gnu"
define i32 @steps(float %x, i32 %limit) #0 {
entry:
  br label %loop
loop:
  %v = phi float [ %x, %entry ], [ %v2, %body ]
  %k = phi i32 [ 0, %entry ], [ %k2, %body ]
  %more = icmp slt i32 %k, %limit
  %big = fcmp olt float %v, 100.0
  %go = and i1 %more, %big
  br i1 %go, label %body, label %exit
body:
  %m = fmul float %v, 1.5
  %v2 = fadd float %m, 1.0
  %k2 = add i32 %k, 1
  br label %loop
exit:
  ret i32 %k
}
attributes #0 = { "target-features"="+sve" }
