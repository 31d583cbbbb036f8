package org.packetizer.core.api;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * Options of one packetization. Build with {@link #builder()}; immutable.
 *
 * @param width           the packet width W: lanes per call (a power of two, 2..256)
 * @param params          each scalar parameter's kind, or empty to take them from a declared SIMD
 *                        prototype or default to varying (pointers: struct-of-arrays)
 * @param masked          add a trailing {@code <W x i1>} mask parameter: inactive lanes do nothing
 * @param memoryStrategy  gathers/scatters or guarded if-cascades for arbitrary addresses
 * @param verifyEachPhase run the verifier after every phase (slower; for tests and debugging)
 * @param prepareOptimize run sroa/early-cse/instcombine on the scalar copy before packetizing
 * @param cleanup         run clean-up passes on the packet function
 * @param skipThreshold   blocks whose estimated cost reaches this many simple vector instructions are
 *                        skipped at run time when no lane is active (0: every block; Integer.MAX_VALUE:
 *                        only where needed for safety). The estimate counts simple instructions one
 *                        each and calls, varying-address loads and stores and integer divisions per
 *                        lane on the target (issue 16's cost model; the remark gives it). Default {@value Builder#DEFAULT_SKIP_THRESHOLD}: measured with
 *                        {@code -Dpacketizer.bench.skipThreshold} over the benchmark kernels, a test
 *                        and branch around smaller blocks cost more than they saved (6 → 40: W8 geomean
 *                        3.27× → 3.43× coherent, 3.03× → 3.26× random inputs; 50–1000 the same as 40)
 * @param remarks         receives remarks as they are produced (may be a no-op)
 * @param mappings        user-supplied packet versions of functions
 * @param vectorMath      map libm/intrinsic math calls to a vector library when one is available
 * @param hardwareWidth   the hardware width N (float lanes of the widest vector register to use), or 0
 *                        to detect it from the target (see {@code org.packetizer.core.wrapper.HardwareWidth})
 * @param targetCpu       the CPU name detection uses instead of the function's/module's/host's
 * @param targetFeatures  the feature string detection uses instead of the function's/module's/host's
 * @param wrapperMode     how a width above the hardware width is served (thesis 4.6)
 * @param vectorAbi       publish the packet function under LLVM's vector function ABI: without a
 *                        SIMD name it is named {@code _ZGV<isa><mask><vlen><params>_<scalar>}, and
 *                        every call of the scalar function in the module gets the call-site attribute
 *                        {@code vector-function-abi-variant} naming it, so that LLVM's loop
 *                        vectorizer can call it (see {@link org.packetizer.core.mapping.VectorAbi});
 *                        it is compiled for the name's ISA and, where the x86 vector function ABI
 *                        passes it differently (masks, results wider than a register), published in
 *                        the ABI's form around LLVM's form {@code <name>.ir}
 * @param integerMasks    masks as integer vectors instead of {@code <W x i1>} (default: when the target
 *                        has no mask registers and W ≥ 4)
 * @param cAbi            publish the packet function in the C calling convention where LLVM's differs
 *                        (see {@link org.packetizer.core.mapping.SignatureAbi#buildCForm}): vector
 *                        arguments wider than the target's widest vector register in memory, as C
 *                        compilers pass them, and the mask as an integer bit mask; LLVM's form stays
 *                        as {@code <simd>.ir}. Not with {@code vectorAbi} (that ABI has its own form)
 * @param lanesMayBeRetyped the packet function will be re-typed to another lane count (see the builder)
 * @param scalable        scalable packets: the packet function takes {@code <vscale x W x T>} values and a
 *                        {@code <vscale x W x i1>} predicate (always masked) and computes vscale × W lanes;
 *                        for lane-wise code only (see {@code org.packetizer.core.scalable.ScalablePackets})
 * @param arrayDriver     when present, also emit a C-callable array driver for the packet function,
 *                        named by this pattern ({@code *} stands for the scalar function's name, e.g.
 *                        {@code *_map}); see {@code org.packetizer.core.driver.ArrayDriver} and docs/drivers.md
 * @param refill          lane refill in the array driver (OFF, ON, AUTO; see {@link Refill} and
 *                        {@code org.packetizer.core.driver.RefillDriver})
 * @param interleave      the array driver's interleave count: 0 (the default) chooses it per function by
 *                        {@code org.packetizer.core.driver.Interleave}'s rule, 1 never interleaves, 2 or 4
 *                        force IC independent W-lane chains per driver step (docs/drivers.md)
 * @param refillBatch     with refill: how many lanes must be free before the driver leaves the loop's
 *                        iterations to refill them, 1 to W (0, the default: W/2, the measured best;
 *                        docs/performance.md)
 * @param optimize        what the packet function's code is optimized for: {@link Optimize#SPEED} (the
 *                        default) or {@link Optimize#SIZE} (machine-code growth over the scalar function
 *                        first; see {@link Optimize})
 * @param remarkInstructions whether remarks carry their scalar instruction's text
 *                        ({@link Remark#instruction()}; default true, or the system property
 *                        {@code packetizer.remarkInstructions}). The text comes from a printout of the
 *                        scalar function, about 5 % of a packetization's CPU time; a caller that never
 *                        reads it (the {@code packetize} command without {@code --remarks}) sets false
 *                        and gets null instead. Cross-lane-race remarks keep their text either way (they
 *                        are warnings that name the instruction).
 * @param valueNames      whether the values and blocks the packetizer makes get names ({@code %m.bb3},
 *                        {@code %x.splat}, ...), which only a reader of the packet IR needs. Default
 *                        false (as clang's release builds discard value names), or the system property
 *                        {@code packetizer.valueNames}; the {@code packetize} command turns them on.
 *                        While the packet function is emitted and cleaned up, the context discards the
 *                        names of non-global values ({@code LLVMContextSetDiscardValueNames}); its own
 *                        setting is put back afterwards, and the scalar copy the remarks and the result's
 *                        shapes describe keeps its names. The emitted code is the same either way
 *                        (issue 16: naming was about 7 % of a packetization's main thread).
 */
public record PacketizerOptions(
    int width,
    Optional<List<ParamKind>> params,
    boolean masked,
    MemoryStrategy memoryStrategy,
    boolean verifyEachPhase,
    boolean prepareOptimize,
    boolean cleanup,
    int skipThreshold,
    Consumer<Remark> remarks,
    List<VectorMapping> mappings,
    VectorMath vectorMath,
    int hardwareWidth,
    Optional<String> targetCpu,
    Optional<String> targetFeatures,
    WrapperMode wrapperMode,
    boolean vectorAbi,
    IntegerMasks integerMasks,
    boolean cAbi,
    boolean scalable,
    boolean lanesMayBeRetyped,
    Optional<String> arrayDriver,
    Refill refill,
    int refillBatch,
    int interleave,
    Optimize optimize,
    boolean remarkInstructions,
    boolean valueNames) {

  public PacketizerOptions {
    Objects.requireNonNull(params);
    Objects.requireNonNull(memoryStrategy);
    Objects.requireNonNull(remarks);
    mappings = List.copyOf(mappings);
    Objects.requireNonNull(vectorMath);
    Objects.requireNonNull(integerMasks);
    if (hardwareWidth < 0) throw new IllegalArgumentException("hardware width " + hardwareWidth + " (0 means detect)");
    Objects.requireNonNull(targetCpu);
    Objects.requireNonNull(targetFeatures);
    Objects.requireNonNull(wrapperMode);
    Objects.requireNonNull(arrayDriver);
    Objects.requireNonNull(refill);
    Objects.requireNonNull(optimize);
    if (interleave != 0 && interleave != 1 && interleave != 2 && interleave != 4) {
      throw new IllegalArgumentException("interleave count " + interleave + " (0 means automatic; else 1, 2 or 4)");
    }
    if (refillBatch < 0) throw new IllegalArgumentException("refill batch " + refillBatch + " (0 means W/2; else 1 to W lanes)");
    arrayDriver.ifPresent(pattern -> {
      if (pattern.isBlank()) throw new IllegalArgumentException("the array driver name pattern is empty (e.g. *_map)");
    });
  }

  /** The default array driver name pattern: the scalar function's name followed by {@code _map}. */
  public static final String DEFAULT_ARRAY_DRIVER = "*_map";

  /** The array driver's name for {@code scalar} ({@code *} in the pattern replaced), if one is requested. */
  public Optional<String> arrayDriverName(String scalar) {
    return arrayDriver.map(pattern -> pattern.replace("*", scalar));
  }

  /** Vector math for sin, cos, exp, log, pow and friends. */
  public enum VectorMath {
    /** LLVM's vector intrinsics: the backend calls the scalar libm once per lane (bit-identical). */
    INTRINSICS,
    /**
     * glibc's libmvec ({@code _ZGV...} names) where it has a variant for the function's target
     * features, intrinsics otherwise (the default). glibc documents at most 4 ULP of error; use
     * {@code check.VectorMathReference} to compare such packet functions bit-exactly.
     */
    LIBMVEC
  }

  /**
   * What the packet function is optimized for, as a C compiler's {@code -O2} / {@code -Os}. SIZE keeps the
   * machine code near the scalar function's (issue 16's code-growth goal, at most 2.5 times): math calls
   * that SPEED routes to the module's bit-exact vector helpers (glibc's expf, logf, exp2f, log2f, powf,
   * sinf, cosf as vector IR, with their run-time probe, first-call path and per-lane fallback: 100 to 300
   * machine instructions each) become one loop over the lanes calling the scalar libm function
   * (bit-identical too, and code that does not grow with W), a sine and a cosine of one argument
   * included; loads from one varying pointer get no dynamic variants; and a packet function still more
   * than 2.5 times the scalar function's machine code, if the function writes at most its own local
   * variables (masked or not), becomes a loop
   * over the lanes running the scalar code ({@code ScalarLanes}). The measured speed cost is in
   * docs/performance.md ("code growth: a size mode", "the size mode's last resort").
   * The default is SPEED, or SIZE when the system property {@code packetizer.optimize} is {@code size}
   * (the benchmark's knob).
   */
  public enum Optimize {
    SPEED, SIZE;

    /** The default: {@code -Dpacketizer.optimize=size|speed}, else SPEED. */
    public static Optimize fromProperty() {
      String v = System.getProperty("packetizer.optimize", "speed");
      return switch (v) {
        case "size" -> SIZE;
        case "speed" -> SPEED;
        default -> throw new IllegalArgumentException("-Dpacketizer.optimize=" + v + ": expected size or speed");
      };
    }
  }

  /** The default of {@link Builder#remarkInstructions}: {@code -Dpacketizer.remarkInstructions=true|false}, else true. */
  public static boolean remarkInstructionsFromProperty() {
    String v = System.getProperty("packetizer.remarkInstructions", "true");
    return switch (v) {
      case "true" -> true;
      case "false" -> false;
      default -> throw new IllegalArgumentException("-Dpacketizer.remarkInstructions=" + v + ": expected true or false");
    };
  }

  /** The default of {@link Builder#valueNames}: {@code -Dpacketizer.valueNames=true|false}, else false. */
  public static boolean valueNamesFromProperty() { return valueNamesFromProperty(false); }

  /** {@code -Dpacketizer.valueNames=true|false}, else {@code otherwise} (the {@code packetize} command's default is true). */
  public static boolean valueNamesFromProperty(boolean otherwise) {
    String v = System.getProperty("packetizer.valueNames");
    if (v == null) return otherwise;
    return switch (v) {
      case "true" -> true;
      case "false" -> false;
      default -> throw new IllegalArgumentException("-Dpacketizer.valueNames=" + v + ": expected true or false");
    };
  }

  public static Builder builder() { return new Builder(); }

  public Builder toBuilder() {
    Builder b = new Builder();
    b.width = width;
    b.params = params.orElse(null);
    b.masked = masked;
    b.memoryStrategy = memoryStrategy;
    b.verifyEachPhase = verifyEachPhase;
    b.prepareOptimize = prepareOptimize;
    b.cleanup = cleanup;
    b.skipThreshold = skipThreshold;
    b.remarks = remarks;
    b.mappings = new ArrayList<>(mappings);
    b.vectorMath = vectorMath;
    b.hardwareWidth = hardwareWidth;
    b.targetCpu = targetCpu.orElse(null);
    b.targetFeatures = targetFeatures.orElse(null);
    b.wrapperMode = wrapperMode;
    b.vectorAbi = vectorAbi;
    b.integerMasks = integerMasks;
    b.cAbi = cAbi;
    b.scalable = scalable;
    b.lanesMayBeRetyped = lanesMayBeRetyped;
    b.arrayDriver = arrayDriver.orElse(null);
    b.refill = refill;
    b.refillBatch = refillBatch;
    b.interleave = interleave;
    b.optimize = optimize;
    b.remarkInstructions = remarkInstructions;
    b.valueNames = valueNames;
    return b;
  }

  public static final class Builder {
    private int width = 4;
    private List<ParamKind> params;
    private boolean masked;
    private MemoryStrategy memoryStrategy = MemoryStrategy.GATHER;
    private boolean verifyEachPhase;
    private boolean prepareOptimize = true;
    private boolean cleanup = true;
    public static final int DEFAULT_SKIP_THRESHOLD = 40;
    private int skipThreshold = DEFAULT_SKIP_THRESHOLD;
    private Consumer<Remark> remarks = r -> {};
    private List<VectorMapping> mappings = new ArrayList<>();
    private VectorMath vectorMath = VectorMath.LIBMVEC;
    private int hardwareWidth;
    private String targetCpu;
    private String targetFeatures;
    private WrapperMode wrapperMode = WrapperMode.AUTO;
    private boolean vectorAbi;
    private IntegerMasks integerMasks = IntegerMasks.AUTO;
    private boolean cAbi;
    private boolean scalable;
    private boolean lanesMayBeRetyped;
    private String arrayDriver;
    private Refill refill = Refill.OFF;
    private int refillBatch;
    private int interleave;
    private Optimize optimize = Optimize.fromProperty();
    private boolean remarkInstructions = remarkInstructionsFromProperty();
    private boolean valueNames = valueNamesFromProperty();

    public Builder width(int w) { this.width = w; return this; }
    public Builder params(List<ParamKind> p) { this.params = p == null ? null : List.copyOf(p); return this; }
    public Builder params(String letters) { return params(ParamKind.parseLetters(letters)); }
    public Builder masked(boolean m) { this.masked = m; return this; }
    public Builder memoryStrategy(MemoryStrategy s) { this.memoryStrategy = s; return this; }
    public Builder verifyEachPhase(boolean v) { this.verifyEachPhase = v; return this; }
    public Builder prepareOptimize(boolean v) { this.prepareOptimize = v; return this; }
    public Builder cleanup(boolean v) { this.cleanup = v; return this; }
    public Builder skipThreshold(int t) { this.skipThreshold = t; return this; }
    public Builder remarks(Consumer<Remark> sink) { this.remarks = Objects.requireNonNull(sink); return this; }
    public Builder addMapping(VectorMapping m) { this.mappings.add(m); return this; }
    public Builder vectorMath(VectorMath v) { this.vectorMath = v; return this; }
    /** The hardware width N; 0 (the default) detects it from the target. */
    public Builder hardwareWidth(int n) { this.hardwareWidth = n; return this; }
    /** The CPU name hardware-width detection reads (null: the function's, the module's or the host's). */
    public Builder targetCpu(String cpu) { this.targetCpu = cpu; return this; }
    /** The feature string hardware-width detection reads (null: the function's, the module's or the host's). */
    public Builder targetFeatures(String features) { this.targetFeatures = features; return this; }
    public Builder wrapperMode(WrapperMode m) { this.wrapperMode = Objects.requireNonNull(m); return this; }

    public Builder vectorAbi(boolean v) { this.vectorAbi = v; return this; }

    public Builder integerMasks(IntegerMasks m) { this.integerMasks = Objects.requireNonNull(m); return this; }

    /** Publish the packet function in C's calling convention where LLVM's differs (see {@link PacketizerOptions}). */
    public Builder cAbi(boolean v) { this.cAbi = v; return this; }
    /** Scalable packets ({@code <vscale x W x T>} and a predicate; see {@link PacketizerOptions}). */
    public Builder scalable(boolean v) { this.scalable = v; return this; }
    /**
     * The packet function will be re-typed to another lane count (the fixed-width step of scalable
     * packets): no memory layout whose byte offsets depend on W (interleaved private arrays, strided
     * span loads, per-lane table loads).
     */
    public Builder lanesMayBeRetyped(boolean v) { this.lanesMayBeRetyped = v; return this; }
    /**
     * Also emit an array driver named by {@code pattern} ({@code *}: the scalar function's name; null:
     * none). The driver maps the scalar function over arrays (docs/drivers.md).
     */
    public Builder arrayDriver(String pattern) { this.arrayDriver = pattern; return this; }

    /** {@link #arrayDriver(String)} with the default pattern {@value PacketizerOptions#DEFAULT_ARRAY_DRIVER} (or none). */
    public Builder arrayDriver(boolean on) { return arrayDriver(on ? DEFAULT_ARRAY_DRIVER : null); }

    /** Lane refill in the array driver (default OFF). */
    public Builder refill(Refill r) { this.refill = Objects.requireNonNull(r); return this; }

    /**
     * With refill: the driver leaves the loop's iterations to refill lanes once this many are free
     * (1 to W; more than W is taken as W). 0 (the default): W/2, the measured best on x86 (refilling
     * one lane at a time was 1.2-2.3x slower on random inputs, W/4 up to 1.2x; docs/performance.md).
     */
    public Builder refillBatch(int lanes) { this.refillBatch = lanes; return this; }

    /**
     * The array driver's interleave count: 0 (the default) automatic, 1 off, 2 or 4 forced (IC
     * independent W-lane packets per driver step; docs/drivers.md).
     */
    public Builder interleave(int ic) { this.interleave = ic; return this; }

    /** What the packet function's code is optimized for (default SPEED; see {@link Optimize}). */
    public Builder optimize(Optimize o) { this.optimize = Objects.requireNonNull(o); return this; }

    /**
     * Whether remarks carry their scalar instruction's text (default true; see
     * {@link PacketizerOptions#remarkInstructions()}): false saves a printout of the scalar function.
     */
    public Builder remarkInstructions(boolean v) { this.remarkInstructions = v; return this; }

    /**
     * Whether the values and blocks the packetizer makes get names (default false; see
     * {@link PacketizerOptions#valueNames()}).
     */
    public Builder valueNames(boolean v) { this.valueNames = v; return this; }

    public PacketizerOptions build() {
      return new PacketizerOptions(width, Optional.ofNullable(params), masked, memoryStrategy, verifyEachPhase,
          prepareOptimize, cleanup, skipThreshold, remarks, mappings, vectorMath, hardwareWidth,
          Optional.ofNullable(targetCpu), Optional.ofNullable(targetFeatures), wrapperMode, vectorAbi, integerMasks, cAbi, scalable, lanesMayBeRetyped,
          Optional.ofNullable(arrayDriver), refill, refillBatch, interleave, optimize,
          remarkInstructions, valueNames);
    }
  }
}
