; The glibc-exact expf and logf helpers look up their tables by a 32-bit index from a uniform base; on
; AVX2 (haswell) at W8 the lookup is two hardware gathers with 32-bit indices (vpgatherdq, 4 lanes
; each) instead of a gather of 64-bit pointers, which LLVM expands into vpextrq/vmovq of every address
; (issue 16, TableLookup).
; RUN: packetize -f f -w 8 --params vv --vector-math=intrinsics --remarks
; CHECK-LABEL: define internal <8 x float> @__packetizer_glibc_expf_v8_
; CHECK:       %idx{{.*}} = and <8 x i32> %ki32{{.*}}, splat (i32 31)
; CHECK:       call <4 x i64> @llvm.x86.avx2.gather.d.q.256(<4 x i64> zeroinitializer, ptr @__packetizer_glibc_expf_v8_{{.*}}.tab, <4 x i32>
; CHECK:       call <4 x i64> @llvm.x86.avx2.gather.d.q.256(
; CHECK-LABEL: define internal <8 x float> @__packetizer_glibc_logf_v8_
; CHECK:       call <4 x i64> @llvm.x86.avx2.gather.d.q.256(<4 x i64> zeroinitializer, ptr @__packetizer_glibc_logf_v8_{{.*}}.invc, <4 x i32>
; CHECK:       call <4 x i64> @llvm.x86.avx2.gather.d.q.256(<4 x i64> zeroinitializer, ptr @__packetizer_glibc_logf_v8_{{.*}}.logc, <4 x i32>
; CHECK-NOT:   @llvm.masked.gather
; SHAPES:      its table lookups: hardware gather with 32-bit indices (vpgatherdq)
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
