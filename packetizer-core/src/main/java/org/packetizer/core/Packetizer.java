package org.packetizer.core;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.bytedeco.llvm.LLVM.LLVMModuleRef;
import org.packetizer.core.api.MemoryStrategy;
import org.packetizer.core.api.PacketizationException;
import org.packetizer.core.api.ParamKind;
import org.packetizer.core.api.WrapperMode;
import org.packetizer.core.api.Rejection;
import org.packetizer.core.api.PacketizationResult;
import org.packetizer.core.api.PacketizerOptions;
import org.packetizer.core.api.Remark;
import org.packetizer.core.driver.ArrayDriver;
import org.packetizer.core.ir.Block;
import org.packetizer.core.ir.Function;
import org.packetizer.core.ir.FunctionCloner;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.ir.Type;
import org.packetizer.core.ir.Value;
import org.packetizer.core.legality.Legality;
import org.packetizer.core.mapping.SignatureAbi;
import org.packetizer.core.mapping.VectorAbi;
import org.packetizer.core.pipeline.CalleePacketizer;

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
 * {@link PacketizationException} is thrown (with its {@link org.packetizer.core.api.Rejection}
 * reason when the function cannot be packetized as asked, also sent as a remark) and the module is
 * exactly as it was. This class is the facade; the phases run in {@link Pipeline}, in the order of
 * the thesis' chapter 4. Instances are
 * immutable and may be shared between threads, but one module (and its LLVM context) must only be
 * used by one thread at a time.
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
   * {@code #pragma omp simd} loops call them); these options give everything else. Variants already
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
    return out;
  }

  public PacketizationResult run(LLVMModuleRef module, String scalar, String simd) {
    return run(LlvmModule.borrow(module), scalar, simd);
  }

  /** Packetizes {@code scalarName} into a new function {@code simdName} (or fills its declaration). */
  public PacketizationResult run(LlvmModule module, String scalarName, String simdName) {
    Set<String> before = new HashSet<>();
    for (Function f : module.functions()) before.add(f.name());
    // a vector-function-ABI variant named for another ISA than the scalar function's is emitted for that
    // ISA from the start (vector math variants, the hardware width, nested packet versions of callees):
    // the module's functions carry the ISA's features during the run and get their own back afterwards
    Map<String, Optional<String>> savedFeatures = options.vectorAbi() ? overrideIsa(module, scalarName, simdName) : Map.of();
    try {
      if (options.scalable()) return runScalable(module, scalarName, simdName);
      PacketizationResult r = run(module, scalarName, simdName, null);
      if (options.arrayDriver().isPresent()) {
        r = ArrayDriver.build(module, r, options, (o, f, s) -> new Packetizer(o).run(module, f, s, null));
      }
      return r;
    } catch (RuntimeException | Error e) {
      // nested packet versions of callees made on the way are removed too (also on StackOverflowError,
      // OutOfMemoryError, ...: the module is left as it was whatever goes wrong)
      rollback(module, before);
      // (once: a wrapper's N-wide packetization runs through here too)
      if (e instanceof PacketizationException pe && pe.reason().isPresent() && REPORTED.add(pe)) reportRejection(pe, scalarName);
      throw e;
    } finally {
      for (var e : savedFeatures.entrySet()) {
        module.function(e.getKey()).ifPresent(f -> {
          if (e.getValue().isPresent()) f.setStringAttribute("target-features", e.getValue().get());
          else f.removeStringAttribute("target-features");
        });
      }
    }
  }

  private static final Set<Throwable> REPORTED =
      java.util.Collections.synchronizedSet(java.util.Collections.newSetFromMap(new java.util.WeakHashMap<>()));

  /** A rejection as a remark: the reason's tag, the message, function, block and instruction. */
  private void reportRejection(PacketizationException e, String scalarName) {
    options.remarks().accept(new Remark(Remark.Kind.REJECTED, e.function().orElse(scalarName), e.block().orElse(null),
        e.instruction().orElse(null), e.reason().orElseThrow().tag() + ": " + e.detail()));
  }

  /**
   * {@link PacketizerOptions#scalable}: the masked W-wide packet function, re-typed to vscale × W lanes
   * by {@link org.packetizer.core.scalable.ScalablePackets} (lane-wise code only).
   */
  private PacketizationResult runScalable(LlvmModule module, String scalarName, String simdName) {
    if (options.vectorAbi() || options.cAbi() || options.arrayDriver().isPresent()) {
      throw PacketizationException.invalid(Rejection.CONFLICTING_OPTIONS, "scalable packets are published as LLVM functions"
          + " only: not with the vector function ABI, the C form or an array driver", scalarName);
    }
    if (simdName == null || simdName.isBlank()) {
      throw PacketizationException.invalid(Rejection.INVALID_NAME, "the SIMD function needs a name", scalarName);
    }
    String fixedName = simdName + ".fixed";
    PacketizerOptions fixedOptions = options.toBuilder().scalable(false).lanesMayBeRetyped(true).masked(true).wrapperMode(WrapperMode.DIRECT)
        .vectorMath(PacketizerOptions.VectorMath.INTRINSICS).memoryStrategy(MemoryStrategy.GATHER).build();
    if (module.function(simdName).isPresent()) {
      throw PacketizationException.invalid(Rejection.INVALID_NAME, "@" + simdName + " already exists in the module", scalarName);
    }
    PacketizationResult fixed = new Packetizer(fixedOptions).run(module, scalarName, fixedName, null);
    for (int i = 0; i < fixed.params().size(); i++) {
      if (fixed.params().get(i) instanceof ParamKind.SoaPointer) {
        // its packet layout {<W x T>, ...} puts field j of lane k at a byte offset that depends on the lane count
        throw PacketizationException.unsupported(Rejection.STRUCT_OF_ARRAYS, "scalable packets: parameter #" + i
            + " is a struct-of-arrays pointer (s), whose memory layout depends on the number of lanes; give it kind u, v"
            + " or l", scalarName, null, null);
      }
    }
    Function fixedFn = module.function(fixedName).orElseThrow();
    org.packetizer.core.scalable.ScalablePackets.build(module, fixedFn, simdName, options.width(), scalarName);
    fixedFn.delete();
    Function scalable = module.function(simdName).orElseThrow();
    scalable.verify().ifPresent(msg -> {
      throw new PacketizationException(PacketizationException.Kind.INTERNAL,
          "internal error: the scalable packet function is invalid: " + msg, scalarName);
    });
    Remark note = new Remark(Remark.Kind.NOTE, scalarName, null, null, "scalable packet function @" + simdName + ": "
        + scalable.functionType() + " (vscale x " + options.width() + " lanes, last parameter the predicate)");
    options.remarks().accept(note);
    return fixed.withPacketFunction(simdName).withRemark(note);
  }

  /**
   * When {@code simdName} is a vector-function-ABI name for {@code scalarName} whose ISA differs from
   * the scalar function's, gives every defined function of the module that ISA's features and
   * returns their own (to restore); else an empty map.
   */
  private static Map<String, Optional<String>> overrideIsa(LlvmModule module, String scalarName, String simdName) {
    if (simdName == null) return Map.of();
    Optional<VectorAbi.Variant> v;
    try {
      v = VectorAbi.demangle(simdName).filter(x -> x.scalarName().equals(scalarName));
    } catch (IllegalArgumentException e) {
      return Map.of(); // reported by the run
    }
    Optional<Function> scalar = module.function(scalarName);
    if (v.isEmpty() || scalar.isEmpty()) return Map.of();
    char isa = v.get().isa();
    if (isa == 'n') return Map.of(); // AArch64: one Advanced SIMD width, nothing to switch
    String own = scalar.get().stringAttribute("target-features").orElse("");
    if (VectorAbi.isa(own) == isa) return Map.of();
    Map<String, Optional<String>> saved = new LinkedHashMap<>();
    for (Function f : module.functions()) {
      if (f.isDeclaration()) continue;
      Optional<String> old = f.stringAttribute("target-features");
      saved.put(f.name(), old);
      f.setStringAttribute("target-features", SignatureAbi.isaFeatures(isa, old.orElse("")));
    }
    return saved;
  }

  PacketizationResult run(LlvmModule module, String scalarName, String simdName, CalleePacketizer callees) {
    return new Pipeline(this, module, scalarName, callees).run(simdName);
  }

  /**
   * The guard against silent miscompiles: a packet function (or nested version, or wrapper) in which
   * no {@code ret} is reachable any more while the scalar function can return means the packet
   * function had undefined behaviour on every path (e.g. a call with another calling convention than
   * its callee's) that the clean-up turned into {@code unreachable}. That is our bug, never a result —
   * unless the scalar function has undefined behaviour on every path itself (random IR does): the
   * same clean-up on a copy of the scalar function tells.
   */
  static void requireReturnsLikeScalar(LlvmModule module, Function scalar, Function packet, String what, String scalarName) {
    if (!canReturn(scalar) || canReturn(packet)) return;
    Function probe = FunctionCloner.cloneInModule(module, scalar, "__packetizer.probe." + scalarName);
    try {
      LlvmModule.runPasses(probe, CLEANUP_PIPELINE, null);
      if (!canReturn(probe)) return;
    } finally {
      probe.delete();
    }
    throw new PacketizationException(PacketizationException.Kind.INTERNAL, "internal error: " + what + " @" + packet.name()
        + " cannot return (the clean-up reduced its body to 'unreachable': undefined behaviour on every path) while @"
        + scalarName + " can; refusing to emit it", scalarName, packet.entry().describe(), null);
  }

  /** Whether a {@code ret} is reachable from the entry block (and the function is not {@code noreturn}). */
  static boolean canReturn(Function f) {
    if (f.isDeclaration() || f.hasEnumAttribute("noreturn")) return false;
    Set<Block> seen = new HashSet<>();
    java.util.ArrayDeque<Block> work = new java.util.ArrayDeque<>();
    work.add(f.entry());
    while (!work.isEmpty()) {
      Block bl = work.pop();
      if (!seen.add(bl)) continue;
      Value t = bl.terminator();
      if (t == null) continue;
      if (t.opcode() == org.packetizer.core.ir.Opcode.RET) return true;
      work.addAll(bl.successors());
    }
    return false;
  }

  /**
   * Clean-up on the packet function: slots back to SSA, then the usual scalar optimizations. No loop
   * passes: {@code loop-mssa(licm)} run through LLVMRunPassesOnFunction grew the native heap by
   * 0.3–0.7 MB per packetization in EmbeddedPassExampleTest; codegen's MachineLICM hoists invariants.
   */
  public static final String CLEANUP_PIPELINE =
      "sroa,early-cse,instcombine<no-verify-fixpoint>,simplifycfg,gvn,"
          + "instcombine<no-verify-fixpoint>,adce,simplifycfg";

  /**
   * Removes every function made since {@code before}: the scalar copy, the packet function, packet
   * versions of callees (which may call each other, or the packet function, when recursive) and
   * declarations. Uses are replaced by poison first, so cycles of calls come apart.
   */
  static void rollback(LlvmModule module, Set<String> before) {
    try {
      List<Function> created = new ArrayList<>();
      for (Function f : module.functions()) if (!before.contains(f.name())) created.add(f);
      for (Function f : created) {
        if (f.hasUses()) f.replaceAllUsesWith(f.type().poison());
      }
      for (Function f : created) f.delete();
    } catch (RuntimeException ignored) {
      // best effort: the original exception matters more
    }
  }

  /**
   * {@link PacketizerOptions#cAbi}: where C passes the packet function differently from LLVM (vector
   * arguments wider than the target's widest register, the mask), {@code simdName} becomes the C
   * form around LLVM's form, renamed {@code <simdName>.ir}. Empty when LLVM's form is C's already.
   */
  Optional<Remark> publishInCForm(LlvmModule module, String scalarName, String simdName) {
    String triple = module.targetTriple();
    if (!triple.isEmpty() && !triple.startsWith("x86_64")) {
      throw PacketizationException.unsupported(Rejection.UNSUPPORTED_SIGNATURE, "the C calling convention form (cAbi) is implemented for x86-64 only; the"
          + " module's target is " + triple, scalarName, null, null);
    }
    Function natural = module.function(simdName).orElseThrow();
    if (natural.returnType().isAggregate() || natural.functionType().paramTypes().stream().anyMatch(Type::isAggregate)) {
      // LLVM returns a struct of packets in registers and splits aggregate arguments; no C prototype says that
      throw PacketizationException.unsupported(Rejection.UNSUPPORTED_SIGNATURE, "the C calling convention form (cAbi) cannot express a packet function that"
          + " takes or returns aggregates (" + natural.functionType() + "); call it from LLVM IR or without cAbi",
          scalarName, null, null);
    }
    // the target the packet function is compiled for: the options' (the CLI sets them on it), else its attributes
    // (the widest vector register C compilers use for arguments: 512 bits with AVX-512F, 256 with AVX, else 128)
    int reg = Math.max(128, 32 * org.packetizer.core.wrapper.HardwareWidth.of(
        options.targetCpu().orElse(natural.stringAttribute("target-cpu").orElse("")),
        options.targetFeatures().orElse(natural.stringAttribute("target-features").orElse(""))));
    if (!SignatureAbi.cFormDiffers(natural, options.masked(), reg)) return Optional.empty();
    if (options.masked() && options.width() > 64) {
      throw PacketizationException.invalid(Rejection.CONFLICTING_OPTIONS, "the C form of a masked packet function takes the mask as an integer bit mask:"
          + " at most 64 lanes, not " + options.width(), scalarName);
    }
    String irName = simdName + SignatureAbi.IR_FORM_SUFFIX;
    if (module.function(irName).isPresent() || module.global(irName).isPresent()) {
      throw PacketizationException.invalid(Rejection.INVALID_NAME, "@" + irName + " already exists in the module: it would name LLVM's form of @"
          + simdName, scalarName);
    }
    natural.setName(irName);
    SignatureAbi.buildCForm(module, natural, options.masked(), reg, simdName);
    return Optional.of(new Remark(Remark.Kind.NOTE, scalarName, null, null, "published in the C calling convention as @"
        + simdName + " (" + (SignatureAbi.cFormDiffers(natural, false, reg) ? "vectors wider than " + reg + " bits in memory"
        + (options.masked() ? ", " : "") : "") + (options.masked() ? "the mask as a " + Math.max(8, options.width())
        + "-bit integer, bit j for lane j" : "") + "); LLVM's form is @" + irName));
  }

  /**
   * Publishes {@code simdName} under the x86 vector function ABI: every function this packetization
   * made is compiled for the variant's ISA (b: SSE, c: AVX, d: AVX2, e: AVX-512F, whatever the scalar
   * function's features), and where the ABI passes the variant differently from LLVM's form (a
   * masked variant, a result wider than one register) {@code simdName} becomes a thin function in
   * the ABI's form around LLVM's form, renamed {@code <simdName>.ir}. LLVM's form is announced to the
   * call sites of the scalar function (LLVM's loop vectorizer calls it with a {@code <W x i1>} mask).
   */
  static Remark publishUnderVectorAbi(LlvmModule module, Function scalar, String simdName, VectorAbi.Variant abiVariant,
      Set<String> before) {
    String scalarName = scalar.name();
    for (Function f : SignatureAbi.createdSince(module, before)) {
      if (!f.isDeclaration()) SignatureAbi.applyIsa(f, abiVariant.isa());
    }
    Function natural = module.function(simdName).orElseThrow();
    String announced = simdName;
    String form = "";
    if (VectorAbi.needsAbiForm(abiVariant, natural)) {
      String irName = simdName + VectorAbi.IR_FORM_SUFFIX;
      if (module.function(irName).isPresent() || module.global(irName).isPresent()) {
        throw PacketizationException.invalid(Rejection.INVALID_NAME, "@" + irName + " already exists in the module: it would name LLVM's form of the"
            + " vector-function-ABI variant @" + simdName, scalarName);
      }
      natural.setName(irName);
      VectorAbi.buildAbiForm(module, natural, abiVariant, scalar, simdName);
      announced = irName;
      form = " (the ABI's form" + (abiVariant.masked() ? abiVariant.isa() == 'e' ? ", an integer bit mask" : ", a mask vector of"
          + " the characteristic type" : "") + (VectorAbi.needsAbiForm(new VectorAbi.Variant(abiVariant.isa(), false,
          abiVariant.vlen(), abiVariant.params(), scalarName), natural) ? ", the result through memory" : "")
          + "; LLVM's form" + (abiVariant.masked() ? " with a <" + abiVariant.vlen() + " x i1> mask" : "") + " is @" + irName
          + ")";
    }
    String entry = abiVariant.attributeEntry(announced);
    if (abiVariant.params().stream().anyMatch(k -> k.alignment() > 1)) {
      // LLVM's loop vectorizer matches variants by vlen, mask and parameter kinds but does not prove
      // an alignment promise at the call site: announcing this variant could make it call it with an
      // unaligned pointer
      return new Remark(Remark.Kind.NOTE, scalarName, null, null, "published as @" + simdName + form + " but not announced to"
          + " the call sites of @" + scalarName + ": its parameters promise an alignment that the loop vectorizer would not"
          + " check");
    }
    int sites = VectorAbi.annotateCallSites(module, scalarName, entry);
    // the functions holding those call sites will call the variant once vectorized: same registers
    long bits = SignatureAbi.widestVectorBits(natural.functionType(), null);
    for (Value u : scalar.users()) u.block().ifPresent(bl -> SignatureAbi.raise(bl.parent(), bits));
    return new Remark(Remark.Kind.NOTE, scalarName, null, null, "published under the vector function ABI as " + entry + "; "
        + sites + " call site(s) of @" + scalarName + " annotated" + form);
  }

}
