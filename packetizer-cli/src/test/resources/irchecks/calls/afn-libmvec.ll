; The bit-exact mode (--vector-math intrinsics) keeps libm's results, except where the scalar call
; itself allows an approximation: a call with the afn fast-math flag (clang's -ffast-math,
; -fapprox-func) takes glibc's vector variant, as GCC uses libmvec only under -ffast-math. The call
; without afn stays exact: the scalar intrinsic once per lane, in a loop over the lanes.
; RUN: packetize -f f -w 8 --params vv --target-cpu=haswell --vector-math=intrinsics --remarks
; CHECK-LABEL: define <8 x float> @f_simd8(<8 x float> %x, <8 x float> %y)
; CHECK:       call {{.*}} @_ZGV{{.*}}_sinf(
; CHECK:       store <8 x float> %y, ptr
; CHECK:       call float @llvm.sin.f32(float
; SHAPES:      (max 4 ULP) (the call allows approximate functions: afn)
target triple = "x86_64-unknown-linux-gnu"
define float @f(float %x, float %y) {
  %a = call afn float @llvm.sin.f32(float %x)
  %b = call float @llvm.sin.f32(float %y)
  %s = fadd float %a, %b
  ret float %s
}
declare float @llvm.sin.f32(float)
