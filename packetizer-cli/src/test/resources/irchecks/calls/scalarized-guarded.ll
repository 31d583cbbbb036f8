; A call to an unknown external function with side effects cannot be vectorized: it becomes W
; scalar calls, each made only when its lane is active (thesis 4.5.2 fallback).
; RUN: packetize -f f -w 4 --params v --remarks
; CHECK-LABEL: define void @f_simd4(<4 x i32> %x)
; CHECK:       extractelement <4 x i1>
; CHECK:       call void @record(i32
; CHECK:       call void @record(i32
; CHECK:       call void @record(i32
; CHECK:       call void @record(i32
; CHECK-NOT:   call void @record(i32
define void @f(i32 %x) {
entry:
  %c = icmp sgt i32 %x, 0
  br i1 %c, label %then, label %done
then:
  call void @record(i32 %x)
  br label %done
done:
  ret void
}
declare void @record(i32)
