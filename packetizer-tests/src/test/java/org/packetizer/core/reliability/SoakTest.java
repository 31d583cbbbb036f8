package org.packetizer.core.reliability;

import static org.junit.jupiter.api.Assertions.*;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.function.ToLongFunction;
import org.junit.jupiter.api.Test;

/**
 * Memory stays flat when packetizing, JIT-compiling and calling in a loop in one JVM, with a fresh
 * context each time (see {@link Soak} for the workload). The CI version runs about 30 seconds
 * ({@code -Dpacketizer.soak.seconds=N} to change) and compares the last third of the samples with the
 * middle third (the first third is warm-up: class loading, the JVM's compilers, allocator pools). It
 * compares minima, because garbage collection and the JVM's compiler threads add transient spikes
 * while a leak lifts the floor. The long run and its figures: {@code Soak.main}.
 */
class SoakTest {
  static final int SECONDS = Integer.getInteger("packetizer.soak.seconds", 30);

  static long min(List<Soak.Sample> ss, ToLongFunction<Soak.Sample> f) {
    return ss.stream().mapToLong(f).min().orElseThrow();
  }

  @Test
  void memoryStaysFlat() {
    List<Soak.Sample> ss = Soak.run(Duration.ofSeconds(SECONDS), 100_000, 5, System.out);
    assertTrue(ss.size() >= 6, () -> "too few samples in " + SECONDS + " s: " + ss.size());
    int third = ss.size() / 3;
    List<Soak.Sample> middle = ss.subList(third, 2 * third);
    List<Soak.Sample> last = ss.subList(2 * third, ss.size());
    int iterations = last.getLast().iteration() - middle.getFirst().iteration();
    long rssGrowth = min(last, Soak.Sample::rssTrimmedKb) - min(middle, Soak.Sample::rssTrimmedKb);
    long mallocGrowth = min(last, Soak.Sample::mallocKb) - min(middle, Soak.Sample::mallocKb);
    int mapGrowth = (int) (min(last, Soak.Sample::mappings) - min(middle, Soak.Sample::mappings));
    System.out.printf(Locale.ROOT, "soak: %d iterations in %.0f s; after warm-up (iterations %d..%d): RSS floor %+.1f MB,"
        + " malloc'd floor %+.1f MB, mappings %+d%n", ss.getLast().iteration(), ss.getLast().seconds(),
        middle.getFirst().iteration(), ss.getLast().iteration(), rssGrowth / 1024.0, mallocGrowth / 1024.0, mapGrowth);
    // generous: a leak of the size of a module, context or JIT per iteration would exceed these
    assertTrue(rssGrowth < 48 * 1024, () -> "resident memory grew by " + rssGrowth / 1024 + " MB over " + iterations + " iterations");
    assertTrue(mallocGrowth < 16 * 1024, () -> "live malloc'd memory grew by " + mallocGrowth / 1024 + " MB over " + iterations + " iterations");
    assertTrue(mapGrowth < 32, () -> "memory mappings grew by " + mapGrowth + " over " + iterations + " iterations");
  }
}
