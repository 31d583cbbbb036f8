; The kernel of refill-avx2-wide-mask.ll for an AMD AVX2 CPU (znver2): RefillDriver.wideMask's default (auto) is Intel
; only (measured there, twentieth round; AMD's AVX2 not measured), so the hot loop keeps the i1 active mask.
; RUN: packetize -f escape -w 8 --params vu --array-driver --refill --remarks
; CHECK-LABEL: define void @escape_map(ptr %x, i32 %limit, ptr %out, i64 %n)
; CHECK:       iterate:
; CHECK:       %active.it.0 = phi <8 x i1>
; CHECK-NOT:   active.it.mask
; CHECK:       %result.next.0 = select <8 x i1> %active.it.0, <8 x float> {{.*}}, <8 x float> %result.it.0
; CHECK-NOT:   active.next.wide
; CHECK:       iterate.exit:
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
attributes #0 = { "target-cpu"="znver2" "target-features"="+avx2,+avx,+fma,+sse4.2,+popcnt,+bmi,+bmi2" }
