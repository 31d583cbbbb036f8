; On Intel's AVX2 cores (haswell here; skylake, alderlake, x86-64-v3 alike) at W8 the glibc-exact helpers' single
; table lookups are hardware gathers and their pairs of tables the 32-bit halves permuted in registers (issue 16,
; twenty-first round, TableLookup.intelAvx2; measured on a Sapphire Rapids host: expf 25 % more calls per second than
; with scalar loads, logf's latency 5 % shorter). expf's index k mod 32 is taken from the 64-bit lanes of k
; themselves: one and, then vpgatherqq by 4 lanes from the table (no trunc to 32-bit lanes, which is two
; cross-lane permutes and an insert on AVX2, and no vpextrd per lane). logf's (1/c, log c) by vpermd, no gather.
; RUN: packetize -f f -w 8 --params vv --vector-math=intrinsics --remarks
; CHECK-LABEL: define internal <8 x float> @__packetizer_glibc_expf_v8_
; CHECK:       %e.t0.k{{.*}} = and <8 x i64> %e.ki{{.*}}, splat (i64 31)
; CHECK:       %e.t0.g0.i{{.*}} = shufflevector <8 x i64> %e.t0.k{{.*}}, <8 x i64> poison, <4 x i32> <i32 0, i32 1, i32 2, i32 3>
; CHECK:       call <4 x i64> @llvm.x86.avx2.gather.q.q.256(<4 x i64> zeroinitializer, ptr @__packetizer_glibc_expf_v8_{{.*}}.tab, <4 x i64> %e.t0.g0.i
; CHECK:       %e.t0.g1.i{{.*}} = shufflevector <8 x i64> %e.t0.k{{.*}}, <8 x i64> poison, <4 x i32> <i32 4, i32 5, i32 6, i32 7>
; CHECK:       call <4 x i64> @llvm.x86.avx2.gather.q.q.256(<4 x i64> zeroinitializer, ptr @__packetizer_glibc_expf_v8_{{.*}}.tab, <4 x i64> %e.t0.g1.i
; CHECK-NOT:   extractelement <8 x i32>
; CHECK-LABEL: define internal <8 x float> @__packetizer_glibc_logf_v8_
; CHECK:       call <8 x i32> @llvm.x86.avx2.permd(
; CHECK-NOT:   extractelement <8 x i32>
; CHECK-NOT:   @llvm.x86.avx2.gather
; CHECK-NOT:   @llvm.masked.gather
; SHAPES:      its table lookups: hardware gather (AVX2 vpgatherdq by 32-bit index, vpgatherqq by the 64-bit lanes of expf's k), pairs of tables: 32-bit halves permuted in registers (AVX2 vpermd) (an Intel core, haswell, with AVX2
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
