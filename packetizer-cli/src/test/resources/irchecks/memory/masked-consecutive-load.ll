; A consecutive load under a divergent branch may be out of bounds in inactive lanes: it becomes
; llvm.masked.load under the branch's mask.
; RUN: packetize -f f -w 8 --params uvl
; CHECK-LABEL: define <8 x float> @f_simd8(ptr %p, <8 x i64> %n, i64 %i)
; CHECK:       call <8 x float> @llvm.masked.load.v8f32.p0(ptr {{.*}}, i32 4, <8 x i1>
; CHECK-NOT:   load <8 x float>, ptr
define float @f(ptr %p, i64 %n, i64 %i) {
entry:
  %c = icmp slt i64 %i, %n
  br i1 %c, label %then, label %done
then:
  %q = getelementptr inbounds float, ptr %p, i64 %i
  %v = load float, ptr %q, align 4
  br label %done
done:
  %r = phi float [ %v, %then ], [ 0.0, %entry ]
  ret float %r
}
