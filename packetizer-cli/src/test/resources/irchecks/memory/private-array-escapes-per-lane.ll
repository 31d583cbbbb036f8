; A private array whose address is passed to a call keeps one block per lane (the callee sees one
; lane's array in the scalar layout), and the remark says why.
; RUN: packetize -f f -w 4 --params v --remarks
; CHECK-LABEL: define <4 x i32> @f_simd4(<4 x i32> %x)
; CHECK:       alloca [4 x [4 x i32]]
; SHAPES:      one block per lane, because its address is passed to 'g'
declare i32 @g(ptr)
define i32 @f(i32 %x) {
entry:
  %a = alloca [4 x i32], align 16
  store i32 %x, ptr %a, align 4
  %r = call i32 @g(ptr %a)
  ret i32 %r
}
