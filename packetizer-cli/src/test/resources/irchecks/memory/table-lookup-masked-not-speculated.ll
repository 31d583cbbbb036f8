; Where element 0 of the base is not known to be readable, a lookup under a partial mask does not
; read it: a table passed by pointer, an extern_weak table (its address may be null), and a global
; smaller than the loaded value take the per-lane path whose inactive lanes read the module's private
; dummy slot (a pointer select per lane), not the offsets select.
; RUN: packetize -f f -w 8 --params uvv --target-cpu=haswell --remarks
; CHECK-LABEL: define <8 x i32> @f_simd8(ptr %t, <8 x i32> %k, <8 x i32> %c)
; CHECK-NOT:   offs.active
; CHECK:       select i1 {{.*}}@__packetizer.inactive.lane
; CHECK-NOT:   offs.active
; SHAPES:      became 8 scalar loads (inactive lanes read a private dummy slot)

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
