; An indirect branch through a block address.
define i32 @f(i32 %x) {
entry:
  %c = icmp slt i32 %x, 0
  %target = select i1 %c, ptr blockaddress(@f, %neg), ptr blockaddress(@f, %pos)
  indirectbr ptr %target, [label %neg, label %pos]
neg:
  ret i32 -1
pos:
  ret i32 1
}
