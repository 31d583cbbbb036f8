; The --refill=auto driver's two bodies (issue 17, sixteenth round): its plain body @NAME.plain is the plain
; driver's code and its refill body @NAME.refill the refill driver's, loop alignment included: their innermost
; loops start on a 64-byte boundary (llvm.loop.align, packetizer.loopAlign) as the plain and the refill driver's
; do. Before, only the dispatcher's loop got the mark, and the plain body's packet loop kept LLVM's 16 bytes
; (the plain driver's 64): the same loop code at another alignment than the plain driver it is measured against.
; RUN: packetize -f escape -w 8 --params vu --array-driver --refill=auto
; CHECK-LABEL: define internal void @escape_map.refill(
; CHECK:       br i1 %keep.iterating, label %iterate, label %iterate.exit, !llvm.loop ![[R:[0-9]+]]
; CHECK-LABEL: define internal void @escape_map.plain(
; CHECK:       br i1 %more, label %packet, label %remainder.check, !llvm.loop ![[P:[0-9]+]]
; CHECK-LABEL: define void @escape_map(
; CHECK:       br i1 %more, label %chunk, label %state.store, !llvm.loop ![[D:[0-9]+]]
; CHECK:       ![[A:[0-9]+]] = !{!"llvm.loop.align", i32 64}
; CHECK:       ![[R]] = distinct !{![[R]], ![[A]]}
; CHECK:       ![[P]] = distinct !{![[P]], ![[A]]}
; CHECK:       ![[D]] = distinct !{![[D]], ![[A]]}
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
