; A uniform store (uniform value, uniform address) under a divergent branch is done once, and only
; when some lane takes the branch: a scalar store behind an any-lane test, not a vector store.
; RUN: packetize -f f -w 4 --params vuu
; CHECK-LABEL: define void @f_simd4(<4 x i32> %x, i32 %u, ptr %out)
; CHECK:       {{llvm.vector.reduce.or.v4i1|bitcast <4 x i1> .* to i4}}
; CHECK:       br i1
; CHECK:       store i32 %u, ptr %out
; CHECK-NOT:   store <4 x i32>
; CHECK-NOT:   masked.store
define void @f(i32 %x, i32 %u, ptr %out) {
entry:
  %c = icmp sgt i32 %x, 0
  br i1 %c, label %then, label %done
then:
  store i32 %u, ptr %out, align 4
  br label %done
done:
  ret void
}
