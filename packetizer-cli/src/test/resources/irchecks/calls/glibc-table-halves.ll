; On AVX2 (haswell) at W8, with -Dpacketizer.tableLookup=halves, the glibc-exact helpers' table lookups
; are vector operations only (issue 16, ninth round, TableLookup.Route.HALVES; not the default): the table's low and high 32-bit halves are ymm constants of
; 8 entries each, permuted by vpermd (index bits 0-2), 8-entry blocks chosen by selects on index bits 3
; and 4, the halves interleaved back into 64-bit lanes; no index is extracted to a general register and
; nothing is gathered. The index is permuted <0,1,4,5,2,3,6,7> first so that the interleave is the
; in-lane vpunpckldq/vpunpckhdq pair. The hot special-lane test does not read the active-lane mask.
; SET: packetizer.tableLookup=halves
; RUN: packetize -f f -w 8 --params vv --vector-math=intrinsics --remarks
; CHECK-LABEL: define internal <8 x float> @__packetizer_glibc_expf_v8_
; CHECK:       %e.t0.h0.i{{.*}} = shufflevector <8 x i32> %e.idx{{.*}}, <8 x i32> poison, <8 x i32> <i32 0, i32 1, i32 4, i32 5, i32 2, i32 3, i32 6, i32 7>
; CHECK:       %e.t0.h0.s3{{.*}} = shl <8 x i32> %e.t0.h0.i{{.*}}, splat (i32 28)
; CHECK:       %e.t0.h0.s4{{.*}} = shl <8 x i32> %e.t0.h0.i{{.*}}, splat (i32 27)
; CHECK:       call <8 x i32> @llvm.x86.avx2.permd(
; CHECK:       shufflevector <8 x i32> %e.t0.h0.y0{{.*}}, <8 x i32> %e.t0.h0.y1{{.*}}, <8 x i32> <i32 0, i32 8, i32 1, i32 9, i32 4, i32 12, i32 5, i32 13>
; CHECK-NOT:   extractelement <8 x i32>
; CHECK:       %spi{{.*}} = bitcast <8 x i1> %special{{.*}} to i8
; CHECK:       br i1 %any
; CHECK:       %sm{{.*}} = and <8 x i1> %special{{.*}}, %m
; CHECK-LABEL: define internal <8 x float> @__packetizer_glibc_logf_v8_
; CHECK:       call <8 x i32> @llvm.x86.avx2.permd(
; CHECK-NOT:   extractelement <8 x i32>
; CHECK-NOT:   @llvm.masked.gather
; CHECK-NOT:   @llvm.x86.avx2.gather
; SHAPES:      its table lookups: 32-bit halves permuted in registers (AVX2 vpermd)
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
