define i32 @broken(i32 %a) {
entry:
  %x = add i32 %a,
  ret i32 %x
}
