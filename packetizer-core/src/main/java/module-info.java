/**
 * Whole-function vectorization of LLVM IR: the driver {@link org.packetizer.core.Packetizer}, the
 * value types of its API ({@code org.packetizer.core.api}) and the LLVM facade
 * ({@code org.packetizer.core.ir}). The phases (prepare, mask, linearize, widen, mapping, wrapper,
 * pipeline, adapt) are internal and not exported.
 */
module org.packetizer.core {
  requires transitive org.packetizer.analysis;
  requires transitive org.bytedeco.llvm;
  requires transitive org.bytedeco.javacpp;

  exports org.packetizer.core;
  exports org.packetizer.core.api;
  exports org.packetizer.core.ir;
}
