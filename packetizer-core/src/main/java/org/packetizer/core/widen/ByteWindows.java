package org.packetizer.core.widen;

/**
 * The byte windows' knob and size (the packet loop's route for byte loads whose address advances by one
 * per iteration, {@code MemoryWidener.byteWindow}), public for the refill driver's iteration budget,
 * which keeps a loop inside the refill iteration where they apply.
 */
public final class ByteWindows {
  private ByteWindows() {}

  /**
   * Whether a byte load whose address advances by one byte per iteration of its loop reads a window
   * of 8 bytes per lane once every 8 iterations ({@code MemoryWidener.byteWindow}) at packet width {@code w}:
   * {@code -Dpacketizer.byteWindows=auto} (the default) from {@link #MIN_WIDTH} lanes,
   * {@code true} at every width, {@code false} never. Measured on strhash (docs/performance.md): W16
   * 1.36x -> 2.01x (random inputs) and 1.64x -> 2.44x (coherent) over scalar, where the per-lane loads'
   * 16 lane addresses do not fit the general registers and spill; W8/AVX2, with the constant shift and
   * the lane order of {@code MemoryWidener.windowOrder}, 1.57x -> 1.98x (random, medians under load) and 1.92x ->
   * 2.48x (coherent); W4/SSE4.2 no faster (1.16x both). Read at each use, so that a test can set it.
   */
  public static boolean on(int w) {
    String v = System.getProperty("packetizer.byteWindows", "auto");
    return switch (v) {
      case "false" -> false;
      case "true" -> true;
      default -> w >= MIN_WIDTH;
    };
  }

  /** The packet width from which {@link #on} is on by default. */
  public static final int MIN_WIDTH = 8;

  /** Bytes per window of {@code MemoryWidener.byteWindow}: one unaligned 8-byte load per lane. */
  public static final int BYTES = 8;
}
