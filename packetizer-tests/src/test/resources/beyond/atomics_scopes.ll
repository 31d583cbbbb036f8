; Atomics with non-default orderings and a sync scope (AtomicsTest.orderingsAndSyncScopesAreKept):
; every packet atomic must carry the scalar one's ordering(s), syncscope, weakness and volatility.
; Each atomic instruction has a location of its own (p[0], p[1], p[2], v[0]). Packetize with kinds uuv.
define i32 @scoped(ptr %p, ptr %v, i32 %x) {
entry:
  %a = atomicrmw add ptr %p, i32 %x syncscope("singlethread") acquire, align 4
  %q = getelementptr inbounds i32, ptr %p, i64 1
  %b = atomicrmw xchg ptr %q, i32 %a syncscope("singlethread") release, align 4
  %p2 = getelementptr inbounds i32, ptr %p, i64 2
  %c = cmpxchg weak ptr %p2, i32 %b, i32 %x syncscope("singlethread") acq_rel monotonic, align 4
  %c0 = extractvalue { i32, i1 } %c, 0
  %c1 = extractvalue { i32, i1 } %c, 1
  fence syncscope("singlethread") acq_rel
  %d = atomicrmw volatile add ptr %v, i32 1 syncscope("singlethread") seq_cst, align 4
  %s = select i1 %c1, i32 %c0, i32 %d
  %r = add i32 %s, %b
  ret i32 %r
}
