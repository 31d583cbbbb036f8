; -Dpacketizer.tableLookup.perCpu=false: Intel's AVX2 cores take the route of every other AVX2 target again, scalar
; loads by 32-bit index for expf's table and 16-byte rows for logf's pairs, as before the twenty-first round (issue 16,
; TableLookup.intelAvx2).
; SET: packetizer.tableLookup.perCpu=false
; RUN: packetize -f f -w 8 --params vv --vector-math=intrinsics --remarks
; CHECK-LABEL: define internal <8 x float> @__packetizer_glibc_expf_v8_
; CHECK:       %e.t0.off{{.*}} = shl <8 x i32> %e.idx{{.*}}, splat (i32 3)
; CHECK:       extractelement <8 x i32> %e.t0.off{{.*}}, i32 0
; CHECK-LABEL: define internal <8 x float> @__packetizer_glibc_logf_v8_
; CHECK:       getelementptr inbounds i8, ptr @__packetizer_glibc_logf_v8_{{.*}}.logtab.rows, i64
; CHECK-NOT:   @llvm.x86.avx2.gather
; CHECK-NOT:   @llvm.x86.avx2.permd
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
attributes #0 = { "target-cpu"="haswell" }
