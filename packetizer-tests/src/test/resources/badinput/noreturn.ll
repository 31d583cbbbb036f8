; A call to a noreturn function on an error path that only some lanes take.
declare void @fail(i32) noreturn nounwind

define float @f(float %x) {
entry:
  %bad = fcmp olt float %x, 0.0
  br i1 %bad, label %error, label %ok
error:
  %i = fptosi float %x to i32
  call void @fail(i32 %i) noreturn nounwind
  unreachable
ok:
  %r = call float @llvm.sqrt.f32(float %x)
  ret float %r
}

declare float @llvm.sqrt.f32(float)
