; asm goto (callbr).
define i32 @f(i32 %x) {
entry:
  callbr void asm "", "r,!i"(i32 %x) to label %normal [label %indirect]
normal:
  ret i32 0
indirect:
  ret i32 1
}
