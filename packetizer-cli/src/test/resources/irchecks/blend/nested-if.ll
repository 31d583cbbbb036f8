; Nested divergent ifs: the inner join blends on the inner condition, the outer join on the outer;
; two vector selects, no branch.
; RUN: packetize -f f -w 4 --params vv
; CHECK-LABEL: define <4 x i32> @f_simd4(<4 x i32> %a, <4 x i32> %b)
; CHECK-NOT:   br i1
; CHECK:       select <4 x i1> {{.*}}, <4 x i32>
; CHECK:       select <4 x i1> {{.*}}, <4 x i32>
; CHECK:       ret <4 x i32>
define i32 @f(i32 %a, i32 %b) {
entry:
  %c1 = icmp sgt i32 %a, 0
  br i1 %c1, label %outer, label %join2
outer:
  %c2 = icmp sgt i32 %b, 0
  br i1 %c2, label %inner, label %join1
inner:
  %p = mul i32 %a, %b
  br label %join1
join1:
  %q = phi i32 [ %p, %inner ], [ %b, %outer ]
  %q2 = shl i32 %q, 1
  br label %join2
join2:
  %r = phi i32 [ %q2, %join1 ], [ %a, %entry ]
  ret i32 %r
}
