package org.packetizer.core.bench;

import com.fasterxml.jackson.annotation.JsonIgnore;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.packetizer.core.api.PacketizerOptions;

/**
 * What to measure and how.
 *
 * @param kernels        manifest names; empty: every family "kernel" entry plus {@link #DEFAULT_THESIS}
 * @param targets        widths and ISAs; targets the host cannot run are skipped with a note
 * @param elements       elements per run N; 0: automatic (2^16, reduced down to 2^14 for kernels whose
 *                       scalar loop takes longer than {@code runMillis})
 * @param runMillis      automatic N: the scalar run time aimed at
 * @param warmup         untimed runs of each loop before timing
 * @param reps           timed runs of each loop (interleaved); medians are reported
 * @param seed           input seed
 * @param isolate        run each kernel in a child JVM (a crash or hang in generated code costs one
 *                       kernel, not the whole run)
 * @param timeoutSeconds per kernel (isolated) or per loop run (in-process, where a hang halts the JVM)
 * @param vectorMath     the packetizer's vector math; LIBMVEC also gives the peer {@code -fveclib=libmvec}
 * @param dumpDir        when not null: write the C drivers and the IR of all three loops there
 * @param quick          quick mode (recorded in the report)
 * @param interleave     the packet loop's interleave count: 0 automatic (the array drivers' rule,
 *                       {@code org.packetizer.core.driver.Interleave}), 1 off, 2 or 4 forced
 * @param coherent       order the elements along a Z-order curve of their first two varying inputs
 *                       (neighbouring lanes get neighbouring inputs, as pixels of an image tile do);
 *                       false: independent random inputs, the worst case for divergent kernels
 */
public record BenchOptions(
    List<String> kernels,
    List<BenchTarget> targets,
    int elements,
    int runMillis,
    int warmup,
    int reps,
    long seed,
    boolean isolate,
    int timeoutSeconds,
    PacketizerOptions.VectorMath vectorMath,
    String dumpDir,
    boolean quick,
    boolean coherent,
    int interleave) {

  /** Thesis kernels benchmarked besides family "kernel" by default. */
  public static final List<String> DEFAULT_THESIS = List.of("fig23", "fig47", "fig411", "fig414");

  /** Kernels of the quick mode: divergent branches with a returned value, and a divergent store into a struct-of-arrays object. */
  public static final List<String> QUICK_KERNELS = List.of("checker", "fig417");

  public static final int MAX_AUTO_ELEMENTS = 1 << 16;
  public static final int MIN_AUTO_ELEMENTS = 1 << 14;

  public BenchOptions {
    kernels = List.copyOf(kernels);
    targets = List.copyOf(targets);
    Objects.requireNonNull(vectorMath);
    if (elements < 0) throw new IllegalArgumentException("elements must be >= 0");
    if (reps < 1) throw new IllegalArgumentException("reps must be >= 1");
    if (interleave != 0 && interleave != 1 && interleave != 2 && interleave != 4) {
      throw new IllegalArgumentException("interleave must be 0 (auto), 1, 2 or 4, not " + interleave);
    }
    if (warmup < 0) throw new IllegalArgumentException("warmup must be >= 0");
    if (targets.isEmpty()) throw new IllegalArgumentException("no targets");
    int maxW = targets.stream().mapToInt(BenchTarget::width).max().orElse(1);
    if (elements > 0 && elements % maxW != 0) {
      throw new IllegalArgumentException("elements (" + elements + ") must be a multiple of every width (" + maxW + ")");
    }
  }

  /** The full benchmark: default kernels and targets, automatic N, 2 warm-up runs, 11 repetitions. */
  public static BenchOptions defaults() {
    return new BenchOptions(List.of(), BenchTarget.defaults(), 0, 40, 2, 11, 1, true, 600,
        PacketizerOptions.VectorMath.INTRINSICS, null, false, false, 0);
  }

  /** Quick mode for CI: {@link #QUICK_KERNELS}, N = 1024, one warm-up run, 3 repetitions. */
  public static BenchOptions quickDefaults() {
    return new BenchOptions(QUICK_KERNELS, BenchTarget.defaults(), 1024, 40, 1, 3, 1, true, 300,
        PacketizerOptions.VectorMath.INTRINSICS, null, true, false, 0);
  }

  @JsonIgnore
  public BenchOptions withInterleave(int ic) {
    return new BenchOptions(kernels, targets, elements, runMillis, warmup, reps, seed, isolate, timeoutSeconds, vectorMath, dumpDir, quick,
        coherent, ic);
  }

  @JsonIgnore
  public BenchOptions withKernels(List<String> k) {
    return new BenchOptions(k, targets, elements, runMillis, warmup, reps, seed, isolate, timeoutSeconds, vectorMath, dumpDir, quick, coherent, interleave);
  }

  @JsonIgnore
  public BenchOptions withTargets(List<BenchTarget> t) {
    return new BenchOptions(kernels, t, elements, runMillis, warmup, reps, seed, isolate, timeoutSeconds, vectorMath, dumpDir, quick, coherent, interleave);
  }

  @JsonIgnore
  public BenchOptions withElements(int n) {
    return new BenchOptions(kernels, targets, n, runMillis, warmup, reps, seed, isolate, timeoutSeconds, vectorMath, dumpDir, quick, coherent, interleave);
  }

  @JsonIgnore
  public BenchOptions withRuns(int warmupRuns, int timedRuns) {
    return new BenchOptions(kernels, targets, elements, runMillis, warmupRuns, timedRuns, seed, isolate, timeoutSeconds, vectorMath,
        dumpDir, quick, coherent, interleave);
  }

  @JsonIgnore
  public BenchOptions withSeed(long s) {
    return new BenchOptions(kernels, targets, elements, runMillis, warmup, reps, s, isolate, timeoutSeconds, vectorMath, dumpDir, quick, coherent, interleave);
  }

  @JsonIgnore
  public BenchOptions withIsolate(boolean i) {
    return new BenchOptions(kernels, targets, elements, runMillis, warmup, reps, seed, i, timeoutSeconds, vectorMath, dumpDir, quick, coherent, interleave);
  }

  @JsonIgnore
  public BenchOptions withTimeoutSeconds(int t) {
    return new BenchOptions(kernels, targets, elements, runMillis, warmup, reps, seed, isolate, t, vectorMath, dumpDir, quick, coherent, interleave);
  }

  @JsonIgnore
  public BenchOptions withVectorMath(PacketizerOptions.VectorMath v) {
    return new BenchOptions(kernels, targets, elements, runMillis, warmup, reps, seed, isolate, timeoutSeconds, v, dumpDir, quick, coherent, interleave);
  }

  @JsonIgnore
  public BenchOptions withDumpDir(String d) {
    return new BenchOptions(kernels, targets, elements, runMillis, warmup, reps, seed, isolate, timeoutSeconds, vectorMath, d, quick, coherent, interleave);
  }

  @JsonIgnore
  public BenchOptions withCoherent(boolean c) {
    return new BenchOptions(kernels, targets, elements, runMillis, warmup, reps, seed, isolate, timeoutSeconds, vectorMath, dumpDir, quick, c, interleave);
  }

  /** The kernel names to run, resolving the empty default against the manifest. */
  public List<String> resolveKernels(org.packetizer.core.toolchain.Manifest m) {
    if (!kernels.isEmpty()) {
      for (String k : kernels) m.require(k);
      return kernels;
    }
    List<String> out = new ArrayList<>();
    for (var e : m.family("kernel")) out.add(e.name());
    for (String t : DEFAULT_THESIS) if (m.entry(t).isPresent()) out.add(t);
    return out;
  }
}
