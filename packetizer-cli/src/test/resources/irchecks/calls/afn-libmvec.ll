; The bit-exact mode (--vector-math intrinsics) keeps libm's results, except where the scalar call
; itself allows an approximation: a call with the afn fast-math flag (clang's -ffast-math,
; -fapprox-func) takes glibc's vector variant, as GCC uses libmvec only under -ffast-math. The call
; without afn stays exact: glibc's own results, here by the exact vector helper for FMA targets (the route is
; decided for --target-cpu=haswell since the nineteenth round: the run's functions carry the named CPU while it
; decides; before, the route read the input's attribute-less function and took the scalar intrinsic once per lane).
; RUN: packetize -f f -w 8 --params vv --target-cpu=haswell --vector-math=intrinsics --remarks
; CHECK-LABEL: define <8 x float> @f_simd8(<8 x float> %x, <8 x float> %y)
; CHECK:       call {{.*}} @_ZGV{{.*}}_sinf(
; CHECK:       call {{.*}} @__packetizer_sinf_v8_fma_{{[0-9a-f]+}}(<8 x float> %y
; CHECK-NOT:   call float @llvm.sin.f32(float
; SHAPES:      (max 4 ULP) (the call allows approximate functions: afn)
target triple = "x86_64-unknown-linux-gnu"
define float @f(float %x, float %y) {
  %a = call afn float @llvm.sin.f32(float %x)
  %b = call float @llvm.sin.f32(float %y)
  %s = fadd float %a, %b
  ret float %s
}
declare float @llvm.sin.f32(float)
