; packetizer fuzz regression
; found: reduced from stress-2026006151-70.ll
; function: f
; kinds: vu
; expect: pass
; bug: `select i1 %c, float %u, float %u` with %c varying and %u uniform is uniform (it is %u), but the
;   emitter cloned it as a uniform instruction and asked for %c as a scalar: INTERNAL "value %c used as
;   uniform but it is varying" (without the scalar clean-up, which would have folded it).
define float @f(i32 %x, float %u) {
entry:
  %c = icmp slt i32 %x, 10
  %s = select i1 %c, float %u, float %u
  %r = fadd float %s, 1.0
  %d = icmp sgt i32 %x, 0
  %v = sitofp i32 %x to float
  %t = select i1 %d, float %v, float %v
  %q = fadd float %r, %t
  ret float %q
}
