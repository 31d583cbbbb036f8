package org.packetizer.cli;

/**
 * The one place that knows which command-line options the core API can take yet. {@code
 * --hardware-width} needs the N-wide function plus W-wide wrapper of DESIGN 3.8, which lands in
 * {@code PacketizerOptions} separately; until then the command validates it and says it is not
 * applied (when it lands: pass it here, return true, and drop the note in --hardware-width's help). ({@code --target-cpu} and {@code --target-features} are applied by the command itself: they
 * become the packet function's {@code target-cpu} / {@code target-features} attributes and the JIT
 * target of {@code --check}.)
 */
final class OptionsBridge {
  private OptionsBridge() {}

  static boolean supportsHardwareWidth() { return false; }
}
