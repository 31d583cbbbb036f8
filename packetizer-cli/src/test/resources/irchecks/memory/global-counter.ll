; A global counter incremented by every lane that takes a divergent branch: W calls in lane order add
; one per such lane. One scalar read-modify-write adds the reduction of the active lanes' increments
; (for increments of 1 the clean-up turns the reduction into a population count of the mask).
; RUN: packetize -f count -w 8 --remarks
; SHAPES:      memory: updates of @counter by the lanes became one read-modify-write
; CHECK-LABEL: define void @count_simd8(<8 x i32> %x)
; CHECK:       load i32, ptr @counter
; CHECK:       call {{.*}} i8 @llvm.ctpop.i8(
; CHECK:       [[NEW:%[a-z.]+]] = add i32
; CHECK:       store i32 [[NEW]], ptr @counter
@counter = global i32 0
define void @count(i32 %x) {
entry:
  %c = icmp sgt i32 %x, 2
  br i1 %c, label %then, label %done
then:
  %v = load i32, ptr @counter
  %v1 = add nsw i32 %v, 1
  store i32 %v1, ptr @counter
  br label %done
done:
  ret void
}
