; DESIGN §4: integer division by a varying divisor under a divergent branch must not trap in
; inactive lanes: the divisor is replaced by 1 where the block's mask is off, before the sdiv.
; RUN: packetize -f f -w 4 --params vv
; CHECK-LABEL: define <4 x i32> @f_simd4(<4 x i32> %a, <4 x i32> %b)
; CHECK:       [[C:%[a-z0-9.]+]] = icmp {{sgt|slt}} <4 x i32> %a,
; CHECK:       [[D:%[a-z0-9.]+]] = select <4 x i1> [[C]], <4 x i32> {{(%b, <4 x i32> splat \(i32 1\)|splat \(i32 1\), <4 x i32> %b)}}
; CHECK:       sdiv <4 x i32> %a, [[D]]
define i32 @f(i32 %a, i32 %b) {
entry:
  %c = icmp sgt i32 %a, 0
  br i1 %c, label %div, label %done
div:
  %q = sdiv i32 %a, %b
  br label %done
done:
  %r = phi i32 [ %q, %div ], [ 0, %entry ]
  ret i32 %r
}
