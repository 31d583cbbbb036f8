/**
 * Running packet functions from Java: an ORC LLJIT over a packetized module and calls through
 * {@code java.lang.foreign} ({@link org.packetizer.core.jit.Jit}, {@link org.packetizer.core.jit.JitFunction}).
 */
module org.packetizer.jit {
  requires transitive org.packetizer.core;

  exports org.packetizer.core.jit;
}
