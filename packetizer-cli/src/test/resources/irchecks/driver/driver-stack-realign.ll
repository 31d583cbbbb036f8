; The plain array driver on AVX-512 (sixteenth round): its packet functions that have a loop realign their stack
; ("stackrealign"), so that their 64-byte spills sit at 64-byte-aligned offsets whatever the caller's frame. Without
; it LLVM spills zmm values with unaligned moves at 16-byte-aligned offsets, and the same code ran 2-3 % slower or
; faster by where the caller's stack ended (volume W16; the --refill=auto driver's plain body, one frame deeper than
; the plain driver, at another offset). Knob: -Dpacketizer.driverStackRealign=false (twin: driver-stack-realign-knob-off.ll).
; RUN: packetize -f escape -w 16 --params vu --array-driver
; CHECK-LABEL: define internal <32 x float> @escape_simd16.x2(<32 x float> %x, i32 %limit) #[[A:[0-9]+]]
; CHECK-LABEL: define internal <32 x float> @escape_simd16.x2.masked(<32 x float> %x, i32 %limit, <32 x i1> %mask) #[[A]]
; CHECK-LABEL: define void @escape_map(
; CHECK:       attributes #[[A]] = { {{.*}}"stackrealign"
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
