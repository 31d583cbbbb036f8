; The glibc-exact expf and logf helpers look up their tables by a 32-bit index from a uniform base; on
; AVX2 (haswell) at W8 the lookup is one scalar load per lane at the table plus the extracted 32-bit
; index (vpextrd, vmovsd tab(,%r,8)), not a gather of 64-bit pointers, which LLVM expands into
; vpextrq/vmovq of every address (issue 16, TableLookup; AVX2's vpgatherdq measured slower).
; RUN: packetize -f f -w 8 --params vv --vector-math=intrinsics --remarks
; CHECK-LABEL: define internal <8 x float> @__packetizer_glibc_expf_v8_
; CHECK:       %idx{{.*}} = and <8 x i32> %ki32{{.*}}, splat (i32 31)
; CHECK:       extractelement <8 x i32> %idx{{.*}}, i32 0
; CHECK:       getelementptr inbounds i64, ptr @__packetizer_glibc_expf_v8_{{.*}}.tab, i64
; CHECK:       extractelement <8 x i32> %idx{{.*}}, i32 7
; CHECK-LABEL: define internal <8 x float> @__packetizer_glibc_logf_v8_
; CHECK:       getelementptr inbounds i64, ptr @__packetizer_glibc_logf_v8_{{.*}}.invc, i64
; CHECK:       getelementptr inbounds i64, ptr @__packetizer_glibc_logf_v8_{{.*}}.logc, i64
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
attributes #0 = { "target-cpu"="haswell" }
