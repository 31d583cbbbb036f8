package org.packetizer.core.reliability;

import static org.junit.jupiter.api.Assertions.*;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The soak gate's slope: a transient burst must not read as a leak, a steady leak must. The burst is
 * the shape that failed {@code SoakTest.memoryStaysFlat} once on an idle machine (non-JVM malloc'd
 * memory flat at about 4 MB, 16 MB more at one sample of twenty, back at the next).
 */
class SoakSlopeTest {
  static List<Soak.Sample> samples(java.util.function.IntToLongFunction kbAt) {
    List<Soak.Sample> ss = new ArrayList<>();
    for (int it = 55; it <= 150; it += 5) ss.add(new Soak.Sample(it, 0, 0, 0, kbAt.applyAsLong(it), 0, 0, 0, 0));
    return ss;
  }

  @Test
  void aTransientBurstIsNotALeak() {
    List<Soak.Sample> ss = samples(it -> 4_000 + (it == 140 ? 16_000 : 0) + (it % 10 == 0 ? 3 : 0));
    double leastSquares = Soak.slope(ss, Soak.Sample::mallocKb);
    double median = Soak.medianSlope(ss, Soak.Sample::mallocKb);
    assertTrue(leastSquares > SoakTest.NATIVE_SLOPE_KB, () -> "the burst's least-squares slope: " + leastSquares);
    assertTrue(Math.abs(median) < 1, () -> "median slope of a flat series with one burst: " + median);
  }

  @Test
  void aSteadyLeakIsSeenEvenWithABurst() {
    List<Soak.Sample> ss = samples(it -> 4_000 + 64L * it + (it == 115 ? 16_000 : 0));
    assertEquals(64, Soak.medianSlope(ss, Soak.Sample::mallocKb), 1e-9);
  }
}
