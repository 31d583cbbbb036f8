package org.packetizer.core.api;

/** How memory accesses through arbitrary (non-consecutive) per-lane addresses are emitted. */
public enum MemoryStrategy {
  /** A vector of pointers with {@code llvm.masked.gather} / {@code llvm.masked.scatter}. */
  GATHER,
  /** The thesis' way (4.5.3, 4.5.4): W scalar accesses, each guarded by its lane's mask bit. */
  CASCADE
}
