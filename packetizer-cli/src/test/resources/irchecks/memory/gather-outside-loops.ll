; A load from a vector of 64-bit pointers (the fields of p[i], an array of structs indexed by a varying
; i) in the entry block of a function that then runs a loop, on a target with fast hardware gathers
; (znver4, W16): the block runs once per call, beside the loop, so the loads stay hardware gathers
; (two gather instructions per 16 lanes) instead of per-lane loads (a load and an insert per lane and
; field, and the extraction of the 16 pointers): code size, at the same speed (nbody W16). The loads
; inside the loop are uniform. (The two loads also get dynamic variants; this is their per-lane path.) Fails with -Dpacketizer.gatherOutsideLoops=false (per-lane loads).
; RUN: packetize -f f -w 16 --params uv --target-cpu=znver4 --remarks
; CHECK-LABEL: define <16 x float> @f_simd16(ptr %p, <16 x i32> %i)
; CHECK:       {{[\w.]+}}.lanes:
; CHECK-NOT:   extractelement
; CHECK:       call <16 x float> @llvm.masked.gather.v16f32.v16p0(<16 x ptr>
; CHECK-NOT:   extractelement
; CHECK:       call <16 x float> @llvm.masked.gather.v16f32.v16p0(<16 x ptr>
; CHECK-NOT:   extractelement
; CHECK:       for.body:
; SHAPES:      load from varying addresses became a gather{{.*}}: the target has fast hardware gathers, and this block runs once per call outside the function's loops
%struct.B = type { float, float, float, float }

define float @f(ptr %p, i32 %i) {
entry:
  %idx = sext i32 %i to i64
  %pi = getelementptr inbounds %struct.B, ptr %p, i64 %idx
  %py = getelementptr inbounds i8, ptr %pi, i64 4
  %y = load float, ptr %py, align 4
  %pz = getelementptr inbounds i8, ptr %pi, i64 8
  %z = load float, ptr %pz, align 4
  br label %for.body

for.body:
  %j = phi i64 [ 0, %entry ], [ %j.next, %for.body ]
  %acc = phi float [ 0.0, %entry ], [ %acc.next, %for.body ]
  %pj = getelementptr inbounds %struct.B, ptr %p, i64 %j
  %pjm = getelementptr inbounds i8, ptr %pj, i64 12
  %m = load float, ptr %pjm, align 4
  %d = fsub float %m, %y
  %e = fmul float %d, %z
  %acc.next = fadd float %acc, %e
  %j.next = add nuw nsw i64 %j, 1
  %done = icmp eq i64 %j.next, 8
  br i1 %done, label %exit, label %for.body

exit:
  ret float %acc.next
}
