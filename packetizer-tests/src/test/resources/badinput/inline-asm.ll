; Inline assembly.
define i32 @f(i32 %x) {
entry:
  %r = call i32 asm "lea 1($1), $0", "=r,r"(i32 %x)
  ret i32 %r
}
