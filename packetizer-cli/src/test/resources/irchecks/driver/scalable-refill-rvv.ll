; --scalable --array-driver --refill on RISC-V V (issue 17): the refill driver for vscale x 8 lanes. The lanes in the
; loop are counted by vcpop over the whole mask (VL -1: VLMAX), every value of the state and the 64-bit element
; indices compacted to the front by one vcompress each at its own element type (a register group compacts as one: no
; halves, no splice), the next elements loaded at &a[next - c] under whilelo(0, c + taken) & ~whilelo(0, c), the
; results scattered; nothing of SVE, no gather, no stack slot, no call left in the iterations (pre and iter inlined).
; RUN: packetize -f steps -w 8 --params vu --scalable --array-driver --refill
; CHECK-LABEL: define void @steps_map(ptr %x, i32 %limit, ptr %out, i64 %n)
; CHECK-NOT:   aarch64
; CHECK:       call i64 @llvm.vscale.i64()
; CHECK:       call void @llvm.masked.scatter.nxv8i32.nxv8p0(<vscale x 8 x i32> %res, <vscale x 8 x ptr> {{.*}}, <vscale x 8 x i1> %done)
; CHECK:       %in.loop = call i64 @llvm.riscv.vcpop.nxv8i1.i64(<vscale x 8 x i1> %active, i64 -1)
; CHECK:       [[FRONT:%[a-z0-9.]+]] = call <vscale x 8 x i1> @llvm.get.active.lane.mask.nxv8i1.i64(i64 0, i64 %in.loop)
; CHECK:       [[UPTO:%[a-z0-9.]+]] = call <vscale x 8 x i1> @llvm.get.active.lane.mask.nxv8i1.i64(i64 0, i64 %end)
; CHECK:       %take = xor <vscale x 8 x i1> [[UPTO]], [[FRONT]]
; CHECK:       %base = sub i64 %next, %in.loop
; CHECK-NOT:   splice
; CHECK:       [[S0:%[a-z0-9.]+]] = call <vscale x 8 x float> @llvm.experimental.vector.compress.nxv8f32(<vscale x 8 x float> %s0, <vscale x 8 x i1> %active,
; CHECK:       [[S1:%[a-z0-9.]+]] = call <vscale x 8 x i32> @llvm.experimental.vector.compress.nxv8i32(<vscale x 8 x i32> %s1, <vscale x 8 x i1> %active,
; CHECK:       [[IDX:%[a-z0-9.]+]] = call <vscale x 8 x i64> @llvm.experimental.vector.compress.nxv8i64(<vscale x 8 x i64> %idx, <vscale x 8 x i1> %active,
; CHECK:       [[AT:%[a-z0-9.]+]] = getelementptr float, ptr %x, i64 %base
; CHECK:       [[X:%[a-z0-9.]+]] = call <vscale x 8 x float> @llvm.masked.load.nxv8f32.p0(ptr [[AT]], i32 4, <vscale x 8 x i1> %take,
; CHECK:       %s0.in = select <vscale x 8 x i1> %take, <vscale x 8 x float> [[X]], <vscale x 8 x float> [[S0]]
; CHECK:       %idx.in = select <vscale x 8 x i1> %take, <vscale x 8 x i64> %new.idx, <vscale x 8 x i64> [[IDX]]
; CHECK:       iterate:
; CHECK-NOT:   call {{.*}}@__packetizer.refill
; CHECK:       %in.count = icmp ult i64 %count.next, %block.next
; CHECK-NOT:   alloca
; CHECK-NOT:   llvm.masked.gather
; CHECK:       ret void
target triple = "riscv64-unknown-linux-gnu"
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
attributes #0 = { "target-features"="+v" }
