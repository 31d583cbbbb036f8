; A lane reading a global that lower lanes wrote (t = counter; counter = t + x; return t) cannot be
; reproduced by one packet call: the packet function is made, and the race is a warning naming the
; function, block, location and store (W calls in lane order would give each lane another t).
; RUN: packetize -f ticket -w 4
; SHAPES:      warning: in function @ticket, block %entry: cross-lane race on @counter
; SHAPES-SAME: before the same lane writes it
; SHAPES-NEXT: at: store i32 %n, ptr @counter
; CHECK-LABEL: define <4 x i32> @ticket_simd4(<4 x i32> %x)
@counter = global i32 0
define i32 @ticket(i32 %x) {
entry:
  %t = load i32, ptr @counter
  %n = add i32 %t, %x
  store i32 %n, ptr @counter
  ret i32 %t
}
