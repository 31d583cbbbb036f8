; A computed goto: the packetizer rejects indirectbr (exit code 3).
define i32 @jump(i32 %a, ptr %target) {
entry:
  indirectbr ptr %target, [label %one, label %two]
one:
  ret i32 1
two:
  %r = add i32 %a, 2
  ret i32 %r
}
