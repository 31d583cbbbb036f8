; The kernel of refill-rvv-vcompress.ll under -Dpacketizer.refill.rvvCompress=false (fixed-length RISC-V V before
; the fourteenth round): no compress; the free lanes take the next elements by scalar moves through stack buffers
; (a loop over the set bits of the lanes that take one), the results go out one by one, the batch rule.
; SET: packetizer.refill.rvvCompress=false
; RUN: packetize -f steps -w 16 --params vuv --array-driver --refill --remarks
; CHECK-LABEL: define void @steps_map(ptr %x, i32 %limit, ptr %tag, ptr %out, i64 %n)
; CHECK:       %x.lanes = alloca <16 x float>
; CHECK:       %tag.lanes = alloca <16 x i8>
; CHECK-NOT:   vector.compress
; CHECK:       store.lane:
; CHECK:       call {{.*}}i16 @llvm.cttz.i16(
; CHECK-NOT:   vector.compress
; CHECK:       refill.lane:
; CHECK:       call {{.*}}i16 @llvm.cttz.i16(
; CHECK-NOT:   vector.compress
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
