; Lane refill, AVX-512, W16 (issue 17): 32-bit element indices (RefillDriver.index32, the default since the sixteenth
; round). Each lane's index is a 32-bit offset from the start of a chunk of the input (at most 2^30 elements; the
; driver runs the chunks one after the other, the block length carried over), so a set's indices fill one 512-bit
; register, the refill round computes them as the chunk offset of next plus the 32-bit vpexpand rank, and the results
; go out by one 16-lane scatter from out advanced to the chunk (vpscatterdd) instead of two of 8 lanes with 64-bit indices.
; No 64-bit vector in the driver but the scatter's addresses.
; RUN: packetize -f escape -w 16 --params vu --array-driver --refill --remarks
; CHECK-LABEL: define void @escape_map(ptr %x, i32 %limit, ptr %out, i64 %n)
; CHECK:       chunk:
; CHECK-NEXT:  %chunk.base = phi i64 [ 0, %entry ], [ %chunk.end, %exit ]
; CHECK:       %chunk.end = add i64 %chunk.base,
; CHECK:       %out.chunk.base = getelementptr inbounds float, ptr %out, i64 %chunk.base
; CHECK:       round:
; CHECK-NEXT:  %idx.0 = phi <16 x i32> [ zeroinitializer, %chunk ]
; CHECK:       %next = phi i64 [ %chunk.base, %chunk ]
; CHECK:       store.done.0:
; CHECK-NEXT:  [[WIDE:%[0-9a-z.]+]] = sext <16 x i32> %idx.0 to <16 x i64>
; CHECK-NEXT:  %out.addrs = getelementptr inbounds float, ptr %out.chunk.base, <16 x i64> [[WIDE]]
; CHECK-NEXT:  call void @llvm.masked.scatter.v16f32.v16p0(<16 x float> %result.0, <16 x ptr> %out.addrs, i32 4, <16 x i1> %done.0)
; CHECK:       refill.0:
; CHECK-NOT:   x i64>
; CHECK:       %new.idx32 = add <16 x i32> %start.rel.splat, %rank32
; CHECK-NOT:   x i64>
; CHECK:       %idx.in = select <16 x i1> %take, <16 x i32> %new.idx32, <16 x i32> %idx.0
; CHECK:       exit:
; CHECK-NEXT:  %chunk.more = icmp ult i64 %chunk.end, %n
; CHECK-NEXT:  br i1 %chunk.more, label %chunk, label %return
target triple = "x86_64-unknown-linux-gnu"
define float @escape(float %x, i32 %limit) #0 {
entry:
  br label %loop
loop:
  %s = phi float [ %x, %entry ], [ %s2, %body ]
  %p = phi float [ 1.0, %entry ], [ %p2, %body ]
  %k = phi i32 [ 0, %entry ], [ %k2, %body ]
  %q = fmul float %s, %s
  %big = fcmp ogt float %q, 4.0
  br i1 %big, label %out.big, label %body
body:
  %p2 = fadd float %p, %q
  %s2 = fsub float %q, %x
  %k2 = add i32 %k, 1
  %more = icmp slt i32 %k2, %limit
  br i1 %more, label %loop, label %out.limit
out.big:
  %r1 = fmul float %s, %p
  ret float %r1
out.limit:
  ret float %p2
}
attributes #0 = { "target-cpu"="skylake-avx512" "target-features"="+avx512f,+avx512vl,+avx512bw,+avx512dq,+avx2,+avx,+fma,+sse4.2" }
