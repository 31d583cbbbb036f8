; The kernel of refill-index32.ll under -Dpacketizer.refill.index32=false (before the sixteenth round): the lanes'
; indices are 64-bit element numbers (two 512-bit registers per set at W16, two 8-lane scatters), no chunks.
; SET: packetizer.refill.index32=false
; RUN: packetize -f escape -w 16 --params vu --array-driver --refill --remarks
; CHECK-LABEL: define void @escape_map(ptr %x, i32 %limit, ptr %out, i64 %n)
; CHECK-NOT:   chunk
; CHECK:       round:
; CHECK-NEXT:  %idx.0 = phi <16 x i64> [ zeroinitializer, %entry ]
; CHECK:       %next = phi i64 [ 0, %entry ]
; CHECK:       store.done.0:
; CHECK-NEXT:  %out.addrs = getelementptr inbounds float, ptr %out, <16 x i64> %idx.0
; CHECK:       refill.0:
; CHECK:       %new.idx = add <16 x i64>
; CHECK:       %idx.in = select <16 x i1> %take, <16 x i64> %new.idx, <16 x i64> %idx.0
; CHECK-NOT:   chunk
; CHECK:       ret void
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
