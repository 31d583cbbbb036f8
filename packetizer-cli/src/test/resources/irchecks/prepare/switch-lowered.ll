; A switch on a varying value is lowered to branches (lower-switch) and the cases become blends:
; no switch, and no conditional branch, is left in the packet function (the case blocks are tiny).
; RUN: packetize -f f -w 4 --params v
; CHECK-LABEL: define <4 x i32> @f_simd4(<4 x i32> %k)
; CHECK-NOT:   switch
; CHECK-NOT:   br i1
; CHECK:       icmp eq <4 x i32> %k,
; CHECK:       select <4 x i1>
; CHECK:       ret <4 x i32>
define i32 @f(i32 %k) {
entry:
  switch i32 %k, label %other [ i32 1, label %one
                                i32 7, label %seven ]
one:
  br label %done
seven:
  br label %done
other:
  %m = mul i32 %k, 3
  br label %done
done:
  %r = phi i32 [ 10, %one ], [ 70, %seven ], [ %m, %other ]
  ret i32 %r
}
