; A consecutive store under a divergent branch only writes the active lanes: llvm.masked.store with
; the branch condition as the mask, never a plain vector store.
; RUN: packetize -f f -w 4 --params uul
; CHECK-LABEL: define void @f_simd4(ptr %in, ptr %out, i64 %i)
; CHECK:       [[C:%[a-z0-9.]+]] = fcmp ogt <4 x float>
; CHECK:       call void @llvm.masked.store.v4f32.p0(<4 x float> {{.*}}, ptr {{.*}}, i32 4, <4 x i1> [[C]])
; CHECK-NOT:   store <4 x float>
define void @f(ptr %in, ptr %out, i64 %i) {
entry:
  %p = getelementptr inbounds float, ptr %in, i64 %i
  %v = load float, ptr %p, align 4
  %c = fcmp ogt float %v, 0.0
  br i1 %c, label %then, label %done
then:
  %q = getelementptr inbounds float, ptr %out, i64 %i
  store float %v, ptr %q, align 4
  br label %done
done:
  ret void
}
