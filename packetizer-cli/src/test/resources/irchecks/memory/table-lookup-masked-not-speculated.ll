; Where element 0 of the base is not known to be readable the lookup under a partial mask keeps its
; mask: a table passed by pointer, an extern_weak table (its address may be null), and a global
; smaller than the loaded value.
; RUN: packetize -f f -w 8 --params uvv --target-cpu=haswell
; CHECK-LABEL: define <8 x i32> @f_simd8(ptr %t, <8 x i32> %k, <8 x i32> %c)
; CHECK-NOT:   offs.active
; CHECK:       call <8 x i32> @llvm.masked.gather.v8i32.v8p0(<8 x ptr> %{{.*}}, i32 4, <8 x i1> %{{.*}}, <8 x i32> poison)
; CHECK-NOT:   offs.active
; CHECK:       call <8 x i32> @llvm.masked.gather.v8i32.v8p0(<8 x ptr> %{{.*}}, i32 4, <8 x i1> %{{.*}}, <8 x i32> poison)
; CHECK-NOT:   offs.active
; CHECK:       call <8 x i32> @llvm.masked.gather.v8i32.v8p0(<8 x ptr> %{{.*}}, i32 4, <8 x i1> %{{.*}}, <8 x i32> poison)
; CHECK-NOT:   offs.active
@weak = extern_weak global [64 x i32]
@small = internal global [1 x i16] zeroinitializer, align 4
define i32 @f(ptr %t, i32 %k, i32 %c) {
entry:
  %b = icmp sgt i32 %c, 0
  br i1 %b, label %then, label %join
then:
  %i = and i32 %k, 63
  %x = zext nneg i32 %i to i64
  %p = getelementptr inbounds i32, ptr %t, i64 %x
  %v = load i32, ptr %p, align 4
  %q = getelementptr inbounds [64 x i32], ptr @weak, i64 0, i64 %x
  %u = load i32, ptr %q, align 4
  %j = and i32 %k, 1
  %y = zext nneg i32 %j to i64
  %s = getelementptr inbounds i16, ptr @small, i64 %y
  %w = load i32, ptr %s, align 4
  %a1 = add i32 %v, %u
  %a2 = add i32 %a1, %w
  br label %join
join:
  %r = phi i32 [ %a2, %then ], [ %c, %entry ]
  ret i32 %r
}
