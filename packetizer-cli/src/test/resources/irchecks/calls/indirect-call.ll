; An indirect call with a varying callee: a loop over the pending lanes takes the first pending lane's
; target; a function of the module with that address gets one call of its masked packet version for
; all lanes sharing the target, any other target one scalar call for that lane (lane order).
; RUN: packetize -f dispatch -w 4 --remarks
; SHAPES:      scalarized-call: indirect call: each lane calls its own target
; CHECK-LABEL: define <4 x float> @dispatch_simd4(<4 x float> %x, <4 x i32> %i)
; CHECK:       icmp eq ptr {{%.*}}, @twice
; CHECK:       call <4 x float> @twice.packet4.v.masked(<4 x float>
; CHECK:       call float {{%.*}}(float
@table = internal constant [2 x ptr] [ptr @twice, ptr @ext]
define internal float @twice(float %x) {
  %r = fmul float %x, 2.0
  ret float %r
}
declare float @ext(float)
define float @dispatch(float %x, i32 %i) {
entry:
  %k = and i32 %i, 1
  %idx = zext i32 %k to i64
  %p = getelementptr [2 x ptr], ptr @table, i64 0, i64 %idx
  %f = load ptr, ptr %p
  %r = call float %f(float %x)
  ret float %r
}
