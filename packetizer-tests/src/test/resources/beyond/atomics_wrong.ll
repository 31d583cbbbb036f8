; Hand-written wrong "packet functions" of @add (W=4) that the differential check must reject
; (AtomicsTest.checkerComparesOldValuesAndFinalMemory), and one right one it must accept.
define i32 @add(ptr %c, i32 %x) {
entry:
  %o = atomicrmw add ptr %c, i32 %x seq_cst, align 4
  ret i32 %o
}

declare i32 @llvm.vector.reduce.add.v4i32(<4 x i32>)

; right: per-lane atomics in lane order
define <4 x i32> @right(ptr %c, <4 x i32> %x) {
entry:
  %x0 = extractelement <4 x i32> %x, i64 0
  %x1 = extractelement <4 x i32> %x, i64 1
  %x2 = extractelement <4 x i32> %x, i64 2
  %x3 = extractelement <4 x i32> %x, i64 3
  %o0 = atomicrmw add ptr %c, i32 %x0 seq_cst, align 4
  %o1 = atomicrmw add ptr %c, i32 %x1 seq_cst, align 4
  %o2 = atomicrmw add ptr %c, i32 %x2 seq_cst, align 4
  %o3 = atomicrmw add ptr %c, i32 %x3 seq_cst, align 4
  %v0 = insertelement <4 x i32> poison, i32 %o0, i64 0
  %v1 = insertelement <4 x i32> %v0, i32 %o1, i64 1
  %v2 = insertelement <4 x i32> %v1, i32 %o2, i64 2
  %v3 = insertelement <4 x i32> %v2, i32 %o3, i64 3
  ret <4 x i32> %v3
}

; wrong old values: one combined atomic, every lane gets the initial value
define <4 x i32> @same_old(ptr %c, <4 x i32> %x) {
entry:
  %s = call i32 @llvm.vector.reduce.add.v4i32(<4 x i32> %x)
  %o = atomicrmw add ptr %c, i32 %s seq_cst, align 4
  %i = insertelement <4 x i32> poison, i32 %o, i64 0
  %v = shufflevector <4 x i32> %i, <4 x i32> poison, <4 x i32> zeroinitializer
  ret <4 x i32> %v
}

; wrong order: lanes in reverse order (the final counter is right, the old values are not)
define <4 x i32> @reversed(ptr %c, <4 x i32> %x) {
entry:
  %x0 = extractelement <4 x i32> %x, i64 0
  %x1 = extractelement <4 x i32> %x, i64 1
  %x2 = extractelement <4 x i32> %x, i64 2
  %x3 = extractelement <4 x i32> %x, i64 3
  %o3 = atomicrmw add ptr %c, i32 %x3 seq_cst, align 4
  %o2 = atomicrmw add ptr %c, i32 %x2 seq_cst, align 4
  %o1 = atomicrmw add ptr %c, i32 %x1 seq_cst, align 4
  %o0 = atomicrmw add ptr %c, i32 %x0 seq_cst, align 4
  %v0 = insertelement <4 x i32> poison, i32 %o0, i64 0
  %v1 = insertelement <4 x i32> %v0, i32 %o1, i64 1
  %v2 = insertelement <4 x i32> %v1, i32 %o2, i64 2
  %v3 = insertelement <4 x i32> %v2, i32 %o3, i64 3
  ret <4 x i32> %v3
}

; wrong final value: the right old values, but lane 3's add is lost (a plain load+store race)
define <4 x i32> @lost_update(ptr %c, <4 x i32> %x) {
entry:
  %x0 = extractelement <4 x i32> %x, i64 0
  %x1 = extractelement <4 x i32> %x, i64 1
  %x2 = extractelement <4 x i32> %x, i64 2
  %o0 = atomicrmw add ptr %c, i32 %x0 seq_cst, align 4
  %o1 = atomicrmw add ptr %c, i32 %x1 seq_cst, align 4
  %o2 = atomicrmw add ptr %c, i32 %x2 seq_cst, align 4
  %o3 = load i32, ptr %c, align 4
  %v0 = insertelement <4 x i32> poison, i32 %o0, i64 0
  %v1 = insertelement <4 x i32> %v0, i32 %o1, i64 1
  %v2 = insertelement <4 x i32> %v1, i32 %o2, i64 2
  %v3 = insertelement <4 x i32> %v2, i32 %o3, i64 3
  ret <4 x i32> %v3
}
