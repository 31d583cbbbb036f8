; --array-driver --refill on fixed-length RISC-V V (issue 17; vscale_range(2,2): VLEN 128, clang's
; -mrvv-vector-bits=128) at W = 16: a refill round compacts each value of the state and the element indices (32-bit
; offsets from the chunk's start, RefillDriver.index32) to the front by one llvm.experimental.vector.compress at the
; value's own element type (LLVM's RISC-V back end selects one vcompress.vm over the register group: the <16 x i32>
; index is a group of 4 at VLEN 128; the i8 state stays i8), the next elements follow by one masked contiguous load per array at &a[next - in.loop] under the lanes
; [in.loop, in.loop + taken), the results go out by a scatter (vsoxei); no scalar moves (no stack buffer, no loop
; over the lanes), refill blocks.
; RUN: packetize -f steps -w 16 --params vuv --array-driver --refill --remarks
; CHECK-LABEL: define void @steps_map(ptr %x, i32 %limit, ptr %tag, ptr %out, i64 %n)
; CHECK-NOT:   alloca
; CHECK:       call void @llvm.masked.scatter.v16i32.v16p0(<16 x i32> %result, <16 x ptr> %out.addrs, i32 4, <16 x i1> %done)
; CHECK:       refill:
; CHECK:       %in.loop = call {{.*}}i16 @llvm.ctpop.i16(
; CHECK:       %take = and <16 x i1>
; CHECK:       %base = sub i64 %next, %in.loop.size
; CHECK:       %state0.front = call <16 x float> @llvm.experimental.vector.compress.v16f32(<16 x float> %state0, <16 x i1> %active,
; CHECK:       %state1.front = call <16 x i32> @llvm.experimental.vector.compress.v16i32(<16 x i32> %state1, <16 x i1> %active,
; CHECK:       %state2.front = call <16 x i8> @llvm.experimental.vector.compress.v16i8(<16 x i8> %state2, <16 x i1> %active,
; CHECK:       %idx.front = call <16 x i32> @llvm.experimental.vector.compress.v16i32(<16 x i32> %idx, <16 x i1> %active,
; CHECK:       %x.span = getelementptr float, ptr %x, i64 %base
; CHECK:       %x.packet = call <16 x float> @llvm.masked.load.v16f32.p0(ptr %x.span, i32 4, <16 x i1> %take,
; CHECK:       %tag.span = getelementptr i8, ptr %tag, i64 %base
; CHECK:       %tag.packet = call <16 x i8> @llvm.masked.load.v16i8.p0(ptr %tag.span, i32 1, <16 x i1> %take,
; CHECK:       %new.idx32 = add <16 x i32> %start.rel.splat, <i32 0, i32 1,
; CHECK:       %state0.in = select <16 x i1> %take, <16 x float> %x.packet, <16 x float> %state0.front
; CHECK:       %state2.in = select <16 x i1> %take, <16 x i8> %tag.packet, <16 x i8> %state2.front
; CHECK:       %idx.in = select <16 x i1> %take, <16 x i32> %new.idx32, <16 x i32> %idx.front
; CHECK-NOT:   llvm.cttz
; CHECK:       iterate:
; CHECK-NOT:   call {{.*}}@__packetizer.refill
; CHECK:       %in.block = or i1
; CHECK-NOT:   llvm.masked.gather
; CHECK:       ret void
target triple = "riscv64-unknown-linux-gnu"
define i32 @steps(float %x, i32 %limit, i8 %tag) #0 {
entry:
  br label %loop
loop:
  %v = phi float [ %x, %entry ], [ %v2, %body ]
  %k = phi i32 [ 0, %entry ], [ %k2, %body ]
  %t = phi i8 [ %tag, %entry ], [ %t2, %body ]
  %more = icmp slt i32 %k, %limit
  %big = fcmp olt float %v, 100.0
  %go = and i1 %more, %big
  br i1 %go, label %body, label %exit
body:
  %m = fmul float %v, 1.5
  %v2 = fadd float %m, 1.0
  %k2 = add i32 %k, 1
  %t2 = xor i8 %t, 3
  br label %loop
exit:
  %tz = zext i8 %t to i32
  %r = add i32 %k, %tz
  ret i32 %r
}
attributes #0 = { vscale_range(2,2) "target-features"="+v" }
