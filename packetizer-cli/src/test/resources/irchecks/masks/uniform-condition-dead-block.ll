; A uniform branch under a partial mask selects its edge masks on its condition. Here instcombine (in
; the scalar clean-up) proves s2's condition false from the dominating %c, so s3 becomes dead and
; its condition poison (InstCombine replaces what only dead blocks compute), but the blocks stay. A
; select on a poison condition is poison even when its mask arms are empty: s3's edge masks, then
; done's and exit's, were poison, and LLVM folded the whole packet function to `ret poison` (the
; -O2 fuzz miscompile fuzz-regressions/uniform-condition-poison-mask.c). The condition is frozen now,
; and lanes that went from entry straight to exit keep %a.
; RUN: packetize -f f -w 8 --params vvu
; CHECK-LABEL: define <8 x i32> @f_simd8(
; CHECK-NOT:   ret <8 x i32> poison
; CHECK:       select <8 x i1> {{.*}}, <8 x i32> %a
; CHECK:       ret <8 x i32>
define i32 @f(i32 %a, i32 %b, i32 %u) {
entry:
  %bn = icmp ne i32 %b, 0
  %bz = zext i1 %bn to i32
  %t = xor i32 %a, %bz
  %c = icmp eq i32 %t, 1
  br i1 %c, label %s1, label %exit

s1:
  %m = and i32 %a, 7
  %k1 = icmp eq i32 %m, 2
  br i1 %k1, label %exit, label %s2

s2:
  %t2 = xor i32 %a, %bz
  %k2 = icmp eq i32 %t2, 2
  br i1 %k2, label %s3, label %done

s3:
  %k3 = icmp eq i32 %u, 3
  br i1 %k3, label %exit, label %done

done:
  %p = phi i32 [ 1, %s2 ], [ 2, %s3 ]
  %r = mul i32 %p, %a
  br label %exit

exit:
  %res = phi i32 [ %a, %entry ], [ 5, %s1 ], [ 7, %s3 ], [ %r, %done ]
  ret i32 %res
}
