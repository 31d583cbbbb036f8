; A variadic function cannot be packetized.
; RUN: not packetize -f sum -w 4
; SHAPES:      error: in function @sum: variadic functions cannot be packetized
; CHECK-NOT:   define
define i32 @sum(i32 %n, ...) {
entry:
  ret i32 %n
}
