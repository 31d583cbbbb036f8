; --array-driver refuses a struct-of-arrays pointer parameter clearly (its packet layout is what a
; driver would hide), naming the function and the parameter; nothing is written.
; RUN: not packetize -f f -w 8 --params s --array-driver
; SHAPES: error: in function @f: the array driver cannot map over the struct-of-arrays pointer parameter %p (#0)
define void @f(ptr %p) {
entry:
  %v = load float, ptr %p
  %d = fmul float %v, 2.0
  store float %d, ptr %p
  ret void
}
