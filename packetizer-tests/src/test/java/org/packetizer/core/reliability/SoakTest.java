package org.packetizer.core.reliability;

import static org.junit.jupiter.api.Assertions.*;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Memory stays flat when packetizing, JIT-compiling and calling in a loop, with a fresh context each
 * time (see {@link Soak} for the workload).
 *
 * <p>The CI version runs a fixed number of iterations in a child JVM of its own (so nothing other
 * tests left behind is measured, and Native Memory Tracking can be on) and judges median (Theil–Sen)
 * slopes after warm-up, not single samples: a least-squares slope let one transient burst of
 * non-JVM malloc (16 MB at one sample, gone at the next) read as 16 kB per iteration and fail the gate
 * on an idle machine, where a steady leak moves the median as much as the least-squares fit. What it judges is the live malloc'd memory that is not the JVM's own
 * ({@link Soak.Sample#nativeKb()}): glibc's total minus what NMT says the JVM malloc'd. The total
 * alone swings by 20 MB from one sample to the next while the JVM's compiler threads come and go
 * (that swing, read through two samples' minima, failed this gate at random); LLVM's share does not.
 * {@link #seesAnInjectedLeak()} shows the gate is not blind: a deliberate leak of 64 kB per iteration
 * (less than one kernel's module) fails it. The long run and its figures: {@code bin/soak}.
 */
class SoakTest {
  static final int ITERATIONS = Integer.getInteger("packetizer.soak.iterations", 150);
  static final int EVERY = 5;
  /** Largest slope of the non-JVM malloc'd memory after warm-up, kB per iteration. */
  static final double NATIVE_SLOPE_KB = 16;
  /**
   * Largest slope of resident memory (after malloc_trim) less what the JVM has committed, after
   * warm-up, kB per iteration: a backstop for memory neither malloc'd nor mapped anew (measured: about
   * 40, as more of libLLVM's code is paged in; the JVM's own growth, 300 kB per iteration early on, is
   * taken out).
   */
  static final double RSS_SLOPE_KB = 512;

  /** Runs {@code Soak --protocol} in a child JVM and returns its samples. */
  static List<Soak.Sample> child(int iterations, int every, int leakKb) throws IOException, InterruptedException {
    String java = ProcessHandle.current().info().command().orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    String cp = System.getProperty("surefire.test.class.path");
    if (cp == null || cp.isBlank()) cp = System.getProperty("java.class.path");
    List<String> cmd = new ArrayList<>(List.of(java, "--enable-native-access=ALL-UNNAMED", "-Xss8m", "-XX:NativeMemoryTracking=summary",
        "-Dorg.bytedeco.javacpp.maxPhysicalBytes=0", "-cp", cp, Soak.class.getName(), Integer.toString(iterations),
        Integer.toString(every), "--protocol"));
    if (leakKb > 0) cmd.addAll(List.of("--leak-kb", Integer.toString(leakKb)));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    List<Soak.Sample> ss = new ArrayList<>();
    StringBuilder out = new StringBuilder();
    try (var r = p.inputReader(StandardCharsets.UTF_8)) {
      for (String line; (line = r.readLine()) != null; ) {
        if (line.startsWith("soak-sample ")) {
          ss.add(Soak.Sample.parse(line));
        } else {
          System.out.println(line);
          out.append(line).append('\n');
        }
      }
    }
    if (!p.waitFor(20, TimeUnit.MINUTES)) p.destroyForcibly();
    assertEquals(0, p.exitValue(), () -> "the soak's JVM failed:\n" + out);
    assertEquals(iterations / every, ss.size(), () -> "samples missing:\n" + out);
    assertTrue(ss.getFirst().nativeKb() >= 0, "no Native Memory Tracking or mallinfo2 in the child JVM");
    return ss;
  }

  @Test
  void memoryStaysFlat() throws Exception {
    List<Soak.Sample> ss = child(ITERATIONS, EVERY, 0);
    List<Soak.Sample> after = Soak.afterWarmup(ss);
    double nativeSlope = Soak.medianSlope(after, Soak.Sample::nativeKb);
    double rssSlope = Soak.medianSlope(after, x -> x.rssTrimmedKb() - x.jvmCommittedKb());
    int third = ss.size() / 3;
    long mapGrowth = min(ss.subList(2 * third, ss.size()), Soak.Sample::mappings) - min(ss.subList(third, 2 * third), Soak.Sample::mappings);
    System.out.printf(Locale.ROOT, "soak: %d iterations; median (Theil–Sen) slopes after warm-up (iterations %d..%d): malloc'd but not by the JVM %+.2f kB"
        + " (limit %.0f), trimmed RSS less the JVM's committed memory %+.2f kB (limit %.0f) per iteration; all malloc'd %+.2f kB per iteration; mappings %+d%n",
        ss.getLast().iteration(), after.getFirst().iteration(), ss.getLast().iteration(), nativeSlope, NATIVE_SLOPE_KB, rssSlope,
        RSS_SLOPE_KB, Soak.slope(after, Soak.Sample::mallocKb), mapGrowth);
    // a leak of a module, context or JIT per iteration is hundreds of kB to MBs per iteration
    assertTrue(nativeSlope < NATIVE_SLOPE_KB, () -> String.format(Locale.ROOT,
        "memory malloc'd outside the JVM grows by %.1f kB per iteration after warm-up", nativeSlope));
    assertTrue(rssSlope < RSS_SLOPE_KB, () -> String.format(Locale.ROOT,
        "resident memory not committed by the JVM grows by %.1f kB per iteration after warm-up", rssSlope));
    assertTrue(mapGrowth < 32, () -> "memory mappings grew by " + mapGrowth);
  }

  /** The same measurement with a deliberate 64 kB leak per iteration must fail the gate. */
  @Test
  void seesAnInjectedLeak() throws Exception {
    List<Soak.Sample> ss = child(60, EVERY, 64);
    double nativeSlope = Soak.medianSlope(Soak.afterWarmup(ss), Soak.Sample::nativeKb);
    System.out.printf(Locale.ROOT, "soak: with a 64 kB leak per iteration: malloc'd but not by the JVM %+.2f kB per iteration%n", nativeSlope);
    assertTrue(nativeSlope > NATIVE_SLOPE_KB, () -> String.format(Locale.ROOT, "a 64 kB/iteration leak measured as %.1f kB/iteration", nativeSlope));
  }

  static long min(List<Soak.Sample> ss, java.util.function.ToLongFunction<Soak.Sample> f) {
    return ss.stream().mapToLong(f).min().orElseThrow();
  }
}
