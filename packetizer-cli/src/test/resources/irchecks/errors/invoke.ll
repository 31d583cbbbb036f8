; Exception handling is rejected before anything is emitted: exit 3, the function and block named,
; the instruction shown, nothing written.
; RUN: not packetize -f f -w 4
; SHAPES:      error: in function @f, block %entry: exception handling ('invoke') is not supported
; SHAPES-NEXT: at: %r = invoke i32 @may_throw(i32 %x)
; CHECK-NOT:   define
define i32 @f(i32 %x) personality ptr @pers {
entry:
  %r = invoke i32 @may_throw(i32 %x) to label %ok unwind label %lpad
ok:
  ret i32 %r
lpad:
  %lp = landingpad { ptr, i32 } cleanup
  ret i32 0
}
declare i32 @may_throw(i32)
declare i32 @pers(...)
