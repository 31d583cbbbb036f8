package org.packetizer.cli;

/**
 * The one place that knows which command-line options the core API can take. {@code
 * --hardware-width} maps to PacketizerOptions.hardwareWidth with the LOOP wrapper (thesis 4.6). ({@code --target-cpu} and {@code --target-features} are applied by the command itself: they
 * become the packet function's {@code target-cpu} / {@code target-features} attributes and the JIT
 * target of {@code --check}.)
 */
final class OptionsBridge {
  private OptionsBridge() {}

  static boolean supportsHardwareWidth() { return true; }
}
