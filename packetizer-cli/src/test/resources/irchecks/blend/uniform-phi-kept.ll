; A join reached through a kept uniform branch needs no blend: its phi stays a (scalar-condition)
; phi of vectors, and no vector select appears.
; RUN: packetize -f f -w 4 --params vu
; CHECK-LABEL: define <4 x float> @f_simd4(<4 x float> %x, i32 %mode)
; CHECK:       br i1 %{{[a-z0-9.]+}}, label
; CHECK:       phi <4 x float>
; CHECK-NOT:   select <4 x i1>
define float @f(float %x, i32 %mode) {
entry:
  %m = icmp eq i32 %mode, 0
  br i1 %m, label %cubic, label %quartic
cubic:
  %x2 = fmul float %x, %x
  %x3 = fmul float %x2, %x
  %a3 = fadd float %x3, %x2
  %b3 = fmul float %a3, 3.0
  %c3 = fsub float %b3, %x
  %d3 = call float @llvm.sqrt.f32(float %c3)
  br label %join
quartic:
  %y2 = fmul float %x, %x
  %y4 = fmul float %y2, %y2
  %a4 = fadd float %y4, %y2
  %b4 = fmul float %a4, 5.0
  %c4 = fsub float %b4, %x
  %d4 = call float @llvm.fabs.f32(float %c4)
  br label %join
join:
  %r = phi float [ %d3, %cubic ], [ %d4, %quartic ]
  ret float %r
}
declare float @llvm.sqrt.f32(float)
declare float @llvm.fabs.f32(float)
