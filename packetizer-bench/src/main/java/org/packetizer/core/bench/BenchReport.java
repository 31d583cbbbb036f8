package org.packetizer.core.bench;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The outcome of a benchmark run: per kernel and target the three loops' times, geometric means per
 * target over the family "kernel" entries, and the project's targets with the kernels that miss them.
 *
 * @param options   what was run
 * @param host      the machine
 * @param results   measured kernels (the packet loop agreed with the scalar loop after every run)
 * @param failures  kernels and targets not reported, and why
 * @param notes     remarks (skipped targets, ...)
 * @param scaling   packetization-time points, when the scaling study ran
 * @param seconds   wall time of the run
 */
public record BenchReport(BenchOptions options, Host host, List<KernelResult> results, List<KernelFailure> failures,
    List<String> notes, List<ScalingBench.Point> scaling, double seconds) {

  public BenchReport {
    results = List.copyOf(results);
    failures = List.copyOf(failures);
    notes = List.copyOf(notes);
    scaling = List.copyOf(scaling);
  }

  /**
   * The machine. {@code loadAverage} is the 1-minute load when the run ended (-1 if unknown);
   * {@code avx512Probe} is the {@link WidthProbe}'s measurement (null: the host has no AVX-512 or the
   * probe did not run), which decides the W16 goal.
   */
  @JsonPropertyOrder({"cpu", "cores", "java", "libmvec", "load_average", "avx512_probe"})
  public record Host(@JsonProperty("cpu") String cpu, @JsonProperty("cores") int cores, @JsonProperty("java") String java,
      @JsonProperty("libmvec") boolean libmvec, @JsonProperty("load_average") double loadAverage,
      @JsonProperty("avx512_probe") WidthProbe.Result avx512Probe) {
    public Host(String cpu, int cores, String java, boolean libmvec, double loadAverage) {
      this(cpu, cores, java, libmvec, loadAverage, null);
    }

    /** Whether the probe found a full-width AVX-512 datapath. */
    public boolean avx512FullWidth() { return avx512Probe != null && avx512Probe.fullWidth(); }
  }

  /**
   * The goals of issue 16: at W8 a geomean of 6x over scalar and every kernel 2x; at W16 1.25x the W8
   * geomean, or 10x over scalar where the {@link WidthProbe} measured a full-width AVX-512 datapath; at W8 1.5x the better of clang's auto-vectorizer and GCC's SIMD clones; no kernel slower
   * than scalar at any width; code growth (machine instructions, packet / scalar) at most 2.5x.
   * {@link #GOAL_W4} is the thesis' figure at SSE width 4, drawn in the chart only.
   */
  public static final double GOAL_W4 = 3.6, GOAL_W8 = 6.0, GOAL_EVERY_KERNEL_W8 = 2.0, GOAL_W16_OVER_W8 = 1.25, GOAL_W16_FULL_WIDTH = 10.0,
      GOAL_VS_PEER_W8 = 1.5, GOAL_NOT_SLOWER = 1.0, GOAL_CODE_GROWTH = 2.5;

  /** The targets the goals refer to. */
  public static final String T4 = "W4/SSE4.2", T8 = "W8/AVX2", T16 = "W16/AVX-512";

  /** The family whose entries count in the geometric means and goals. */
  public static final String MEASURED_FAMILY = "kernel";

  public BenchReport withScaling(List<ScalingBench.Point> points) {
    return new BenchReport(options, host, results, failures, notes, points, seconds);
  }

  // ---------------------------------------------------------------------------------------------
  // geometric means

  /**
   * Geometric means over the family "kernel" results of one target.
   *
   * @param kernels number of kernels measured at this target
   */
  @JsonPropertyOrder({"target", "width", "isa", "kernels", "speedup_vs_scalar", "speedup_vs_autovec", "autovec_speedup_vs_scalar",
      "code_growth", "max_code_growth", "machine_code_growth", "max_machine_code_growth", "gcc_kernels", "speedup_vs_gcc", "gcc_speedup_vs_scalar", "speedup_vs_best_peer"})
  public record Geomean(@JsonProperty("target") String target, @JsonProperty("width") int width, @JsonProperty("isa") String isa,
      @JsonProperty("kernels") int kernels, @JsonProperty("speedup_vs_scalar") double speedupVsScalar,
      @JsonProperty("speedup_vs_autovec") double speedupVsAutovec,
      @JsonProperty("autovec_speedup_vs_scalar") double autovecSpeedupVsScalar,
      @JsonProperty("code_growth") double codeGrowth, @JsonProperty("max_code_growth") double maxCodeGrowth,
      @JsonProperty("machine_code_growth") double machineCodeGrowth,
      @JsonProperty("max_machine_code_growth") double maxMachineCodeGrowth,
      @JsonProperty("gcc_kernels") int gccKernels, @JsonProperty("speedup_vs_gcc") double speedupVsGcc,
      @JsonProperty("gcc_speedup_vs_scalar") double gccSpeedupVsScalar,
      @JsonProperty("speedup_vs_best_peer") double speedupVsBestPeer) {}

  /** Target labels in the order they were run. */
  public List<String> targetLabels() {
    Set<String> out = new LinkedHashSet<>();
    for (BenchTarget t : options.targets()) out.add(t.label());
    for (KernelResult r : results) out.add(r.label());
    return List.copyOf(out);
  }

  /** Kernel names in the order they were run. */
  public List<String> kernelNames() {
    Set<String> out = new LinkedHashSet<>();
    for (KernelResult r : results) out.add(r.kernel());
    for (KernelFailure f : failures) out.add(f.kernel());
    return List.copyOf(out);
  }

  public List<Geomean> geomeans() {
    List<Geomean> out = new ArrayList<>();
    for (String label : targetLabels()) {
      List<KernelResult> rs = results.stream().filter(r -> r.label().equals(label) && r.family().equals(MEASURED_FAMILY)).toList();
      if (rs.isEmpty()) continue;
      KernelResult any = rs.get(0);
      List<KernelResult> gs = rs.stream().filter(KernelResult::hasGcc).toList();
      List<KernelResult> ms = rs.stream().filter(r -> !Double.isNaN(r.machineCodeGrowth())).toList();
      out.add(new Geomean(label, any.width(), any.isa(), rs.size(), geo(rs, KernelResult::speedupVsScalar),
          geo(rs, KernelResult::speedupVsAutovec), geo(rs, KernelResult::autovecSpeedupVsScalar), geo(rs, KernelResult::codeGrowth),
          rs.stream().mapToDouble(KernelResult::codeGrowth).max().orElse(0),
          ms.isEmpty() ? Double.NaN : geo(ms, KernelResult::machineCodeGrowth),
          ms.stream().mapToDouble(KernelResult::machineCodeGrowth).max().orElse(Double.NaN), gs.size(),
          gs.isEmpty() ? Double.NaN : geo(gs, KernelResult::speedupVsGcc),
          gs.isEmpty() ? Double.NaN : geo(gs, r -> r.scalarNsPerElem() / r.gccNsPerElem()),
          geo(rs, r -> Math.min(r.autovecNsPerElem(), r.hasGcc() ? r.gccNsPerElem() : Double.MAX_VALUE) / r.packetNsPerElem())));
    }
    return out;
  }

  /**
   * Geometric means of the array-driver columns over the family "kernel" results of one target that
   * have them (this run's input kind: {@code options.coherent()}).
   *
   * @param kernels               kernels with both drivers timed
   * @param driverSpeedupVsScalar the plain array driver over the scalar loop
   * @param autoSpeedupVsScalar   the {@code --refill=auto} driver over the scalar loop
   * @param driverVsPacketLoop    plain driver time / packet loop time (above 1: the driver is slower)
   * @param autoVsPlain           auto driver time / plain driver time (above 1: auto is slower)
   */
  @JsonPropertyOrder({"target", "kernels", "driver_speedup_vs_scalar", "auto_driver_speedup_vs_scalar", "driver_vs_packet_loop",
      "auto_vs_plain_driver"})
  public record DriverGeomean(@JsonProperty("target") String target, @JsonProperty("kernels") int kernels,
      @JsonProperty("driver_speedup_vs_scalar") double driverSpeedupVsScalar,
      @JsonProperty("auto_driver_speedup_vs_scalar") double autoSpeedupVsScalar,
      @JsonProperty("driver_vs_packet_loop") double driverVsPacketLoop, @JsonProperty("auto_vs_plain_driver") double autoVsPlain) {}

  public List<DriverGeomean> driverGeomeans() {
    List<DriverGeomean> out = new ArrayList<>();
    for (String label : targetLabels()) {
      List<KernelResult> rs = results.stream()
          .filter(r -> r.label().equals(label) && r.family().equals(MEASURED_FAMILY) && r.hasDrivers()).toList();
      if (rs.isEmpty()) continue;
      out.add(new DriverGeomean(label, rs.size(), geo(rs, KernelResult::driverSpeedupVsScalar), geo(rs, KernelResult::autoDriverSpeedupVsScalar),
          geo(rs, KernelResult::driverVsPacketLoop), geo(rs, KernelResult::autoVsPlainDriver)));
    }
    return out;
  }

  /**
   * Issue 17's "no kernel slower with refill chosen automatically than without", on this run: every
   * kernel and target (any family) whose auto driver took longer than its plain driver by more than
   * the run's noise ({@link KernelResult#driverNoise()}: the larger relative interquartile range of
   * the two drivers' timed runs, at least 1 %), with both figures.
   */
  public List<String> autoDriverMisses() {
    List<String> out = new ArrayList<>();
    for (KernelResult r : results) {
      if (!r.autoSlowerBeyondNoise()) continue;
      out.add(String.format(Locale.ROOT, "%s %s: auto %+.1f %% (%.2f vs %.2f ns/elem; noise %.1f %%; %s)", r.kernel(), r.label(),
          100 * (r.autoVsPlainDriver() - 1), r.autoDriverNsPerElem(), r.driverNsPerElem(), 100 * r.driverNoise(),
          r.autoDriverChoiceShort()));
    }
    return out;
  }

  /**
   * The smallest and largest auto/plain time ratio over the results whose two drivers are the same code
   * ({@link KernelResult#autoIsPlainDriver()}): the same driver timed twice in this run, i.e. the run's
   * noise and code placement; empty when there is no such result.
   */
  public Optional<double[]> sameCodeDriverBand() {
    double lo = Double.POSITIVE_INFINITY, hi = Double.NEGATIVE_INFINITY;
    for (KernelResult r : results) {
      if (!r.hasDrivers() || !r.autoIsPlainDriver()) continue;
      lo = Math.min(lo, r.autoVsPlainDriver());
      hi = Math.max(hi, r.autoVsPlainDriver());
    }
    return lo > hi ? Optional.empty() : Optional.of(new double[] {lo, hi});
  }

  public Optional<Geomean> geomean(String label) {
    return geomeans().stream().filter(g -> g.target().equals(label)).findFirst();
  }

  static double geo(List<KernelResult> rs, java.util.function.ToDoubleFunction<KernelResult> f) {
    double s = 0;
    for (KernelResult r : rs) s += Math.log(f.applyAsDouble(r));
    return Math.exp(s / rs.size());
  }

  public Optional<KernelResult> result(String kernel, String label) {
    return results.stream().filter(r -> r.kernel().equals(kernel) && r.label().equals(label)).findFirst();
  }

  /**
   * The W16 goal's figure (W16 speed-up over scalar / W8 speed-up over scalar, geomeans) split into
   * its two factors, over the kernels measured at both {@link #T8} and {@link #T16}: how much faster
   * the packet loop runs per element at W16 than at W8 (the width gain of the emitted code), and how
   * much faster the scalar loop runs, the same C compiled for the W16 target's CPU instead of the W8
   * one's. The ratio is {@code packetGain / scalarGain}. On a Zen 4 host the W16 scalar loop is
   * compiled for znver4 (AVX-512 mask registers give branch-free scalar selects) and the W8 one for
   * haswell, so a kernel can miss the W16 goal with a packet loop several times faster per element.
   *
   * @param kernels      kernels measured at both targets
   * @param packetGain   geomean of W8 packet ns per element / W16 packet ns per element
   * @param scalarGain   geomean of W8 scalar ns per element / W16 scalar ns per element
   * @param scalarMoved  kernels whose scalar loop is at least {@link #SCALAR_MOVED} times faster at W16,
   *                     with both factors ("noise3: scalar 4.30x, packet 2.35x")
   */
  public record WidthSplit(int kernels, double packetGain, double scalarGain, List<String> scalarMoved) {
    public double speedupRatio() { return packetGain / scalarGain; }
  }

  /** The scalar loop's W8/W16 time ratio from which {@link WidthSplit#scalarMoved} names a kernel. */
  public static final double SCALAR_MOVED = 1.25;

  /** The split of the W16 figure, where some kernel is measured at both W8 and W16. */
  public Optional<WidthSplit> widthSplit() {
    List<KernelResult[]> pairs = new ArrayList<>();
    for (String k : kernelNames()) {
      if (!familyOf(k).equals(MEASURED_FAMILY)) continue;
      Optional<KernelResult> a = result(k, T8), b = result(k, T16);
      if (a.isPresent() && b.isPresent()) pairs.add(new KernelResult[] {a.get(), b.get()});
    }
    if (pairs.isEmpty()) return Optional.empty();
    double lp = 0, ls = 0;
    List<String> moved = new ArrayList<>();
    for (KernelResult[] pr : pairs) {
      double packet = pr[0].packetNsPerElem() / pr[1].packetNsPerElem(), scalar = pr[0].scalarNsPerElem() / pr[1].scalarNsPerElem();
      lp += Math.log(packet);
      ls += Math.log(scalar);
      if (scalar >= SCALAR_MOVED) moved.add(pr[0].kernel() + ": scalar " + fmt(scalar) + "x, packet " + fmt(packet) + "x");
    }
    return Optional.of(new WidthSplit(pairs.size(), Math.exp(lp / pairs.size()), Math.exp(ls / pairs.size()), moved));
  }

  // ---------------------------------------------------------------------------------------------
  // goals

  /**
   * One goal: the geometric-mean figure against its goal, and the kernels missing it individually
   * (or not measured).
   */
  @JsonPropertyOrder({"goal", "required", "actual", "met", "misses"})
  public record Goal(@JsonProperty("goal") String goal, @JsonProperty("required") double required,
      @JsonProperty("actual") Double actual, @JsonProperty("met") boolean met, @JsonProperty("misses") List<String> misses) {}

  public List<Goal> goals() {
    List<Goal> out = new ArrayList<>();
    List<String> kernels = kernelNames().stream().filter(k -> familyOf(k).equals(MEASURED_FAMILY)).toList();
    List<KernelResult> measured = results.stream().filter(r -> r.family().equals(MEASURED_FAMILY)).toList();
    Optional<Geomean> g8 = geomean(T8), g16 = geomean(T16);
    out.add(goal("geomean speedup vs scalar at " + T8 + " >= " + fmt(GOAL_W8) + " (kernels below listed)", GOAL_W8,
        g8.map(Geomean::speedupVsScalar), kernels, k -> below(result(k, T8), KernelResult::speedupVsScalar, GOAL_W8)));
    double min8 = kernels.stream().map(k -> result(k, T8)).mapToDouble(r -> r.map(KernelResult::speedupVsScalar).orElse(0.0)).min()
        .orElse(Double.NaN);
    out.add(goal("every kernel's speedup vs scalar at " + T8 + " >= " + fmt(GOAL_EVERY_KERNEL_W8) + " (min shown)", GOAL_EVERY_KERNEL_W8,
        g8.isEmpty() || Double.isNaN(min8) ? Optional.empty() : Optional.of(min8), kernels,
        k -> below(result(k, T8), KernelResult::speedupVsScalar, GOAL_EVERY_KERNEL_W8)));
    if (host.avx512FullWidth()) {
      // a full-width AVX-512 datapath (measured): 16 lanes at the rate of 8, so the goal is absolute
      out.add(goal("geomean speedup vs scalar at " + T16 + " >= " + fmt(GOAL_W16_FULL_WIDTH) + " (AVX-512 full width: probe "
          + fmt(host.avx512Probe().ratio()) + "x" + ("override".equals(host.avx512Probe().source()) ? ", overridden" : "") + "; kernels below listed)",
          GOAL_W16_FULL_WIDTH, g16.map(Geomean::speedupVsScalar), kernels,
          k -> below(result(k, T16), KernelResult::speedupVsScalar, GOAL_W16_FULL_WIDTH)));
    } else {
      Optional<Double> ratio16 = g16.isPresent() && g8.isPresent()
          ? Optional.of(g16.get().speedupVsScalar() / g8.get().speedupVsScalar()) : Optional.empty();
      String why = host.avx512Probe() == null ? "" : " (AVX-512 not full width: probe " + fmt(host.avx512Probe().ratio()) + "x)";
      out.add(goal("geomean speedup at " + T16 + " >= " + fmt(GOAL_W16_OVER_W8) + " x the " + T8 + " figure" + why, GOAL_W16_OVER_W8, ratio16,
          kernels, k -> {
            Optional<KernelResult> a = result(k, T16), b = result(k, T8);
            if (a.isEmpty() || b.isEmpty()) return "not measured";
            double q = a.get().speedupVsScalar() / b.get().speedupVsScalar();
            return q >= GOAL_W16_OVER_W8 ? null : fmt(q) + " (" + fmt(a.get().speedupVsScalar()) + "x vs " + fmt(b.get().speedupVsScalar()) + "x)";
          }));
    }
    out.add(goal("geomean speedup at " + T8 + " >= " + fmt(GOAL_VS_PEER_W8) + " x the better of the auto-vectorizer and GCC's SIMD clones",
        GOAL_VS_PEER_W8, g8.map(Geomean::speedupVsBestPeer), kernels,
        k -> below(result(k, T8), r -> Math.min(r.autovecNsPerElem(), r.hasGcc() ? r.gccNsPerElem() : Double.MAX_VALUE) / r.packetNsPerElem(),
            GOAL_VS_PEER_W8)));
    List<String> labels = targetLabels();
    // a kernel not measured at a target counts as missing the goal (0)
    double minAll = measured.isEmpty() ? Double.NaN : kernels.stream().flatMap(k -> labels.stream().map(l -> result(k, l)))
        .mapToDouble(r -> r.map(KernelResult::speedupVsScalar).orElse(0.0)).min().orElse(Double.NaN);
    out.add(goal("no kernel slower than scalar at any width (min speedup shown)", GOAL_NOT_SLOWER,
        Double.isNaN(minAll) ? Optional.empty() : Optional.of(minAll), kernels, k -> {
          List<String> bad = new ArrayList<>();
          for (String label : labels) {
            Optional<KernelResult> r = result(k, label);
            if (r.isEmpty()) bad.add(label + " not measured");
            else if (r.get().speedupVsScalar() < GOAL_NOT_SLOWER) bad.add(label + " " + fmt(r.get().speedupVsScalar()) + "x");
          }
          return bad.isEmpty() ? null : String.join(", ", bad);
        }));
    // code growth: on machine code (what users pay in instruction cache and binary size); the IR
    // ratio is shown alongside, as per-lane loads raise the IR count while the machine code shrinks
    List<KernelResult> withAsm = measured.stream().filter(r -> !Double.isNaN(r.machineCodeGrowth())).toList();
    double maxGrowth = withAsm.stream().mapToDouble(KernelResult::machineCodeGrowth).max().orElse(Double.NaN);
    boolean allAsm = withAsm.size() == measured.size();
    out.add(upperGoal("code growth in machine instructions (packet / scalar function, compiled for the target CPU) <= "
        + fmt(GOAL_CODE_GROWTH) + " for every kernel and width (max shown; IR ratio in parentheses)",
        GOAL_CODE_GROWTH, Double.isNaN(maxGrowth) || !allAsm ? Optional.empty() : Optional.of(maxGrowth), kernels, k -> {
          List<String> bad = new ArrayList<>();
          for (KernelResult r : measured) {
            if (!r.kernel().equals(k)) continue;
            if (Double.isNaN(r.machineCodeGrowth())) bad.add(r.label() + " not measured (IR " + fmt(r.codeGrowth()) + ")");
            else if (r.machineCodeGrowth() > GOAL_CODE_GROWTH) bad.add(r.label() + " " + fmt(r.machineCodeGrowth()) + " (IR " + fmt(r.codeGrowth()) + ")");
          }
          return bad.isEmpty() ? null : String.join(", ", bad);
        }));
    return out;
  }

  /** Why a kernel misses a lower bound: its figure, "not measured", or null when it reaches the bound. */
  private static String below(Optional<KernelResult> r, java.util.function.ToDoubleFunction<KernelResult> f, double bound) {
    if (r.isEmpty()) return "not measured";
    double v = f.applyAsDouble(r.get());
    return v >= bound ? null : fmt(v) + "x";
  }

  /** A goal met when {@code actual >= required}; {@code miss} says why a kernel misses it (null: it does not). */
  private static Goal goal(String name, double required, Optional<Double> actual, List<String> kernels,
      java.util.function.Function<String, String> miss) {
    return new Goal(name, required, actual.orElse(null), actual.isPresent() && actual.get() >= required, misses(kernels, miss));
  }

  /** A goal met when {@code actual <= required}. */
  private static Goal upperGoal(String name, double required, Optional<Double> actual, List<String> kernels,
      java.util.function.Function<String, String> miss) {
    return new Goal(name, required, actual.orElse(null), actual.isPresent() && actual.get() <= required, misses(kernels, miss));
  }

  private static List<String> misses(List<String> kernels, java.util.function.Function<String, String> miss) {
    List<String> misses = new ArrayList<>();
    for (String k : kernels) {
      String m = miss.apply(k);
      if (m != null) misses.add(k + ": " + m);
    }
    return misses;
  }

  private String familyOf(String kernel) {
    for (KernelResult r : results) if (r.kernel().equals(kernel)) return r.family();
    try {
      return org.packetizer.core.toolchain.Manifest.load().require(kernel).family();
    } catch (RuntimeException e) {
      return "";
    }
  }

  // ---------------------------------------------------------------------------------------------
  // text

  /** The table, geometric means, goals and failures as terminal text. */
  public String table() {
    StringBuilder sb = new StringBuilder();
    if (!results.isEmpty() || !failures.isEmpty()) {
      sb.append(String.format(Locale.ROOT, "%-11s %-12s %9s %9s %9s %9s %8s %8s %8s %18s %18s %8s%n", "kernel", "target", "scalar", "autovec",
          "gcc simd", "packet", "speedup", "speedup", "speedup", "IR", "asm", "pkt"));
      sb.append(String.format(Locale.ROOT, "%-11s %-12s %9s %9s %9s %9s %8s %8s %8s %18s %18s %8s%n", "", "", "ns/elem", "ns/elem", "ns/elem",
          "ns/elem", "vs scal", "vs auto", "vs gcc", "scalar>packet (x)", "scalar>packet (x)", "ms"));
      sb.append("-".repeat(RULE)).append('\n');
      for (String k : kernelNames()) {
        for (String label : targetLabels()) {
          Optional<KernelResult> r = result(k, label);
          if (r.isPresent()) {
            KernelResult x = r.get();
            sb.append(String.format(Locale.ROOT, "%-11s %-12s %9.2f %9.2f %9s %9.2f %7.2fx %7.2fx %8s %18s %18s %8.1f%s%n", k, x.labelWithInterleave(),
                x.scalarNsPerElem(), x.autovecNsPerElem(), x.hasGcc() ? String.format(Locale.ROOT, "%.2f", x.gccNsPerElem()) : "-",
                x.packetNsPerElem(), x.speedupVsScalar(), x.speedupVsAutovec(),
                x.hasGcc() ? String.format(Locale.ROOT, "%.2fx", x.speedupVsGcc()) : "-",
                x.scalarInstructions() + ">" + x.packetInstructions() + " (" + fmt(x.codeGrowth()) + ")",
                Double.isNaN(x.machineCodeGrowth()) ? "-"
                    : x.scalarMachineInstructions() + ">" + x.packetMachineInstructions() + " (" + fmt(x.machineCodeGrowth()) + ")",
                x.packetizeMs(),
                (x.family().equals(MEASURED_FAMILY) ? "" : " *") + (x.autovecMatches() ? "" : " !") + (!x.hasGcc() || x.gccMatches() ? "" : " g")));
          } else {
            failures.stream().filter(f -> f.kernel().equals(k) && f.label().equals(label)).findFirst().ifPresent(f ->
                sb.append(String.format(Locale.ROOT, "%-11s %-12s %s%n", k, label, "-- not reported: " + f.stage())));
          }
        }
      }
      sb.append("-".repeat(RULE)).append('\n');
      sb.append("IR: LLVM IR instructions of the scalar kernel and the packet function; asm: their machine instructions as the bundled\n"
          + "LLVM compiles them for the target's CPU (labels and directives not counted); the code-growth goal is on asm\n");
      boolean thesis = results.stream().anyMatch(r -> !r.family().equals(MEASURED_FAMILY));
      if (thesis) sb.append("* not in the geometric means (family other than \"" + MEASURED_FAMILY + "\")\n");
      if (results.stream().anyMatch(r -> !r.autovecMatches())) {
        sb.append("! the auto-vectorized loop's outputs differ from the scalar loop's (informational)\n");
      }
      if (results.stream().anyMatch(r -> r.hasGcc() && !r.gccMatches())) {
        sb.append("g the GCC SIMD-clone loop's outputs differ from the scalar loop's (informational)\n");
      }
      sb.append('\n').append("Geometric means over family \"").append(MEASURED_FAMILY).append("\":\n");
      for (Geomean g : geomeans()) {
        sb.append(String.format(Locale.ROOT, "  %-12s %2d kernels  packet %6.2fx vs scalar  %6.2fx vs autovec   autovec %5.2fx vs scalar"
            + "   code growth asm %.2f (max %.2f), IR %.2f (max %.2f)%n", g.target(), g.kernels(), g.speedupVsScalar(), g.speedupVsAutovec(),
            g.autovecSpeedupVsScalar(), g.machineCodeGrowth(), g.maxMachineCodeGrowth(), g.codeGrowth(), g.maxCodeGrowth()));
        if (g.gccKernels() > 0) {
          sb.append(String.format(Locale.ROOT, "  %-12s %2d kernels  packet %6.2fx vs gcc simd clones  gcc %5.2fx vs scalar   packet %5.2fx vs the"
              + " better peer%n", "", g.gccKernels(), g.speedupVsGcc(), g.gccSpeedupVsScalar(), g.speedupVsBestPeer()));
        }
      }
      sb.append('\n');
      if (host.avx512Probe() != null) sb.append(host.avx512Probe().describe()).append('\n');
      sb.append("Goals:\n");
      for (Goal g : goals()) {
        sb.append(String.format(Locale.ROOT, "  [%s] %s: %s%n", g.met() ? "met " : "MISS", g.goal(),
            g.actual() == null ? "not measured" : fmt(g.actual())));
        for (String m : g.misses()) sb.append("         misses: ").append(m).append('\n');
      }
      widthSplit().ifPresent(w -> {
        sb.append(String.format(Locale.ROOT, "%s over %s, per element (%d kernels): packet loop %.2fx faster, scalar loop %.2fx faster;"
            + " the W16 figure is %.2f / %.2f = %.2f%n", T16, T8, w.kernels(), w.packetGain(), w.scalarGain(), w.packetGain(), w.scalarGain(),
            w.speedupRatio()));
        for (String m : w.scalarMoved()) sb.append("         scalar loop faster at W16: ").append(m).append('\n');
      });
      driverTable(sb);
      if (!failures.isEmpty()) {
        sb.append('\n').append("Not reported:\n");
        for (KernelFailure f : failures) {
          String msg = f.message().replaceAll("\\s+", " ");
          if (msg.length() > 300) msg = msg.substring(0, 297) + "...";
          sb.append(String.format(Locale.ROOT, "  %-11s %-12s %-9s %s%n", f.kernel(), f.label(), f.stage(), msg));
        }
      }
    }
    if (!scaling.isEmpty()) sb.append('\n').append(ScalingBench.table(scaling));
    for (String n : notes) sb.append("note: ").append(n).append('\n');
    if (!results.isEmpty() && org.packetizer.core.api.PacketizerOptions.Optimize.fromProperty() == org.packetizer.core.api.PacketizerOptions.Optimize.SIZE) {
      sb.append("note: packet functions optimized for size (-Dpacketizer.optimize=size: math calls loop over the lanes calling libm,"
          + " no dynamic variants); without the knob, for speed\n");
    }
    if (results.isEmpty() && failures.isEmpty()) {
      sb.append(String.format(Locale.ROOT, "%nhost %s, %d cores, load average %.2f; %.0f s%n", host.cpu(), host.cores(), host.loadAverage(),
          seconds));
    } else {
      sb.append(String.format(Locale.ROOT, "%nhost %s, %d cores, load average %.2f; %s inputs; %d warm-up + %d timed runs per loop,"
          + " medians of thread CPU time; %.0f s%n", host.cpu(), host.cores(), host.loadAverage(), options.coherent() ? "coherent" : "random",
          options.warmup(), options.reps(), seconds));
    }
    return sb.toString();
  }

  /**
   * The array-driver columns: per kernel and target the plain driver ({@code --array-driver}) and the
   * {@code --refill=auto} driver, called as a C caller calls them, against the packet loop and each
   * other; their geomeans; the kernels where auto is slower than plain beyond the run's noise.
   */
  private void driverTable(StringBuilder sb) {
    if (results.stream().noneMatch(KernelResult::hasDrivers)) return;
    sb.append('\n').append("Array drivers (packetize --array-driver, plain and --refill=auto, called once over the N elements as a C"
        + " caller calls them;\nthe same run, inputs and timing as the loops above):\n");
    sb.append(String.format(Locale.ROOT, "%-11s %-12s %9s %9s %9s %8s %8s %9s %8s  %s%n", "kernel", "target", "packet", "driver", "auto",
        "driver", "auto", "driver/", "auto/", "auto rule chose"));
    sb.append(String.format(Locale.ROOT, "%-11s %-12s %9s %9s %9s %8s %8s %9s %8s%n", "", "", "ns/elem", "ns/elem", "ns/elem", "vs scal",
        "vs scal", "pkt loop", "plain"));
    for (String k : kernelNames()) {
      for (String label : targetLabels()) {
        Optional<KernelResult> r = result(k, label);
        if (r.isEmpty() || !r.get().hasDrivers()) continue;
        KernelResult x = r.get();
        sb.append(String.format(Locale.ROOT, "%-11s %-12s %9.2f %9.2f %9.2f %7.2fx %7.2fx %9.3f %+7.1f%%  %s%s%n", k, x.labelWithInterleave(),
            x.packetNsPerElem(), x.driverNsPerElem(), x.autoDriverNsPerElem(), x.driverSpeedupVsScalar(), x.autoDriverSpeedupVsScalar(),
            x.driverVsPacketLoop(), 100 * (x.autoVsPlainDriver() - 1), x.autoDriverChoiceShort(),
            x.autoSlowerBeyondNoise() ? "  <- slower" : ""));
      }
    }
    sb.append("Geometric means over family \"").append(MEASURED_FAMILY).append("\" (").append(options.coherent() ? "coherent" : "random")
        .append(" inputs):\n");
    for (DriverGeomean g : driverGeomeans()) {
      sb.append(String.format(Locale.ROOT, "  %-12s %2d kernels  driver %6.2fx vs scalar  auto %6.2fx vs scalar   driver/packet loop %.3f"
          + "   auto/plain %.3f%n", g.target(), g.kernels(), g.driverSpeedupVsScalar(), g.autoSpeedupVsScalar(), g.driverVsPacketLoop(),
          g.autoVsPlain()));
    }
    List<String> misses = autoDriverMisses();
    sb.append(String.format(Locale.ROOT, "  [%s] no kernel slower with --refill=auto than with the plain driver, beyond the noise (the"
        + " larger IQR of the two drivers' runs, at least %.0f %%;%n         rows where auto made the plain driver are the same code"
        + " and not judged)%n", misses.isEmpty() ? "met " : "MISS", 100 * KernelResult.MIN_NOISE));
    sameCodeDriverBand().ifPresent(b -> sb.append(String.format(Locale.ROOT, "         the same driver timed twice (rows with a plain auto"
        + " driver): auto/plain %.3f to %.3f%n", b[0], b[1])));
    for (String m : misses) sb.append("         misses: ").append(m).append('\n');
  }

  /** Width of the table's rules. */
  private static final int RULE = 141;

  static String fmt(double d) { return String.format(Locale.ROOT, "%.2f", d); }

  // ---------------------------------------------------------------------------------------------
  // JSON

  /** The report as JSON (see the class comment of {@code BenchCommand} for the schema). */
  public String json() {
    var m = Benchmark.JSON.copy().enable(SerializationFeature.INDENT_OUTPUT);
    ObjectNode root = m.createObjectNode();
    root.put("schema", 1);
    root.put("generated", java.time.Instant.now().toString());
    root.set("host", m.valueToTree(host));
    root.set("options", m.valueToTree(options));
    root.set("results", m.valueToTree(results));
    root.set("failures", m.valueToTree(failures));
    root.set("geomeans", m.valueToTree(geomeans()));
    root.set("goals", m.valueToTree(goals()));
    if (results.stream().anyMatch(KernelResult::hasDrivers)) {
      root.set("driver_geomeans", m.valueToTree(driverGeomeans()));
      ArrayNode dm = root.putArray("auto_driver_misses");
      autoDriverMisses().forEach(dm::add);
      sameCodeDriverBand().ifPresent(b -> root.putArray("same_code_driver_band").add(b[0]).add(b[1]));
    }
    widthSplit().ifPresent(w -> {
      ObjectNode ws = root.putObject("w16_over_w8");
      ws.put("kernels", w.kernels());
      ws.put("packet_gain", w.packetGain());
      ws.put("scalar_gain", w.scalarGain());
      ws.put("speedup_ratio", w.speedupRatio());
      ArrayNode mv = ws.putArray("scalar_moved");
      w.scalarMoved().forEach(mv::add);
    });
    if (!scaling.isEmpty()) {
      ObjectNode sc = root.putObject("scaling");
      sc.set("points", m.valueToTree(scaling));
      ScalingBench.Summary s = ScalingBench.summarize(scaling);
      sc.set("summary", m.valueToTree(s));
    }
    ArrayNode ns = root.putArray("notes");
    notes.forEach(ns::add);
    root.put("seconds", seconds);
    try {
      return m.writeValueAsString(root) + "\n";
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Speed-ups per kernel and target for the chart: kernel -> label -> [packet, autovec, auto array driver (NaN: none)] vs scalar. */
  Map<String, Map<String, double[]>> speedups() {
    Map<String, Map<String, double[]>> out = new LinkedHashMap<>();
    for (String k : kernelNames()) {
      Map<String, double[]> row = new LinkedHashMap<>();
      for (String label : targetLabels()) {
        result(k, label).ifPresent(r -> row.put(label, new double[] {r.speedupVsScalar(), r.autovecSpeedupVsScalar(),
            r.hasDrivers() ? r.autoDriverSpeedupVsScalar() : Double.NaN}));
      }
      out.put(k, row);
    }
    return out;
  }

  /** The speed-up chart as SVG. */
  public String svg() { return SvgChart.render(this); }
}
