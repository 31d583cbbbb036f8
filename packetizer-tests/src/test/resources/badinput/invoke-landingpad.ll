; Exception handling: invoke and landingpad.
declare i32 @may_throw(i32)
declare i32 @__gxx_personality_v0(...)

define i32 @f(i32 %x) personality ptr @__gxx_personality_v0 {
entry:
  %r = invoke i32 @may_throw(i32 %x) to label %ok unwind label %lpad
ok:
  ret i32 %r
lpad:
  %lp = landingpad { ptr, i32 } cleanup
  ret i32 -1
}
