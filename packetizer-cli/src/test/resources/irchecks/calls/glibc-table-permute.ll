; The glibc-exact expf and logf helpers look up their tables (expf: 32 entries of 2^(i/32); logf: 16 of
; 1/c and of log c) by a 32-bit index from a uniform base; on AVX-512 at W16 the tables sit in
; registers and the lookup is a two-source permute (vpermi2q: 16 entries, two of them and a select on
; bit 4 for 32), no gather of 64-bit pointers (issue 16, TableLookup).
; RUN: packetize -f f -w 16 --params vv --vector-math=intrinsics --remarks
; CHECK-LABEL: define <16 x float> @f_simd16(<16 x float> %x, <16 x float> %y)
; CHECK:       call <16 x float> @__packetizer_glibc_expf_v16_{{.*}}(<16 x float>
; CHECK:       call <16 x float> @__packetizer_glibc_logf_v16_{{.*}}(<16 x float>
; CHECK-LABEL: define internal <16 x float> @__packetizer_glibc_expf_v16_
; CHECK:       %e.idx{{.*}} = and <16 x i32> %e.k32{{.*}}, splat (i32 31)
; CHECK:       call <8 x i64> @llvm.x86.avx512.vpermi2var.q.512(<8 x i64> <i64 4607182418800017408,
; CHECK:       call <8 x i64> @llvm.x86.avx512.vpermi2var.q.512(
; CHECK:       select <8 x i1>
; CHECK-LABEL: define internal <16 x float> @__packetizer_glibc_logf_v16_
; CHECK:       call <8 x i64> @llvm.x86.avx512.vpermi2var.q.512(
; CHECK-NOT:   @llvm.masked.gather
; SHAPES:      its table lookups: permute in registers (AVX-512 vpermi2q)
define float @f(float %x, float %y) #0 {
entry:
  %e = call float @expf(float %x)
  %l = call float @logf(float %y)
  %r = fadd float %e, %l
  ret float %r
}
declare float @expf(float)
declare float @logf(float)
attributes #0 = { "target-cpu"="znver4" }
