; A table lookup: with --params uv the table is shared and the index varies per lane, so the load
; becomes a gather (--memory gather) or W guarded scalar loads (--memory cascade).
define float @lookup(ptr %table, i32 %i) {
entry:
  %idx = and i32 %i, 15
  %p = getelementptr inbounds float, ptr %table, i32 %idx
  %v = load float, ptr %p, align 4
  ret float %v
}
