package org.packetizer.core.api;

/**
 * How a packet width S larger than the hardware width N is served (thesis 4.6). When S &lt;= N, or
 * the mode is DIRECT, the packet function is emitted at S as usual.
 */
public enum WrapperMode {
  /**
   * LOOP where the measurements of {@code WrapperBenchmark} show it is faster, DIRECT otherwise: LOOP
   * when S/N &gt;= 8 and the function has a loop whose trip count differs between lanes (a divergent
   * loop); DIRECT for everything else, and where LOOP cannot be built (a struct-of-arrays parameter
   * accessed at offsets that are not constants, a hardware width of 1). The default. See
   * {@code org.packetizer.core.wrapper.LoopWrapper#prefersLoop}.
   */
  AUTO,
  /**
   * Emit the N-wide packet function {@code <simd>.n<N>} (internal linkage) and the S-wide function
   * {@code <simd>} that calls it S/N times, each time on its N-lane slice of the arguments.
   */
  LOOP,
  /** Packetize straight at S; the backend splits the wide vectors into registers. */
  DIRECT
}
