; A function with state across calls: W scalar calls see the counter at 0, 1, 2, ..., one packet
; call sees it once. Packetizing it is legal IR but not the same computation: packetize warns about a
; cross-lane race on @calls, and --check catches it (exit code 1, first differing lane 1).
@calls = global i32 0

define i32 @next_id(i32 %base) {
entry:
  %c = load i32, ptr @calls
  %c1 = add i32 %c, 1
  store i32 %c1, ptr @calls
  %r = add i32 %base, %c
  ret i32 %r
}
