; The SIMD name asked for, @shade_simd, already names a global variable (and @shade_alias an
; alias): LLVM would silently call the packet function @shade_simd.1.
@shade_simd = global i32 0
@shade_alias = alias i32, ptr @shade_simd

define float @shade(float %x) {
entry:
  %r = fmul float %x, 2.0
  ret float %r
}
