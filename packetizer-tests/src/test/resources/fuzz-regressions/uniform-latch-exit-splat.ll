; packetizer fuzz regression
; found: reduced by hand from FuzzMain --mode o1 --seed 6000 --first 407 --cases 1
; function: f
; kinds: vu
; expect: pass
; bug: a divergent loop (its header exits on varying %c) whose latch exits on a uniform condition (%d)
;   keeps that exit as a real branch into two packet blocks, leave and stay. The uniform %s defined in
;   the latch is needed as a vector on both: by the exit's blend (emitted first, in leave) and by the
;   header phi's back edge (in stay). The splat made in leave was cached for the whole scalar block and
;   reused in stay, which leave does not dominate: INTERNAL "Instruction does not dominate all uses".
;   Each arm now starts from the caches of the block that dominates both.
define float @f(float %x, i32 %u) {
entry:
  br label %h

h:
  %v = phi float [ %x, %entry ], [ %s, %latch ]
  %i = phi i32 [ 0, %entry ], [ %i1, %latch ]
  %c = fcmp oge float %v, -13.75
  br i1 %c, label %latch, label %exit

latch:
  %i1 = add i32 %i, 1
  %uf = sitofp i32 %u to float
  %fi = sitofp i32 %i1 to float
  %s = fadd float %uf, %fi
  %d = icmp eq i32 %i1, 4
  br i1 %d, label %exit, label %h

exit:
  %r = phi float [ %v, %h ], [ %s, %latch ]
  ret float %r
}
