; A function with the HiPE calling convention: LLVM's code generator aborts ("LLVM ERROR: Can't
; generate HiPE prologue without runtime parameters") when the JIT compiles it. --check must survive.
define cc 11 i32 @h(i32 %x) {
entry:
  %c = icmp sgt i32 %x, 0
  %r = select i1 %c, i32 %x, i32 0
  ret i32 %r
}
