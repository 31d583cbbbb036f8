; expf and sinf in the default vector-math mode (libmvec) on an AVX2 target: through the LOOP wrapper
; (-w 16 --hardware-width 4) the 4-wide function calls _ZGVbN4v_expf/_ZGVbN4v_sinf, where the 16-wide
; route on AVX2 is _ZGVdN8v_*; --check must compare against the variants really called.
source_filename = "loop_math.ll"
target triple = "x86_64-unknown-linux-gnu"

declare float @expf(float) nounwind memory(none)
declare float @sinf(float) nounwind memory(none)

define float @f(float %x) #0 {
entry:
  %e = call float @expf(float %x)
  %s = call float @sinf(float %x)
  %r = fadd float %e, %s
  ret float %r
}

attributes #0 = { "target-cpu"="haswell" "target-features"="+avx,+avx2,+fma,+sse4.2" }
