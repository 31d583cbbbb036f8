; packetizer fuzz regression
; found: written by hand after FuzzMain --mode opt --seed 9910 --first 512 --cases 1 (-O2)
; function: f
; kinds: vv
; expect: pass
; bug: a uniform branch in a block under a partial mask gets its edge masks as `select c, m, false`
;   (and `select c, false, m`). Block %dead is never executed (its predecessor branches on false),
;   and its condition is poison, as InstCombine leaves the blocks it proves dead. A select on a poison
;   condition is poison although both arms are the empty mask, so the masks of %b and %join and every
;   blend selected by them were poison: LLVM folded the blends to an arm of its choice, and lanes
;   with x > 0 returned x instead of 3*y at every width. The uniform condition is now frozen before
;   it selects a partial mask (MaskOps.frozen). Failed at W=4, 8 and 16 before the fix.
define i32 @f(i32 %x, i32 %y) {
entry:
  %c = icmp sgt i32 %x, 0
  br i1 %c, label %a, label %join

a:
  br i1 false, label %dead, label %b

dead:
  br i1 poison, label %b, label %join

b:
  %p = phi i32 [ 3, %a ], [ 5, %dead ]
  %r = mul i32 %p, %y
  br label %join

join:
  %res = phi i32 [ %r, %b ], [ %x, %entry ], [ 7, %dead ]
  ret i32 %res
}
