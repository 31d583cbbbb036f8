; What the packetizer emitted for issue #19's fastcc example before the fix: the packet function calls
; the helper's fastcc packet version with the C convention. The clean-up turns that undefined
; behaviour into an 'unreachable' body; @f_ok is the same with the right convention.
define i32 @f(i32 %x) {
entry:
  %c = icmp sgt i32 %x, 0
  br i1 %c, label %t, label %e
t:
  %r = call fastcc i32 @sq(i32 %x)
  br label %e
e:
  %p = phi i32 [ %r, %t ], [ %x, %entry ]
  ret i32 %p
}

define internal fastcc i32 @sq(i32 %v) noinline {
  %m = mul i32 %v, %v
  ret i32 %m
}

define <8 x i32> @f_simd8(<8 x i32> %x) {
entry:
  %c = icmp sgt <8 x i32> %x, zeroinitializer
  %r = call <8 x i32> @sq.packet8.v.masked(<8 x i32> %x, <8 x i1> %c)
  %p = select <8 x i1> %c, <8 x i32> %r, <8 x i32> %x
  ret <8 x i32> %p
}

define <8 x i32> @f_ok(<8 x i32> %x) {
entry:
  %c = icmp sgt <8 x i32> %x, zeroinitializer
  %r = call fastcc <8 x i32> @sq.packet8.v.masked(<8 x i32> %x, <8 x i1> %c)
  %p = select <8 x i1> %c, <8 x i32> %r, <8 x i32> %x
  ret <8 x i32> %p
}

define fastcc <8 x i32> @sq.packet8.v.masked(<8 x i32> %v, <8 x i1> %mask) noinline {
entry:
  %m = mul <8 x i32> %v, %v
  ret <8 x i32> %m
}

define void @noreturn_scalar() {
entry:
  unreachable
}

; undefined behaviour on every path in the scalar function itself (a store to null)
define i32 @ub_scalar(i32 %x) {
entry:
  store i32 %x, ptr null, align 4
  ret i32 %x
}

define <8 x i32> @ub_simd8(<8 x i32> %x) {
entry:
  %e = extractelement <8 x i32> %x, i64 7
  store i32 %e, ptr null, align 4
  ret <8 x i32> %x
}
