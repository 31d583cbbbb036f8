package org.packetizer.core.bench;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;

/**
 * The measurement of one kernel at one width and ISA: medians of the three loops over the same
 * inputs, timed side by side in one process, and what packetization produced. Only made when the
 * packet loop's outputs agreed with the scalar loop's after every timed run.
 *
 * @param kernel             manifest name
 * @param family             manifest family ("kernel", "thesis")
 * @param width              packet width W
 * @param isa                ISA name ("SSE4.2", "AVX2", "AVX-512")
 * @param cpu                CPU all three loops were compiled for
 * @param elements           N, elements per run
 * @param reps               timed runs of each loop
 * @param scalarNsPerElem    median CPU ns per element of the scalar loop (clang -O3, vectorizers off)
 * @param autovecNsPerElem   median CPU ns per element of the auto-vectorized loop (clang -O3, kernel inlined)
 * @param packetNsPerElem    median CPU ns per element of the loop over the packet function
 * @param scalarWallNsPerElem  the same in wall-clock time (includes time other processes took the core)
 * @param autovecWallNsPerElem wall-clock time of the auto-vectorized loop
 * @param packetWallNsPerElem  wall-clock time of the packet loop
 * @param spreadPct          largest interquartile range of the three loops' CPU times, in percent of its median
 * @param autovecMatches     whether the auto-vectorized loop computed exactly what the scalar loop did
 * @param scalarInstructions instructions of the scalar kernel function (the packetizer's input)
 * @param packetInstructions instructions of the packet function
 * @param scalarMachineInstructions machine instructions of the scalar kernel function (the packetizer's input) compiled for
 *                           {@code cpu} by the bundled LLVM as {@code llc -O3} compiles it, with the module's functions it
 *                           calls (labels and directives not counted; see {@link MachineCode}); 0 when not measured
 * @param packetMachineInstructions machine instructions of the packet function counted the same way; 0 when not measured
 * @param packetizeMs        wall time of the packetization (after {@value KernelBench#WARMUP_PACKETIZATIONS} throw-away
 *                           packetizations per target in the same JVM)
 * @param gathers            gathers emitted
 * @param scatters           scatters emitted
 * @param vectorCalls        calls mapped to vector variants (intrinsics or vector library)
 * @param scalarizedCalls    calls emitted once per lane
 * @param linearizedBranches branches turned into masked fall-through
 * @param keptBranches       uniform branches kept
 * @param gccNsPerElem       median CPU ns per element of GCC's SIMD-clone loop (Debian gcc {@code -O3 -fopenmp-simd}: the
 *                           kernel {@code declare simd} in its own file, the loop {@code omp simd} in another); NaN when
 *                           gcc is missing or failed
 * @param gccMatches         whether the GCC loop computed exactly what the scalar loop did
 * @param interleave         the packet loop's interleave count
 * @param driverNsPerElem    median CPU ns per element of the generated array driver ({@code packetize --array-driver},
 *                           the CLI's defaults), called once over all N elements as a C caller calls it; NaN when not
 *                           measured ({@code -Dpacketizer.bench.drivers=false}, or the driver could not be made)
 * @param autoDriverNsPerElem the same for the driver made with {@code --refill=auto} (its state kept between the runs,
 *                           as between a program's calls)
 * @param driverSpreadPct    interquartile range of the plain driver's CPU times, in percent of their median
 * @param autoDriverSpreadPct the same for the auto driver
 * @param autoDriverChoice   what the auto rule chose: "plain driver (REMARK)" when the packetizer made the plain
 *                           driver, else the body in use after the timed runs with the trials and alarms so far
 */
@JsonIgnoreProperties(value = {"speedup_vs_scalar", "speedup_vs_autovec", "autovec_speedup_vs_scalar", "code_growth", "machine_code_growth", "speedup_vs_gcc",
    "driver_speedup_vs_scalar", "auto_driver_speedup_vs_scalar", "driver_vs_packet_loop", "auto_vs_plain_driver"},
    allowGetters = true)
