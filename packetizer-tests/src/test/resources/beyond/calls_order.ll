; A scalar function recording its argument, and a W=4 "packet function" that records the lanes in
; reverse order (VariadicCallTest.checkerComparesCallOrder): the same multiset of calls, the wrong order.
declare void @record(i32)

define void @rec(i32 %x) {
entry:
  call void @record(i32 %x)
  ret void
}

define void @reversed(<4 x i32> %x) {
entry:
  %x0 = extractelement <4 x i32> %x, i64 0
  %x1 = extractelement <4 x i32> %x, i64 1
  %x2 = extractelement <4 x i32> %x, i64 2
  %x3 = extractelement <4 x i32> %x, i64 3
  call void @record(i32 %x3)
  call void @record(i32 %x2)
  call void @record(i32 %x1)
  call void @record(i32 %x0)
  ret void
}
