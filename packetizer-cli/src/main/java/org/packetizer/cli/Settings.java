package org.packetizer.cli;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.packetizer.core.api.MemoryStrategy;
import org.packetizer.core.api.ParamKind;
import org.packetizer.core.api.PacketizerOptions;
import org.packetizer.core.api.WrapperMode;

/**
 * The validated options of one {@code packetize} run, shared (read-only) by the per-input jobs.
 *
 * @param functions      the -f arguments; empty: the module's only defined function
 * @param hardwareWidth  --hardware-width N, or null: detected by the core
 * @param wrapperMode    --wrapper, or what it defaults to (see {@link OptionsBridge#wrapperMode})
 * @param vectorAbi      --vector-abi: publish under the vector function ABI
 * @param declaredVariants --declared-variants: make every _ZGV variant the functions declare
 * @param targetTriple   --target-triple, or null: the module's (its functions are retargeted before packetizing)
 * @param vectorBits     --vector-bits (SVE / RISC-V V register width), or null
 * @param cAbi           --c-abi: publish the packet functions in C's calling convention
 * @param params         --params, parsed: one for all functions, or one per -f in order (empty: defaults)
 * @param checkRuns      --check N, or empty
 * @param dotDir         --dot DIR, or null
 * @param remarks        whether remarks are wanted (on stderr, or as YAML when {@code remarksYaml})
 * @param prefixDot      several inputs: DOT file names start with the input's name
 * @param printShapes    --print-shapes: the analysis of each function on stderr
 * @param arrayDriver    --array-driver name pattern, or null
 * @param refill         --refill (lane refill in the array driver)
 * @param header         --header FILE, or null
 * @param optimize       --optimize speed|size, or null: the core's default (-Dpacketizer.optimize, else speed)
 */
record Settings(
    List<FunctionSpec> functions,
    int width,
    Integer hardwareWidth,
    WrapperMode wrapperMode,
    boolean vectorAbi,
    boolean declaredVariants,
    boolean cAbi,
    boolean scalable,
    String targetTriple,
    String targetCpu,
    String targetFeatures,
    Integer vectorBits,
    List<List<ParamKind>> params,
    boolean masked,
    MemoryStrategy memory,
    org.packetizer.core.api.IntegerMasks integerMasks,
    PacketizerOptions.VectorMath vectorMath,
    boolean verifyEachPhase,
    boolean textual,
    Optional<Integer> checkRuns,
    long seed,
    CheckPlan.Ranges ranges,
    CheckPlan.Buffers buffers,
    int checkTimeoutSeconds,
    Path dotDir,
    boolean prefixDot,
    boolean remarks,
    boolean remarksYaml,
    boolean printShapes,
    boolean quiet,
    boolean debug,
    String arrayDriver,
    Path header,
    org.packetizer.core.api.Refill refill,
    int refillBatch,
    int interleave,
    PacketizerOptions.Optimize optimize) {

  /**
   * The SIMD name passed to the core for {@code f}: the given or default one, or null with
   * {@code --vector-abi} and no name given (the core then uses the vector-function-ABI name).
   */
  String simdName(FunctionSpec f) {
    return vectorAbi && f.simd() == null ? null : f.simdName(width);
  }

  /** The Packetizer options for the {@code index}-th function (remarks go to {@code sink}). */
  PacketizerOptions options(int index, java.util.function.Consumer<org.packetizer.core.api.Remark> sink) {
    PacketizerOptions.Builder b = PacketizerOptions.builder()
        .width(width)
        .masked(masked)
        .memoryStrategy(memory)
        .integerMasks(integerMasks)
        .vectorMath(vectorMath)
        .verifyEachPhase(verifyEachPhase)
        .remarks(sink)
        // the remarks' instruction texts only when they are shown (a race warning keeps its own)
        .remarkInstructions(remarks || remarksYaml)
        // the packet IR is for reading here: its values and blocks named (-Dpacketizer.valueNames=false: none)
        .valueNames(PacketizerOptions.valueNamesFromProperty(true))
        .wrapperMode(wrapperMode)
        .vectorAbi(vectorAbi)
        .cAbi(cAbi)
        .scalable(scalable)
        .arrayDriver(arrayDriver)
        .refill(refill)
        .refillBatch(refillBatch)
        .interleave(interleave);
    if (optimize != null) b.optimize(optimize);
    if (hardwareWidth != null) b.hardwareWidth(hardwareWidth);
    if (targetCpu != null) b.targetCpu(targetCpu);
    if (targetFeatures != null) b.targetFeatures(targetFeatures);
    if (params.size() == 1) b.params(params.get(0));
    else if (index < params.size()) b.params(params.get(index));
    return b.build();
  }
}
