; Partial linearization (Moll & Hack): a branch on a uniform value in a block that holds all lanes
; stays a real branch on the scalar condition; the summary counts it as kept.
; RUN: packetize -f f -w 8 --params vuu --print-shapes
; SHAPES:      0 branches linearized, 1 kept
; SHAPES:      block %entry: full mask, uniform branch kept -> %a, %b
; CHECK-LABEL: define void @f_simd8(<8 x float> %x, i32 %mode, ptr %out)
; CHECK:       [[C:%[a-z0-9.]+]] = icmp eq i32 %mode, 0
; CHECK-NEXT:  br i1 [[C]], label
; CHECK:       call void @trace_a(ptr %out)
; CHECK:       call void @trace_b(ptr %out)
define void @f(float %x, i32 %mode, ptr %out) {
entry:
  %m = icmp eq i32 %mode, 0
  br i1 %m, label %a, label %b
a:
  call void @trace_a(ptr %out)
  br label %done
b:
  call void @trace_b(ptr %out)
  br label %done
done:
  ret void
}
declare void @trace_a(ptr)
declare void @trace_b(ptr)
