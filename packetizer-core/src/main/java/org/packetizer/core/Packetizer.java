package org.packetizer.core;

import java.util.ArrayList;
import java.util.List;
import org.bytedeco.llvm.LLVM.LLVMModuleRef;
import org.packetizer.core.api.PacketizationException;
import org.packetizer.core.api.PacketizationResult;
import org.packetizer.core.api.PacketizerOptions;
import org.packetizer.core.api.Rejection;
import org.packetizer.core.ir.Function;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.legality.Legality;
import org.packetizer.core.mapping.VectorAbi;

/**
 * Whole-function vectorization: turns a scalar function into a packet function computing W calls of
 * it at once.
 *
 * <pre>{@code
 * try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.load(Path.of("kernels.bc"))) {
 *   PacketizationResult r = Packetizer.packetize(m, "shade", "shade_simd", 8);
 * }
 * }</pre>
 *
 * The module changes only when packetization succeeds and the result verifies; on any failure a
 * {@link PacketizationException} is thrown (with its {@link Rejection}
 * reason when the function cannot be packetized as asked, also sent as a remark) and the module is
 * exactly as it was. This class is the facade; the phases run in {@link Pipeline}, in the order of
 * the thesis' chapter 4. Instances are immutable and may be shared between threads, but one module
 * (and its LLVM context) must only be used by one thread at a time.
 */
public final class Packetizer {
  /** The largest packet width accepted. */
  public static final int MAX_WIDTH = Legality.MAX_WIDTH;

  private final PacketizerOptions options;

  public Packetizer(PacketizerOptions options) {
    this.options = options;
  }

  public PacketizerOptions options() { return options; }

  /** Packetizes {@code scalar} into {@code simd} at width {@code width} with default options. */
  public static PacketizationResult packetize(LlvmModule module, String scalar, String simd, int width) {
    return new Packetizer(PacketizerOptions.builder().width(width).build()).run(module, scalar, simd);
  }

  /**
   * The same on a module owned by the caller (another tool on the same bytedeco bindings): the
   * module is borrowed, never disposed, and unchanged on failure.
   */
  public static PacketizationResult packetize(LLVMModuleRef module, String scalar, String simd, int width) {
    return packetize(LlvmModule.borrow(module), scalar, simd, width);
  }

  /**
   * OpenMP {@code declare simd}: packetizes every vector variant the scalar function declares (clang
   * lists them as {@code _ZGV...} string attributes, e.g. for {@code #pragma omp declare simd
   * uniform(p) linear(i) aligned(p:32)} with {@code -fopenmp-simd}) whose ISA the function's target
   * features support, each into a function of that name, with the variant's width, mask and parameter
   * shapes, compiled for its ISA and in the x86 vector function ABI's calling convention (GCC's
   * {@code #pragma omp simd} loops call them); these options give everything else. On AArch64 with SVE
   * the scalable variants {@code _ZGVsMx<params>_<name>} (what clang names a {@code declare simd}
   * without {@code simdlen} for +sve) become scalable packet functions published as {@code
   * --vector-abi --scalable} publishes them, with vscale × (128 / the widest lane of the result and the
   * varying parameters) lanes; fixed-length SVE variants ({@code _ZGVsM4...}) are not made. Variants already
   * defined in the module are skipped.
   * Calls of the scalar function are annotated for LLVM's loop vectorizer (except aligned variants,
   * see {@link PacketizerOptions#vectorAbi}).
   *
   * @throws PacketizationException for the first variant that fails (variants made before stay)
   */
  public List<PacketizationResult> runDeclaredVariants(LlvmModule module, String scalarName) {
    Function scalar = module.function(scalarName).orElseThrow(() -> Legality.noSuchFunction(module, scalarName));
    char supported = VectorAbi.isa(module.targetTriple(), scalar.stringAttribute("target-features").orElse(""));
    List<PacketizationResult> out = new ArrayList<>();
    List<VectorAbi.Variant> variants = new ArrayList<>(VectorAbi.declaredVariants(scalar));
    // best ISA first: LLVM's loop vectorizer takes the first announced variant that fits a call
    variants.sort(java.util.Comparator.comparing(VectorAbi.Variant::isa).reversed());
    for (VectorAbi.Variant v : variants) {
      if (!VectorAbi.isaOfTarget(v.isa(), module.targetTriple()) || v.isa() > supported
          || module.function(v.mangledName()).map(f -> !f.isDeclaration()).orElse(false)) continue;
      PacketizerOptions o = options.toBuilder().width(v.vlen()).masked(v.masked()).params(v.params()).vectorAbi(true).arrayDriver((String) null).build();
      out.add(new Packetizer(o).run(module, scalarName, v.mangledName()));
    }
    // SVE: clang names the variants of a declare simd without simdlen _ZGVsMx<params>_<name> for +sve targets;
    // they are scalable packet functions (vscale x lanes per 128 bits of the widest lane), published as --vector-abi
    // --scalable publishes them
    if (org.packetizer.core.ir.TargetArch.of(module.targetTriple()) == org.packetizer.core.ir.TargetArch.AARCH64
        && hasSve(scalar.stringAttribute("target-features").orElse(""))) {
      for (VectorAbi.ScalableVariant v : VectorAbi.declaredScalableVariants(scalar)) {
        if (module.function(v.mangledName()).map(f -> !f.isDeclaration()).orElse(false)) continue;
        PacketizerOptions o = options.toBuilder().width(VectorAbi.sveLanesPer128(scalar, v.params())).masked(true)
            .params(v.params()).scalable(true).vectorAbi(true).arrayDriver((String) null).build();
        out.add(new Packetizer(o).run(module, scalarName, null));
      }
    }
    return out;
  }

  private static boolean hasSve(String features) {
    for (String f : features.split(",")) if (f.strip().startsWith("+sve")) return true;
    return false;
  }

  public PacketizationResult run(LLVMModuleRef module, String scalar, String simd) {
    return run(LlvmModule.borrow(module), scalar, simd);
  }

  /** Packetizes {@code scalarName} into a new function {@code simdName} (or fills its declaration). */
  public PacketizationResult run(LlvmModule module, String scalarName, String simdName) {
    return Pipeline.run(options, module, scalarName, simdName);
  }

  /** Clean-up on the packet function (see {@link Pipeline#CLEANUP_PIPELINE}). */
  public static final String CLEANUP_PIPELINE = Pipeline.CLEANUP_PIPELINE;

  /** Clean-up on the packet function of a prepared scalar copy (see {@link Pipeline#CLEANUP_AFTER_PREPARE}). */
  public static final String CLEANUP_AFTER_PREPARE = Pipeline.CLEANUP_AFTER_PREPARE;

  /** See {@link Pipeline#requireReturnsLikeScalar}. */
  static void requireReturnsLikeScalar(LlvmModule module, Function scalar, Function packet, String what, String scalarName) {
    Pipeline.requireReturnsLikeScalar(module, scalar, packet, what, scalarName);
  }

  /** See {@link Pipeline#canReturn}. */
  static boolean canReturn(Function f) { return Pipeline.canReturn(f); }
}