@JsonPropertyOrder({"kernel", "family", "width", "isa", "cpu", "elements", "reps", "scalar_ns_per_elem",
    "autovec_ns_per_elem", "packet_ns_per_elem", "speedup_vs_scalar", "speedup_vs_autovec", "autovec_speedup_vs_scalar",
    "scalar_wall_ns_per_elem", "autovec_wall_ns_per_elem", "packet_wall_ns_per_elem", "spread_pct", "autovec_matches", "scalar_instructions", "packet_instructions", "code_growth",
    "scalar_machine_instructions", "packet_machine_instructions", "machine_code_growth", "packetize_ms",
    "gathers", "scatters", "vector_calls", "scalarized_calls", "linearized_branches", "kept_branches", "gcc_ns_per_elem",
    "speedup_vs_gcc", "gcc_matches", "interleave", "driver_ns_per_elem", "auto_driver_ns_per_elem", "driver_speedup_vs_scalar",
    "auto_driver_speedup_vs_scalar", "driver_vs_packet_loop", "auto_vs_plain_driver", "driver_spread_pct", "auto_driver_spread_pct",
    "auto_driver_choice"})
public record KernelResult(
    @JsonProperty("kernel") String kernel,
    @JsonProperty("family") String family,
    @JsonProperty("width") int width,
    @JsonProperty("isa") String isa,
    @JsonProperty("cpu") String cpu,
    @JsonProperty("elements") int elements,
    @JsonProperty("reps") int reps,
    @JsonProperty("scalar_ns_per_elem") double scalarNsPerElem,
    @JsonProperty("autovec_ns_per_elem") double autovecNsPerElem,
    @JsonProperty("packet_ns_per_elem") double packetNsPerElem,
    @JsonProperty("scalar_wall_ns_per_elem") double scalarWallNsPerElem,
    @JsonProperty("autovec_wall_ns_per_elem") double autovecWallNsPerElem,
    @JsonProperty("packet_wall_ns_per_elem") double packetWallNsPerElem,
    @JsonProperty("spread_pct") double spreadPct,
    @JsonProperty("autovec_matches") boolean autovecMatches,
    @JsonProperty("scalar_instructions") int scalarInstructions,
    @JsonProperty("packet_instructions") int packetInstructions,
    @JsonProperty("scalar_machine_instructions") int scalarMachineInstructions,
    @JsonProperty("packet_machine_instructions") int packetMachineInstructions,
    @JsonProperty("packetize_ms") double packetizeMs,
    @JsonProperty("gathers") int gathers,
    @JsonProperty("scatters") int scatters,
    @JsonProperty("vector_calls") int vectorCalls,
    @JsonProperty("scalarized_calls") int scalarizedCalls,
    @JsonProperty("linearized_branches") int linearizedBranches,
    @JsonProperty("kept_branches") int keptBranches,
    @JsonProperty("gcc_ns_per_elem") double gccNsPerElem,
    @JsonProperty("gcc_matches") boolean gccMatches,
    @JsonProperty("interleave") int interleave,
    @JsonProperty("driver_ns_per_elem") double driverNsPerElem,
    @JsonProperty("auto_driver_ns_per_elem") double autoDriverNsPerElem,
    @JsonProperty("driver_spread_pct") double driverSpreadPct,
    @JsonProperty("auto_driver_spread_pct") double autoDriverSpreadPct,
    @JsonProperty("auto_driver_choice") String autoDriverChoice) {

  /** Whether both array drivers were timed. */
  public boolean hasDrivers() { return !Double.isNaN(driverNsPerElem) && !Double.isNaN(autoDriverNsPerElem) && driverNsPerElem > 0; }

  /** Scalar time over the plain array driver's time (NaN when not measured). */
  @JsonProperty("driver_speedup_vs_scalar")
  public double driverSpeedupVsScalar() { return scalarNsPerElem / driverNsPerElem; }

  /** Scalar time over the auto array driver's time (NaN when not measured). */
  @JsonProperty("auto_driver_speedup_vs_scalar")
  public double autoDriverSpeedupVsScalar() { return scalarNsPerElem / autoDriverNsPerElem; }

  /** The plain array driver's time over the packet loop's (above 1: the driver is slower than the bench's own loop). */
  @JsonProperty("driver_vs_packet_loop")
  public double driverVsPacketLoop() { return driverNsPerElem / packetNsPerElem; }

  /** The auto driver's time over the plain driver's (above 1: auto is slower). */
  @JsonProperty("auto_vs_plain_driver")
  public double autoVsPlainDriver() { return autoDriverNsPerElem / driverNsPerElem; }

  /**
   * The run's noise for the auto-vs-plain comparison, as a fraction: the larger of the two drivers'
   * interquartile ranges relative to their medians, at least {@link #MIN_NOISE}.
   */
  public double driverNoise() { return Math.max(MIN_NOISE, Math.max(driverSpreadPct, autoDriverSpreadPct) / 100); }

  /** The smallest noise the auto-vs-plain comparison assumes (1 %): with few runs the quartiles can coincide. */
  public static final double MIN_NOISE = 0.01;

  /**
   * Whether the packetizer made the plain driver for {@code --refill=auto} (no loop, or its rule did not
   * choose refill): then both drivers are the same code (the IR differs only in names), and their
   * difference in time is this run's noise and code placement, not the auto rule.
   */
  public boolean autoIsPlainDriver() { return autoDriverChoice != null && autoDriverChoice.startsWith("plain driver"); }

  /**
   * Whether the auto driver, timing its bodies, is slower than the plain driver by more than
   * {@link #driverNoise()} (never when {@link #autoIsPlainDriver()}).
   */
  public boolean autoSlowerBeyondNoise() { return hasDrivers() && !autoIsPlainDriver() && autoVsPlainDriver() > 1 + driverNoise(); }

  /** The auto rule's choice in a few words: the refill remark's reason shortened, or the timed driver's end state. */
  public String autoDriverChoiceShort() {
    String c = autoDriverChoice == null ? "" : autoDriverChoice;
    if (!autoIsPlainDriver()) return c;
    if (c.contains("has no loop")) return "plain driver: no loop";
    if (c.contains("neither AVX-512 nor AVX2")) return "plain driver: no AVX2/AVX-512";
    if (c.contains("same trip count in every lane")) return "plain driver: same trip count in every lane";
    java.util.regex.Matcher share = java.util.regex.Pattern.compile("(\\d+)% of the instructions(, (\\d+)% weighted by an estimated"
        + " (\\d+) iterations)?\\); the rule wants .*? at least (\\d+)%").matcher(c);
    if (share.find()) {
      return "plain driver: the divergent loop holds " + share.group(1) + " % of the instructions" + (share.group(2) == null ? ""
          : ", " + share.group(3) + " % weighted by " + share.group(4) + " iterations") + " (< " + share.group(5) + " %)";
    }
    java.util.regex.Matcher m = java.util.regex.Pattern.compile("\\): (.*?)(; plain driver|$)").matcher(c);
    String why = m.find() ? m.group(1) : c;
    return "plain driver: " + (why.length() > 60 ? why.substring(0, 57) + "..." : why);
  }

  /** GCC's SIMD-clone time over packet time (NaN without a GCC loop). */
  @JsonProperty("speedup_vs_gcc")
  public double speedupVsGcc() { return gccNsPerElem / packetNsPerElem; }

  /** Whether a GCC loop was measured. */
  public boolean hasGcc() { return !Double.isNaN(gccNsPerElem); }

  /** Scalar time over packet time. */
  @JsonProperty("speedup_vs_scalar")
  public double speedupVsScalar() { return scalarNsPerElem / packetNsPerElem; }

  /** Auto-vectorized time over packet time. */
  @JsonProperty("speedup_vs_autovec")
  public double speedupVsAutovec() { return autovecNsPerElem / packetNsPerElem; }

  /** What the peer gains over scalar. */
  @JsonProperty("autovec_speedup_vs_scalar")
  public double autovecSpeedupVsScalar() { return scalarNsPerElem / autovecNsPerElem; }

  /**
   * Packet machine instructions over scalar machine instructions (NaN when not measured): what the
   * code-growth goal is evaluated on.
   */
  @JsonProperty("machine_code_growth")
  public double machineCodeGrowth() {
    return scalarMachineInstructions <= 0 || packetMachineInstructions <= 0 ? Double.NaN
        : (double) packetMachineInstructions / scalarMachineInstructions;
  }

  /** Packet IR instructions over scalar IR instructions. */
  @JsonProperty("code_growth")
  public double codeGrowth() { return scalarInstructions == 0 ? 0 : (double) packetInstructions / scalarInstructions; }

  /** The target with the packet loop's interleave count when above 1: "W8/AVX2 x2" (8-lane vectors, 2 chains per step). */
  public String labelWithInterleave() { return interleave > 1 ? label() + " x" + interleave : label(); }

  /** "W8/AVX2". */
  public String label() { return "W" + width + "/" + isa; }
}
