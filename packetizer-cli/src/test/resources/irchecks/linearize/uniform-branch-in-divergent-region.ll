; A uniform branch inside a block that may run with a partial mask cannot stay a real branch in
; general (the other side's lanes are not all-or-nothing there): it is linearized like a divergent
; one, and the analysis says so.
; RUN: packetize -f f -w 4 --params vuu --print-shapes
; SHAPES:      block %entry: full mask, divergent branch
; SHAPES:      block %inner: partial mask, uniform branch linearized
define void @f(i32 %x, i32 %mode, ptr %out) {
entry:
  %c = icmp sgt i32 %x, 0
  br i1 %c, label %inner, label %done
inner:
  %m = icmp eq i32 %mode, 0
  br i1 %m, label %a, label %b
a:
  store i32 %x, ptr %out, align 4
  br label %done
b:
  %y = add i32 %x, 1
  store i32 %y, ptr %out, align 4
  br label %done
done:
  ret void
}
