; A recursive function: Fibonacci. The recursive calls call fib's masked packet version, which calls itself.
define i32 @fib(i32 %n) {
entry:
  %small = icmp slt i32 %n, 2
  br i1 %small, label %base, label %rec
base:
  ret i32 %n
rec:
  %n1 = sub i32 %n, 1
  %n2 = sub i32 %n, 2
  %f1 = call i32 @fib(i32 %n1)
  %f2 = call i32 @fib(i32 %n2)
  %s = add i32 %f1, %f2
  ret i32 %s
}
