; An LLVM intrinsic with a vector form maps one to one.
; RUN: packetize -f f -w 4 --params v
; CHECK-LABEL: define <4 x double> @f_simd4(<4 x double> %x)
; CHECK:       call <4 x double> @llvm.sqrt.v4f64(<4 x double> %x)
define double @f(double %x) {
entry:
  %s = call double @llvm.sqrt.f64(double %x)
  ret double %s
}
declare double @llvm.sqrt.f64(double)
