package org.packetizer.core.api;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What one packetization did.
 *
 * @param shapes                value name (in the prepared scalar function) -> shape, for named values
 * @param blocks                scalar blocks emitted
 * @param linearizedBranches    conditional branches turned into masked fall-through
 * @param keptBranches          uniform branches kept as real branches
 * @param selects               blend selects created for varying phis
 * @param scalarInstructions    instructions of the user's scalar function
 * @param emittedInstructions   instructions of the packet function before clean-up
 * @param packetInstructions    instructions of the final packet function
 * @param nanos                 wall time of the packetization
 * @param phaseNanos            wall time per phase, in pipeline order ({@link #PHASES}; a wrapped
 *                              result reports its N-wide function's phases plus {@code wrapper})
 */
public record PacketizationResult(
    String scalarFunction,
    String packetFunction,
    int width,
    List<ParamKind> params,
    Map<String, String> shapes,
    int uniformValues,
    int varyingValues,
    int blocks,
    int linearizedBranches,
    int keptBranches,
    int selects,
    int vectorLoads,
    int vectorStores,
    int gathers,
    int scatters,
    int cascades,
    int vectorCalls,
    int scalarizedCalls,
    int scalarInstructions,
    int emittedInstructions,
    int packetInstructions,
    List<Remark> remarks,
    List<BlockInfo> blockInfo,
    long nanos,
    Map<String, Long> phaseNanos,
    Optional<DriverInfo> driver) {

  /**
   * The array driver made for this packet function ({@link PacketizerOptions#arrayDriver()}).
   *
   * @param name          the driver function's name (external, C calling convention)
   * @param cDeclaration  its C prototype, e.g. {@code void f_map(const float *x, float y, float *out, size_t n);}
   * @param maskedFunction the internal masked packet function the driver runs the remainder with (a lane
   *                       refill driver, {@code Refill.ON}, has no remainder: its own name, the masked
   *                       pieces are inlined into it)
   */
  public record DriverInfo(String name, String cDeclaration, String maskedFunction) {}

  /** This result with its array driver. */
  public PacketizationResult withDriver(DriverInfo d) {
    return new PacketizationResult(scalarFunction, packetFunction, width, params, shapes, uniformValues, varyingValues, blocks,
        linearizedBranches, keptBranches, selects, vectorLoads, vectorStores, gathers, scatters, cascades, vectorCalls,
        scalarizedCalls, scalarInstructions, emittedInstructions, packetInstructions, remarks, blockInfo, nanos, phaseNanos,
        Optional.of(d));
  }

  /** The array driver's name, if one was made. */
  public Optional<String> driverFunction() { return driver.map(DriverInfo::name); }

  /** A result without a driver. */
  public PacketizationResult(String scalarFunction, String packetFunction, int width, List<ParamKind> params,
      Map<String, String> shapes, int uniformValues, int varyingValues, int blocks, int linearizedBranches, int keptBranches,
      int selects, int vectorLoads, int vectorStores, int gathers, int scatters, int cascades, int vectorCalls,
      int scalarizedCalls, int scalarInstructions, int emittedInstructions, int packetInstructions, List<Remark> remarks,
      List<BlockInfo> blockInfo, long nanos, Map<String, Long> phaseNanos) {
    this(scalarFunction, packetFunction, width, params, shapes, uniformValues, varyingValues, blocks, linearizedBranches,
        keptBranches, selects, vectorLoads, vectorStores, gathers, scatters, cascades, vectorCalls, scalarizedCalls,
        scalarInstructions, emittedInstructions, packetInstructions, remarks, blockInfo, nanos, phaseNanos, Optional.empty());
  }

  /** Phase names of {@link #phaseNanos()}, in pipeline order. */
  public static final List<String> PHASES = List.of("check-input", "prepare", "analyze", "emit", "verify", "cleanup", "finish",
      "wrapper");

  public PacketizationResult {
    driver = driver == null ? Optional.empty() : driver;
    phaseNanos = phaseNanos == null ? Map.of() : java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(phaseNanos));
  }

  /** This result naming another packet function (e.g. the scalable one made from this one). */
  public PacketizationResult withPacketFunction(String name) {
    return new PacketizationResult(scalarFunction, name, width, params, shapes, uniformValues, varyingValues, blocks,
        linearizedBranches, keptBranches, selects, vectorLoads, vectorStores, gathers, scatters, cascades, vectorCalls,
        scalarizedCalls, scalarInstructions, emittedInstructions, packetInstructions, remarks, blockInfo, nanos, phaseNanos,
        driver);
  }

  /** This result with one more remark. */
  public PacketizationResult withRemark(Remark r) {
    List<Remark> rs = new java.util.ArrayList<>(remarks);
    rs.add(r);
    return new PacketizationResult(scalarFunction, packetFunction, width, params, shapes, uniformValues, varyingValues, blocks,
        linearizedBranches, keptBranches, selects, vectorLoads, vectorStores, gathers, scatters, cascades, vectorCalls,
        scalarizedCalls, scalarInstructions, emittedInstructions, packetInstructions, List.copyOf(rs), blockInfo, nanos, phaseNanos,
        driver);
  }

  /** A result without phase times. */
  public PacketizationResult(String scalarFunction, String packetFunction, int width, List<ParamKind> params,
      Map<String, String> shapes, int uniformValues, int varyingValues, int blocks, int linearizedBranches, int keptBranches,
      int selects, int vectorLoads, int vectorStores, int gathers, int scatters, int cascades, int vectorCalls,
      int scalarizedCalls, int scalarInstructions, int emittedInstructions, int packetInstructions, List<Remark> remarks,
      List<BlockInfo> blockInfo, long nanos) {
    this(scalarFunction, packetFunction, width, params, shapes, uniformValues, varyingValues, blocks, linearizedBranches,
        keptBranches, selects, vectorLoads, vectorStores, gathers, scatters, cascades, vectorCalls, scalarizedCalls,
        scalarInstructions, emittedInstructions, packetInstructions, remarks, blockInfo, nanos, Map.of());
  }

  /**
   * What the analysis said about one block of the prepared scalar function (for CFG drawings).
   *
   * @param name            block name
   * @param successors      successor block names
   * @param partialMask     the block may run with only some lanes active
   * @param divergentBranch its conditional branch depends on a varying condition
   * @param keptBranch      its branch stayed a real branch in the packet function
   * @param loopHeader      it heads a loop; {@code divergentLoop} whether that loop is divergent
   * @param varying         names of varying values defined in it
   * @param uniform         names of uniform values defined in it
   */
  public record BlockInfo(String name, List<String> successors, boolean partialMask, boolean divergentBranch,
      boolean keptBranch, boolean loopHeader, boolean divergentLoop, List<String> varying, List<String> uniform) {}

  /** The parameter kinds as vector-function-ABI letters, e.g. "vvu". */
  public String signature() {
    StringBuilder sb = new StringBuilder();
    for (ParamKind k : params) sb.append(k.letters());
    return sb.toString();
  }

  /**
   * The analysis as text, for debugging and for IR check tests ({@code packetize --print-shapes}):
   * one line per block of the prepared scalar copy, in the linearization order, with what the
   * analysis decided about it (mask, branch, loop), then one line per named value defined in it with
   * its shape (uniform, consecutive, linear(stride), varying; alignment where known). For example:
   *
   * <pre>
   * shapes @mandelbrot -> @mandelbrot_simd8 (width 8, params vvu)
   * block %entry: full mask, uniform branch kept
   *   %cmp19: uniform
   * block %while.body: partial mask, loop header (divergent loop), divergent branch
   *   %add: varying
   * </pre>
   *
   * A wrapped result (thesis 4.6) describes its N-wide packet function's analysis.
   */
  public String shapesDump() {
    StringBuilder sb = new StringBuilder();
    sb.append("shapes @").append(scalarFunction).append(" -> @").append(packetFunction).append(" (width ").append(width)
        .append(", params ").append(signature().isEmpty() ? "-" : signature()).append(")\n");
    // values in definition order, grouped by the block that defines them
    Map<String, List<String>> byBlock = new java.util.HashMap<>();
    Map<String, String> blockOf = new java.util.HashMap<>();
    for (BlockInfo b : blockInfo) {
      for (String v : b.varying()) blockOf.put(v, b.name());
      for (String v : b.uniform()) blockOf.put(v, b.name());
    }
    for (Map.Entry<String, String> e : shapes.entrySet()) {
      String b = blockOf.get(e.getKey());
      if (b != null) byBlock.computeIfAbsent(b, k -> new java.util.ArrayList<>()).add("  " + e.getKey() + ": " + e.getValue());
    }
    for (BlockInfo b : blockInfo) {
      List<String> facts = new java.util.ArrayList<>();
      facts.add(b.partialMask() ? "partial mask" : "full mask");
      if (b.loopHeader()) facts.add(b.divergentLoop() ? "loop header (divergent loop)" : "loop header (uniform loop)");
      if (b.divergentBranch()) facts.add("divergent branch");
      else if (b.keptBranch()) facts.add("uniform branch kept");
      else if (b.successors().size() > 1) facts.add("uniform branch linearized");
      sb.append("block %").append(b.name()).append(": ").append(String.join(", ", facts));
      if (!b.successors().isEmpty()) sb.append(" -> %").append(String.join(", %", b.successors()));
      sb.append('\n');
      for (String line : byBlock.getOrDefault(b.name(), List.of())) sb.append(line).append('\n');
    }
    return sb.toString();
  }

  /** A one-paragraph summary for humans. */
  public String summary() {
    return String.format(java.util.Locale.ROOT,
        "@%s -> @%s (width %d, params %s): %d uniform / %d varying values; %d blocks, %d branches linearized, %d kept; "
            + "%d selects; memory: %d vector loads, %d vector stores, %d gathers, %d scatters, %d if-cascades; calls: %d vector, "
            + "%d scalarized; %d -> %d instructions; %.1f ms",
        scalarFunction, packetFunction, width, signature().isEmpty() ? "-" : signature(), uniformValues, varyingValues, blocks,
        linearizedBranches, keptBranches, selects, vectorLoads, vectorStores, gathers, scatters, cascades, vectorCalls,
        scalarizedCalls, scalarInstructions, packetInstructions, nanos / 1e6);
  }
}
