; Dynamic variants for fields of one element of an array of structs (p[i].y, p[i].z; the struct is 16
; bytes): the lanes' pointers differ by multiples of 16 bytes, never by the fields' 4, so the
; consecutive variant could never be taken and is left out (its test and its vector loads were
; 12 machine instructions of nbody W16). The all-equal variant and the per-lane path stay. Fails with
; -Dpacketizer.dynamicVariants.keepImpossible=true.
; RUN: packetize -f f -w 16 --params uv --target-cpu=znver4 --remarks
; CHECK-LABEL: define <16 x float> @f_simd16(ptr %p, <16 x i32> %i)
; (the all-equal test compares the 32-bit i, not the pointers: dynamic-variants-offsets.ll)
; (ne, or eq where the two-valued variant's blend uses the compare: dynamic-variants-two.ll)
; CHECK:       icmp {{eq|ne}} <16 x i32> %i,
; CHECK:       br i1 %dyn.same, label %{{[\w.]+}}.same, label %{{[\w.]+}}.{{lanes|twotest}}
; CHECK:       {{[\w.]+}}.same:
; CHECK-NOT:   consecutive
; CHECK:       {{[\w.]+}}.lanes:
; CHECK-NOT:   consecutive
; CHECK:       ret <16 x float>
; SHAPES:      dynamic variants for the 2 loads at constant offsets from %pi: {{.*}}no consecutive variant (the lanes' pointers differ by multiples of 16 bytes, never by 4)
%struct.B = type { float, float, float, float }

define float @f(ptr %p, i32 %i) {
entry:
  %idx = sext i32 %i to i64
  %pi = getelementptr inbounds %struct.B, ptr %p, i64 %idx
  %py = getelementptr inbounds i8, ptr %pi, i64 4
  %y = load float, ptr %py, align 4
  %pz = getelementptr inbounds i8, ptr %pi, i64 8
  %z = load float, ptr %pz, align 4
  %r = fmul float %y, %z
  ret float %r
}
