/**
 * Whole-function vectorization of LLVM IR: the driver {@link org.packetizer.core.Packetizer}, the
 * value types of its API ({@code org.packetizer.core.api}) and the LLVM facade
 * ({@code org.packetizer.core.ir}). The phases (legality, prepare, mask, linearize, widen, mapping,
 * wrapper, pipeline, adapt) are internal and not exported (three of them only to the project's tools).
 */
@SuppressWarnings("module")
module org.packetizer.core {
  requires transitive org.packetizer.analysis;
  requires transitive org.bytedeco.llvm;
  requires transitive org.bytedeco.javacpp;

  exports org.packetizer.core;
  exports org.packetizer.core.api;
  exports org.packetizer.core.ir;
  // for the project's own tools, not for users: the checker compares composite packets and vector
  // math; the command line reports the hardware width, publishes vector-function-ABI names and
  // writes array drivers' C headers (these modules are built after this one, hence the annotation)
  exports org.packetizer.core.widen to org.packetizer.testkit;
  exports org.packetizer.core.mapping to org.packetizer.jit, org.packetizer.testkit, org.packetizer.bench, org.packetizer.cli;
  exports org.packetizer.core.wrapper to org.packetizer.cli;
  exports org.packetizer.core.driver to org.packetizer.cli, org.packetizer.bench;
}
