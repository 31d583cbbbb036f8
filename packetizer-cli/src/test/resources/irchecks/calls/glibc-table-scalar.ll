; The glibc-exact expf and logf helpers look up their tables by a 32-bit index from a uniform base; on
; AMD's AVX2 (znver3) at W8 the lookup is one scalar load per lane at the table plus the lane's 32-bit byte
; offset (one vector shift, then vpextrd, vmovq tab(%r)), not a gather of 64-bit pointers, which LLVM
; expands into vpextrq/vmovq of every address; logf's (1/c, log c) pairs are 16-byte rows, one load
; per lane (issue 16, TableLookup; AVX2's vpgatherdq and vpermd halves measured no faster on Zen: knob only;
; Intel's AVX2 cores gather since the twenty-first round, glibc-table-intel-avx2.ll).
; RUN: packetize -f f -w 8 --params vv --vector-math=intrinsics --remarks
; CHECK-LABEL: define internal <8 x float> @__packetizer_glibc_expf_v8_
; CHECK:       %e.idx{{.*}} = and <8 x i32> %e.k32{{.*}}, splat (i32 31)
; CHECK:       %e.t0.off{{.*}} = shl <8 x i32> %e.idx{{.*}}, splat (i32 3)
; CHECK:       extractelement <8 x i32> %e.t0.off{{.*}}, i32 0
; CHECK:       getelementptr inbounds i8, ptr @__packetizer_glibc_expf_v8_{{.*}}.tab, i64
; CHECK:       extractelement <8 x i32> %e.t0.off{{.*}}, i32 7
; CHECK-LABEL: define internal <8 x float> @__packetizer_glibc_logf_v8_
; CHECK:       %invcb.off{{.*}} = shl <8 x i32> %i{{.*}}, splat (i32 4)
; CHECK:       getelementptr inbounds i8, ptr @__packetizer_glibc_logf_v8_{{.*}}.logtab.rows, i64
; CHECK:       load <2 x i64>, ptr
; CHECK:       shufflevector <2 x i64> %invcb.r0{{.*}}, <2 x i64> %invcb.r1{{.*}}, <2 x i32> <i32 1, i32 3>
; CHECK-NOT:   @llvm.masked.gather
; CHECK-NOT:   @llvm.x86.avx2.gather
; SHAPES:      its table lookups: scalar loads by 32-bit index
define float @f(float %x, float %y) #0 {
entry:
  %e = call float @expf(float %x)
  %l = call float @logf(float %y)
  %r = fadd float %e, %l
  ret float %r
}
declare float @expf(float)
declare float @logf(float)
attributes #0 = { "target-cpu"="znver3" }
