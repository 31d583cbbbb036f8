; A byte of a caller's buffer (a uniform pointer of unknown alignment plus `i & 4095`) under a
; divergent branch, haswell W8: the word gather takes the base rounded down to 4 (llvm.ptrmask, which
; keeps the pointer's provenance) and adds the base's misalignment to the offsets; the buffer is not
; known to be readable beyond what the lanes read, so the gather is masked by the block's mask (the
; inactive lanes read nothing: no select of their offsets, no dummy slot).
; RUN: packetize -f f -w 8 --params uv --target-cpu=haswell --remarks
; CHECK-LABEL: define <8 x i32> @f_simd8(ptr %t, <8 x i32> %i)
; CHECK:       [[B:%[\w.]+]] = call {{.*}}ptr @llvm.ptrmask.p0.i64(ptr %t, i64 -4)
; CHECK:       [[M:%[\w.]+]] = sext <8 x i1> {{%[\w.]+}} to <8 x i32>
; CHECK:       call <8 x i32> @llvm.x86.avx2.gather.d.d.256(<8 x i32> zeroinitializer, ptr [[B]], <8 x i32> {{%[\w.]+}}, <8 x i32> [[M]], i8 1)
; CHECK:       lshr <8 x i32>
; CHECK-NOT:   load i8
; CHECK-NOT:   inactive.lane
; CHECK-NOT:   offs.active
; SHAPES:      became one gather of the aligned 4-byte words containing the 8 lanes' 1-byte elements
define i32 @f(ptr %t, i32 %i) {
entry:
  %in = icmp slt i32 %i, 3000
  br i1 %in, label %then, label %join
then:
  %m = and i32 %i, 4095
  %x = zext nneg i32 %m to i64
  %p = getelementptr inbounds i8, ptr %t, i64 %x
  %v = load i8, ptr %p, align 1
  %z = zext i8 %v to i32
  br label %join
join:
  %r = phi i32 [ %z, %then ], [ -1, %entry ]
  ret i32 %r
}
