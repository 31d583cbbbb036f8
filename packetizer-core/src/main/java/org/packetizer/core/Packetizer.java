package org.packetizer.core;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.bytedeco.llvm.LLVM.LLVMModuleRef;
import org.packetizer.analysis.cfg.CfgAnalyses;
import org.packetizer.analysis.cfg.IrreducibleCfgException;
import org.packetizer.analysis.divergence.DivergenceAnalysis;
import org.packetizer.analysis.divergence.DivergenceInfo;
import org.packetizer.analysis.divergence.Shape;
import org.packetizer.core.api.MemoryStrategy;
import org.packetizer.core.api.PacketizationException;
import org.packetizer.core.api.PacketizationResult;
import org.packetizer.core.api.PacketizerOptions;
import org.packetizer.core.api.ParamKind;
import org.packetizer.core.api.Remark;
import org.packetizer.core.api.WrapperMode;
import org.packetizer.core.adapt.LlvmSsaFunction;
import org.packetizer.core.driver.ArrayDriver;
import org.packetizer.core.ir.Block;
import org.packetizer.core.ir.Function;
import org.packetizer.core.ir.FunctionCloner;
import org.packetizer.core.ir.LlvmException;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.ir.Type;
import org.packetizer.core.ir.Value;
import org.packetizer.core.widen.CompositePackets;
import org.packetizer.core.linearize.Schedule;
import org.packetizer.core.mapping.SignatureAbi;
import org.packetizer.core.mapping.SpmdIntrinsics;
import org.packetizer.core.mapping.UserMappings;
import org.packetizer.core.mapping.VectorAbi;
import org.packetizer.core.pipeline.CalleePacketizer;
import org.packetizer.core.pipeline.PacketizationState;
import org.packetizer.core.pipeline.PureCalls;
import org.packetizer.core.prepare.Preparer;
import org.packetizer.core.widen.MaskDemotion;
import org.packetizer.core.widen.PacketEmitter;
import org.packetizer.core.pipeline.SoaPointers;
import org.packetizer.core.pipeline.UniformMemory;
import org.packetizer.core.wrapper.LoopWrapper;

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
 * {@link PacketizationException} is thrown and the module is exactly as it was. Instances are
 * immutable and may be shared between threads, but one module (and its LLVM context) must only be
 * used by one thread at a time.
 */
public final class Packetizer {
  /** The largest packet width accepted. */
  public static final int MAX_WIDTH = 256;

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
    Function scalar = module.function(scalarName).orElseThrow(() -> PacketizationException.invalid(
        "no function @" + scalarName + " in module '" + module.identifier() + "'" + suggest(module, scalarName), null));
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

  /**
   * {@link PacketizerOptions#scalable}: the masked W-wide packet function, re-typed to vscale × W lanes
   * by {@link org.packetizer.core.scalable.ScalablePackets} (lane-wise code only).
   */
  private PacketizationResult runScalable(LlvmModule module, String scalarName, String simdName) {
    if (options.vectorAbi() || options.cAbi() || options.arrayDriver().isPresent()) {
      throw PacketizationException.invalid("scalable packets are published as LLVM functions only: not with the vector"
          + " function ABI, the C form or an array driver", scalarName);
    }
    if (simdName == null || simdName.isBlank()) throw PacketizationException.invalid("the SIMD function needs a name", scalarName);
    String fixedName = simdName + ".fixed";
    PacketizerOptions fixedOptions = options.toBuilder().scalable(false).masked(true).wrapperMode(WrapperMode.DIRECT)
        .vectorMath(PacketizerOptions.VectorMath.INTRINSICS).memoryStrategy(MemoryStrategy.GATHER).build();
    if (module.function(simdName).isPresent()) {
      throw PacketizationException.invalid("@" + simdName + " already exists in the module", scalarName);
    }
    PacketizationResult fixed = new Packetizer(fixedOptions).run(module, scalarName, fixedName, null);
    for (int i = 0; i < fixed.params().size(); i++) {
      if (fixed.params().get(i) instanceof ParamKind.SoaPointer) {
        // its packet layout {<W x T>, ...} puts field j of lane k at a byte offset that depends on the lane count
        throw PacketizationException.unsupported("scalable packets: parameter #" + i + " is a struct-of-arrays pointer (s),"
            + " whose memory layout depends on the number of lanes; give it kind u, v or l", scalarName, null, null);
      }
    }
    Function fixedFn = module.function(fixedName).orElseThrow();
    org.packetizer.core.scalable.ScalablePackets.build(module, fixedFn, simdName, options.width(), scalarName);
    fixedFn.delete();
    // callees' packet versions the fixed function called stay (the scalable one calls none: it is lane-wise)
    Function scalable = module.function(simdName).orElseThrow();
    verify(module, scalable, "after re-typing to scalable vectors", scalarName);
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

  private PacketizationResult run(LlvmModule module, String scalarName, String simdName, CalleePacketizer callees) {
    // a nested run (a callee's packet version) sees the caller's packet function half-emitted
    boolean topLevel = callees == null;
    if (callees == null) {
      // callees are packetized at this function's width: the wrapper decision is the top level's
      callees = new CalleePacketizer((callee, name, kinds, nested) -> new Packetizer(options.toBuilder().params(kinds)
          .masked(true).wrapperMode(WrapperMode.DIRECT).vectorAbi(false).build()).run(module, callee, name, nested));
    }
    long start = System.nanoTime();
    Set<String> namesBefore = new HashSet<>();
    for (Function f : module.functions()) namesBefore.add(f.name());
    Map<String, Long> phases = new LinkedHashMap<>();
    long[] mark = {start};
    java.util.function.Consumer<String> phase = name -> {
      long now = System.nanoTime();
      phases.merge(name, now - mark[0], Long::sum);
      mark[0] = now;
    };
    int w = options.width();
    validateWidth(w, scalarName);
    boolean unnamed = simdName == null || simdName.isBlank();
    if (unnamed && !options.vectorAbi()) {
      throw PacketizationException.invalid("the SIMD function needs a name (or publish it under the vector function ABI:"
          + " PacketizerOptions.vectorAbi(true))", scalarName);
    }
    if (options.cAbi() && options.vectorAbi()) {
      throw PacketizationException.invalid("cAbi and vectorAbi exclude each other: the vector function ABI has its own"
          + " calling convention", scalarName);
    }
    if (options.vectorAbi()) {
      org.packetizer.core.ir.TargetArch arch = org.packetizer.core.ir.TargetArch.of(module.targetTriple());
      if (arch != org.packetizer.core.ir.TargetArch.X86 && arch != org.packetizer.core.ir.TargetArch.AARCH64) {
        throw PacketizationException.unsupported("the vector function ABI is implemented for x86-64 (_ZGV[bcde]) and AArch64"
            + " Advanced SIMD (_ZGVn) only; the module's target is " + module.targetTriple() + "; publish the packet function"
            + " under a name of your own", scalarName, null, null);
      }
    }
    if (unnamed) simdName = vectorAbiVariant(module, scalarName, null).mangledName();
    if (simdName.equals(scalarName)) {
      throw PacketizationException.invalid("the SIMD function must have a different name than the scalar one", scalarName);
    }
    Function scalar = module.function(scalarName).orElseThrow(() -> PacketizationException.invalid(
        "no function @" + scalarName + " in module '" + module.identifier() + "'" + suggest(module, scalarName), null));
    if (scalar.isDeclaration()) {
      throw PacketizationException.invalid("@" + scalarName + " is only declared; packetization needs its body", scalarName);
    }
    if (scalar.isVarArg()) {
      throw PacketizationException.unsupported("variadic functions cannot be packetized", scalarName, null, null);
    }
    // LLVM's passes assume valid IR (they may crash on broken input), and a broken input would
    // otherwise surface as an "internal error" about the packet function.
    // (Only at the top level: a nested packetization of a callee runs while the caller's packet
    // function is still under construction.)
    Optional<String> broken = topLevel ? module.verify() : Optional.empty();
    if (broken.isPresent()) {
      throw PacketizationException.invalid("the input module '" + module.identifier() + "' is not valid IR (LLVM's verifier: "
          + broken.get() + ")", scalarName);
    }
    Optional<Function> declared = module.function(simdName);
    if (declared.isPresent() && !declared.get().isDeclaration()) {
      throw PacketizationException.invalid("@" + simdName + " is already defined in the module", scalarName);
    }
    if (declared.isEmpty() && (module.global(simdName).isPresent()
        || module.hasAlias(simdName))) {
      // LLVM would silently name the packet function @<name>.1
      throw PacketizationException.invalid("@" + simdName + " already names a global variable or alias in the module;"
          + " choose another name for the SIMD function", scalarName);
    }
    Preparer.checkSupported(scalar, scalarName);
    List<ParamKind> kinds = paramKinds(module, scalar, declared, simdName, scalarName);
    VectorAbi.Variant abiVariant = null;
    if (options.vectorAbi()) {
      // a target named by the ABI (e.g. an OpenMP declare simd variant) is published under its own name
      abiVariant = VectorAbi.demangle(simdName).filter(v -> v.scalarName().equals(scalarName))
          .orElse(vectorAbiVariant(module, scalarName, kinds));
    }
    Type packetType = packetFunctionType(module, scalar, kinds, w);
    if (abiVariant != null) checkAbiVariantFits(module, scalar, abiVariant, packetType, kinds, scalarName);
    phase.accept("check-input");
    declared.ifPresent(d -> checkPrototype(d, packetType, scalar, kinds, scalarName));
    // thesis 4.6: a width above the hardware width may be served by an N-wide function and a wrapper
    Optional<PacketizationResult> wrapped = LoopWrapper.packetizeIfWider(module, scalar, simdName, kinds, packetType, declared, options,
        // (the N-wide function gets no array driver: the driver belongs to the W-wide function)
        (o, m, f, s) -> new Packetizer(o.toBuilder().arrayDriver((String) null).build()).run(m, f, s));
    if (wrapped.isPresent()) {
      requireReturnsLikeScalar(module, scalar, module.function(simdName).orElseThrow(), "the wrapper", scalarName);
      // the W-wide wrapper is what callers see: it is the variant published and announced
      if (abiVariant == null) {
        Optional<Remark> c = topLevel && options.cAbi() ? publishInCForm(module, scalarName, simdName) : Optional.empty();
        if (c.isEmpty()) return wrapped.get();
        options.remarks().accept(c.get());
        return wrapped.get().withRemark(c.get());
      }
      Remark note = publishUnderVectorAbi(module, scalar, simdName, abiVariant, namesBefore);
      options.remarks().accept(note);
      return wrapped.get().withRemark(note);
    }

    Set<String> functionsBefore = new HashSet<>();
    for (Function f : module.functions()) functionsBefore.add(f.name());
    Function temp = null;
    Function packet = null;
    try {
      temp = FunctionCloner.cloneInModule(module, scalar, "__packetizer.scalar." + scalarName);
      Preparer.prepare(module, temp, options, scalarName);
      phase.accept("prepare");
      PureCalls pure = new PureCalls();
      SoaPointers soa = SoaPointers.find(temp, kinds, scalarName);
      SpmdIntrinsics spmd = new SpmdIntrinsics(module, w, scalarName);
      // loads of shared memory that each lane reads back from its own writes (UniformMemory)
      Set<Value> ownCopies = new HashSet<>();
      LlvmSsaFunction ssa = new LlvmSsaFunction(module, temp, pure,
          (v, current) -> ownCopies.contains(v) ? Optional.of(Shape.VARYING)
              : soa.customShape(v, current).or(() -> spmd.customShape(v, current)));
      CfgAnalyses<Block> cfg;
      try {
        cfg = CfgAnalyses.of(ssa.cfg());
      } catch (IrreducibleCfgException e) {
        throw PacketizationException.unsupported("irreducible control flow remained after fix-irreducible: " + e.getMessage(),
            scalarName, null, null);
      }
      Map<Value, Shape> seeds = new LinkedHashMap<>();
      for (int i = 0; i < temp.paramCount(); i++) seeds.put(temp.param(i), seedShape(kinds.get(i)));
      DivergenceInfo<Block, Value> div = DivergenceAnalysis.run(ssa, cfg, seeds, options.masked());
      UniformMemory shared = UniformMemory.analyse(ssa, cfg, div, soa, call -> mayAccessMemory(call, pure, spmd));
      // a lane's own copy is varying, which can make more values varying and more blocks partial:
      // repeat until the set of such loads no longer grows
      for (int round = 0; round < 8 && !ownCopies.containsAll(shared.privateLoads()); round++) {
        ownCopies.addAll(shared.privateLoads());
        div = DivergenceAnalysis.run(ssa, cfg, seeds, options.masked());
        shared = UniformMemory.analyse(ssa, cfg, div, soa, call -> mayAccessMemory(call, pure, spmd));
      }
      Schedule<Block> schedule = Schedule.compute(cfg);
      UserMappings mappings = new UserMappings(options.mappings(), module, w, scalarName);
      PacketizationState state = new PacketizationState(module, options, scalarName, temp, ssa, cfg, div, schedule,
          kinds, mappings, pure, soa, callees);
      state.setSharedMemory(shared);
      phase.accept("analyze");
      packet = module.addFunction("__packetizer.packet." + simdName, packetType);
      for (var e : scalar.stringAttributes().entrySet()) {
        // the scalar function's declare-simd variant names (clang's _ZGV... attributes) are not the packet's
        if (!e.getKey().startsWith("_ZGV")) packet.setStringAttribute(e.getKey(), e.getValue());
      }
      // A nested packet version (a callee's) is called only by packet functions, through IrBuilder.call,
      // which gives every call its callee's convention: it keeps the C convention whatever the callee's
      // was. Copying it would be wrong for some: LLVM 20's x86-64 coldcc restores xmm0 (the vector
      // return register) on return, x86_vectorcallcc renames the symbol, ghccc/hipe have no returns.
      if (topLevel) packet.setCallingConvention(scalar.publishedCallingConvention());
      // SVE / RISC-V V at a fixed length (clang's -msve-vector-bits, TargetSpec): without it the back end
      // would split the packet's vectors into 128-bit pieces
      Optional<Long> vscaleRange = scalar.enumAttributeValue("vscale_range");
      if (vscaleRange.isPresent()) packet.setEnumAttributeValue("vscale_range", vscaleRange.get());
      for (String attr : List.of("nounwind", "willreturn", "norecurse", "mustprogress")) {
        if (scalar.hasEnumAttribute(attr)) packet.addEnumAttribute(attr);
      }
      callees.enter(scalarName, kinds, w, options.masked(), packet.name());
      try {
        new PacketEmitter(state, packet).emit();
      } finally {
        callees.exit(scalarName, kinds, w, options.masked());
        state.flushRemarks();
      }
      int rawInstructions = packet.instructionCount();
      phase.accept("emit");
      verify(module, packet, "after emitting the packet function", scalarName);
      phase.accept("verify");
      if (options.cleanup()) {
        LlvmModule.runPasses(packet, CLEANUP_PIPELINE, null);
        // (after the clean-up: InstCombine would fold integer masks back to <W x i1>)
        boolean intMasks = switch (options.integerMasks()) {
          case ALWAYS -> true;
          case NEVER -> false;
          case AUTO -> MaskDemotion.worthwhile(packet, w, options.targetCpu().orElse(null), options.targetFeatures().orElse(null));
        };
        if (intMasks) MaskDemotion.run(packet, w);
        requireReturnsLikeScalar(module, scalar, packet, "the packet function", scalarName);
        phase.accept("cleanup");
        if (options.verifyEachPhase()) verify(module, packet, "after clean-up", scalarName);
        phase.accept("verify");
      }
      List<PacketizationResult.BlockInfo> blockInfo = new ArrayList<>();
      for (Block bl : schedule.order()) {
        List<String> succ = new ArrayList<>();
        for (Block s2 : bl.successors()) succ.add(s2.name());
        List<String> vary = new ArrayList<>();
        List<String> uni = new ArrayList<>();
        for (Value v : ssa.instructions(bl)) {
          if (v.type().isVoid() || v.name().isEmpty()) continue;
          (div.isUniform(v) ? uni : vary).add("%" + v.name());
        }
        var loop = cfg.loops().loopOf(bl).filter(l -> l.header().equals(bl));
        boolean partial = div.mayBePartial(bl);
        boolean divergent = div.isDivergentBranch(bl);
        boolean kept = !partial && !divergent && ssa.branchCondition(bl).isPresent();
        blockInfo.add(new PacketizationResult.BlockInfo(bl.name(), succ, partial, divergent, kept, loop.isPresent(),
            loop.map(div::isDivergentLoop).orElse(false), vary, uni));
      }
      Map<String, String> shapes = new LinkedHashMap<>();
      int uniformValues = 0;
      int varyingValues = 0;
      for (Block bl : schedule.order()) {
        for (Value v : ssa.instructions(bl)) {
          if (v.type().isVoid()) continue;
          Shape s = div.shape(v);
          if (s.isUniform()) uniformValues++;
          else varyingValues++;
          if (!v.name().isEmpty()) shapes.put("%" + v.name(), s.toString());
        }
      }
      temp.delete();
      temp = null;
      if (declared.isPresent()) {
        declared.get().replaceAllUsesWith(packet);
        declared.get().delete();
      }
      packet.setName(simdName);
      if (!packet.name().equals(simdName)) {
        throw new PacketizationException(PacketizationException.Kind.INTERNAL, "internal error: the packet function could not be"
            + " named @" + simdName + " (LLVM named it @" + packet.name() + ")", scalarName);
      }
      // vectors in the signature travel as a C caller compiled for this target passes them
      SignatureAbi.fitCallers(packet);
      verify(module, packet, "at the end", scalarName);
      if (abiVariant != null) {
        Remark note = publishUnderVectorAbi(module, scalar, simdName, abiVariant, namesBefore);
        state.remark(note.kind(), null, null, note.message());
      } else if (topLevel && options.cAbi()) {
        publishInCForm(module, scalarName, simdName).ifPresent(n -> state.remark(n.kind(), null, null, n.message()));
      }
      var stats = state.stats();
      return new PacketizationResult(scalarName, simdName, w, kinds, shapes, uniformValues, varyingValues,
          stats.blocks, stats.linearizedBranches, stats.keptBranches, stats.selects, stats.vectorLoads, stats.vectorStores,
          stats.gathers, stats.scatters, stats.cascades, stats.vectorCalls, stats.scalarizedCalls,
          scalar.instructionCount(), rawInstructions, packet.instructionCount(), List.copyOf(state.remarks()),
          blockInfo, System.nanoTime() - start, finish(phases, phase));
    } catch (RuntimeException e) {
      rollback(module, functionsBefore);
      if (e instanceof PacketizationException pe) throw pe;
      if (e instanceof LlvmException le) {
        throw new PacketizationException(PacketizationException.Kind.INTERNAL, le.getMessage(), scalarName);
      }
      PacketizationException pe = new PacketizationException(PacketizationException.Kind.INTERNAL,
          "internal error: " + e, scalarName);
      pe.initCause(e);
      throw pe;
    } catch (Error e) {
      rollback(module, functionsBefore);
      throw e;
    }
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

  private static void verify(LlvmModule module, Function f, String when, String fn) {
    // verify the function alone first: an enclosing packetization may have a function under construction
    if (f.isValid()) {
      return;
    }
    Optional<String> msg = module.verify();
    if (msg.isPresent()) {
      if (Boolean.getBoolean("packetizer.debug")) System.err.println(module.toIr());
      throw new PacketizationException(PacketizationException.Kind.INTERNAL,
          "internal error: the packet function is invalid " + when + ": " + msg.get(), fn);
    }
  }

  /**
   * Removes every function made since {@code before}: the scalar copy, the packet function, packet
   * versions of callees (which may call each other, or the packet function, when recursive) and
   * declarations. Uses are replaced by poison first, so cycles of calls come apart.
   */
  private static void rollback(LlvmModule module, Set<String> before) {
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
  private Optional<Remark> publishInCForm(LlvmModule module, String scalarName, String simdName) {
    String triple = module.targetTriple();
    if (!triple.isEmpty() && !triple.startsWith("x86_64")) {
      throw PacketizationException.unsupported("the C calling convention form (cAbi) is implemented for x86-64 only; the"
          + " module's target is " + triple, scalarName, null, null);
    }
    Function natural = module.function(simdName).orElseThrow();
    if (natural.returnType().isAggregate() || natural.functionType().paramTypes().stream().anyMatch(Type::isAggregate)) {
      // LLVM returns a struct of packets in registers and splits aggregate arguments; no C prototype says that
      throw PacketizationException.unsupported("the C calling convention form (cAbi) cannot express a packet function that"
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
      throw PacketizationException.invalid("the C form of a masked packet function takes the mask as an integer bit mask:"
          + " at most 64 lanes, not " + options.width(), scalarName);
    }
    String irName = simdName + SignatureAbi.IR_FORM_SUFFIX;
    if (module.function(irName).isPresent() || module.global(irName).isPresent()) {
      throw PacketizationException.invalid("@" + irName + " already exists in the module: it would name LLVM's form of @"
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
   * The variant's ISA must be the module's target family's, and an Advanced SIMD variant must fit the
   * AArch64 vector function ABI as LLVM passes it: every vector in at most four 128-bit registers (the
   * ABI's extended short vectors are homogeneous aggregates of up to four), and a mask's lane size
   * (the narrowest data size) known.
   */
  private static void checkAbiVariantFits(LlvmModule module, Function scalar, VectorAbi.Variant v, Type packetType,
      List<ParamKind> kinds, String fn) {
    if (!VectorAbi.isaOfTarget(v.isa(), module.targetTriple())) {
      throw PacketizationException.invalid("the vector-function-ABI ISA '" + v.isa() + "' of @" + v.mangledName()
          + " is not one of the module's target (" + (module.targetTriple().isEmpty() ? "the host" : module.targetTriple())
          + "; x86-64: b, c, d, e; AArch64: n)", fn);
    }
    if (v.isa() != 'n') return;
    List<Type> types = new ArrayList<>(packetType.paramTypes());
    types.add(packetType.returnType());
    for (Type t : types) {
      if (t.isVector() && module.allocSize(t) * 8 > 512) {
        throw PacketizationException.unsupported("the AArch64 vector function ABI passes a vector of more than four 128-bit"
            + " registers (" + t + ") in memory, which this packetizer does not publish; choose a smaller width", fn, null, null);
      }
    }
    if (v.masked()) {
      try {
        VectorAbi.narrowestBits(scalar, kinds);
      } catch (IllegalArgumentException e) {
        throw PacketizationException.unsupported("a masked Advanced SIMD variant: " + e.getMessage(), fn, null, null);
      }
    }
  }

  /**
   * Publishes {@code simdName} under the x86 vector function ABI: every function this packetization
   * made is compiled for the variant's ISA (b: SSE, c: AVX, d: AVX2, e: AVX-512F, whatever the scalar
   * function's features), and where the ABI passes the variant differently from LLVM's form (a
   * masked variant, a result wider than one register) {@code simdName} becomes a thin function in
   * the ABI's form around LLVM's form, renamed {@code <simdName>.ir}. LLVM's form is announced to the
   * call sites of the scalar function (LLVM's loop vectorizer calls it with a {@code <W x i1>} mask).
   */
  private static Remark publishUnderVectorAbi(LlvmModule module, Function scalar, String simdName, VectorAbi.Variant abiVariant,
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
        throw PacketizationException.invalid("@" + irName + " already exists in the module: it would name LLVM's form of the"
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

  private static Map<String, Long> finish(Map<String, Long> phases, java.util.function.Consumer<String> phase) {
    phase.accept("finish");
    Map<String, Long> ordered = new LinkedHashMap<>();
    for (String p : PacketizationResult.PHASES) if (phases.containsKey(p)) ordered.put(p, phases.get(p));
    return ordered;
  }

  static void validateWidth(int w, String fn) {
    if (w < 2 || w > MAX_WIDTH || Integer.bitCount(w) != 1) {
      String why = w == 1 ? " (width 1 is the scalar function itself)" : w <= 0 ? " (must be positive)"
          : w > MAX_WIDTH ? " (larger than " + MAX_WIDTH + ")" : " (not a power of two)";
      throw PacketizationException.invalid("invalid width " + w + why + "; use a power of two from 2 to " + MAX_WIDTH, fn);
    }
  }

  private static Shape seedShape(ParamKind k) {
    return switch (k) {
      case ParamKind.Varying v -> Shape.VARYING;
      // an alignment promise is about lane 0's value (the base): it seeds the shape's alignment
      case ParamKind.Uniform u -> Shape.uniform(Math.min(u.alignment(), DivergenceAnalysis.MAX_ALIGNMENT));
      case ParamKind.Linear l -> Shape.linear(l.step(), Math.min(l.alignment(), DivergenceAnalysis.MAX_ALIGNMENT));
      // scaled struct-of-arrays offsets are W times the scalar ones, so the scalar alignment is a lower bound
      case ParamKind.SoaPointer s -> Shape.uniform(Math.min(s.alignment(), DivergenceAnalysis.MAX_ALIGNMENT));
    };
  }

  /**
   * The vector-function-ABI variant the options publish for {@code scalarName}: ISA from the scalar
   * function's target features, mask and vlen from the options, parameter tokens from the kinds
   * (given, or the defaults when null).
   */
  private VectorAbi.Variant vectorAbiVariant(LlvmModule module, String scalarName, List<ParamKind> kinds) {
    Function scalar = module.function(scalarName).orElseThrow(() -> PacketizationException.invalid(
        "no function @" + scalarName + " in module '" + module.identifier() + "'" + suggest(module, scalarName), null));
    List<ParamKind> ks = kinds != null ? kinds : paramKinds(module, scalar, Optional.empty(), null, scalarName);
    try {
      return new VectorAbi.Variant(VectorAbi.isa(module.targetTriple(), scalar.stringAttribute("target-features").orElse("")), options.masked(),
          options.width(), ks, scalarName);
    } catch (IllegalArgumentException e) {
      throw PacketizationException.invalid("cannot publish @" + scalarName + " under the vector function ABI: "
          + e.getMessage() + (options.params().isEmpty() ? " (pointer parameters default to s; give the kinds)" : ""), scalarName);
    }
  }

  private List<ParamKind> paramKinds(LlvmModule module, Function scalar, Optional<Function> declared, String simdName, String fn) {
    List<Value> ps = scalar.params();
    List<ParamKind> kinds;
    Optional<VectorAbi.Variant> named;
    try {
      named = simdName == null ? Optional.empty() : VectorAbi.demangle(simdName);
    } catch (IllegalArgumentException e) {
      throw PacketizationException.invalid(e.getMessage(), fn);
    }
    if (options.params().isPresent()) {
      kinds = options.params().get();
      if (kinds.size() != ps.size()) {
        throw PacketizationException.invalid("@" + fn + " has " + ps.size() + " parameters but " + kinds.size()
            + " parameter kinds were given", fn);
      }
    } else if (named.isPresent()) {
      // a vector-function-ABI name (e.g. from OpenMP declare simd) carries the parameter shapes
      VectorAbi.Variant v = named.get();
      if (v.params().size() != ps.size()) {
        throw PacketizationException.invalid("the vector-function-ABI name @" + simdName + " has " + v.params().size()
            + " parameter tokens but @" + fn + " has " + ps.size() + " parameters", fn);
      }
      if (v.vlen() != options.width()) {
        throw PacketizationException.invalid("the vector-function-ABI name @" + simdName + " has " + v.vlen()
            + " lanes but the width is " + options.width(), fn);
      }
      if (v.masked() != options.masked()) {
        throw PacketizationException.invalid("the vector-function-ABI name @" + simdName + " is " + (v.masked() ? "masked (M)"
            : "unmasked (N)") + " but the options say masked(" + options.masked() + ")", fn);
      }
      kinds = v.params();
    } else if (declared.isPresent()) {
      kinds = kindsFromPrototype(declared.get(), scalar, fn);
    } else {
      kinds = new ArrayList<>();
      for (Value p : ps) kinds.add(p.type().isPointer() ? ParamKind.SOA : ParamKind.VARYING);
    }
    for (int i = 0; i < ps.size(); i++) {
      Type t = ps.get(i).type();
      ParamKind k = kinds.get(i);
      String where = "parameter " + i + describeParam(ps.get(i)) + " of type " + t;
      switch (k) {
        case ParamKind.Varying v -> {
          if (CompositePackets.isComposite(t)) {
            try {
              CompositePackets.packetType(t, options.width());
            } catch (IllegalArgumentException e) {
              throw PacketizationException.unsupported(where + " cannot be varying: " + e.getMessage(), fn, null, null);
            }
          } else if (!t.isVectorElement() || (t.isFloatingPoint() && !t.isPacketFloat())) {
            throw PacketizationException.unsupported(where + " cannot be varying: only integers, half, float, double and pointers"
                + " can become packets", fn, null, null);
          }
        }
        case ParamKind.Linear l -> {
          if (!t.isInteger() && !t.isPointer()) {
            throw PacketizationException.invalid(where + " cannot be linear: only integers and pointers can", fn);
          }
        }
        case ParamKind.SoaPointer s -> {
          if (!t.isPointer()) {
            throw PacketizationException.invalid(where + " cannot be a struct-of-arrays pointer: it is not a pointer", fn);
          }
        }
        case ParamKind.Uniform u -> {
          if (t.kind() == Type.Kind.SCALABLE_VECTOR) {
            throw PacketizationException.unsupported(where + ": scalable vectors are not supported", fn, null, null);
          }
        }
      }
    }
    return List.copyOf(kinds);
  }

  private static String describeParam(Value p) {
    return p.name().isEmpty() ? "" : " (%" + p.name() + ")";
  }

  /** Thesis rule: a parameter whose packet type equals the scalar type is uniform; a packet is varying. */
  private List<ParamKind> kindsFromPrototype(Function decl, Function scalar, String fn) {
    List<Type> pt = decl.functionType().paramTypes();
    List<Value> ps = scalar.params();
    int expected = ps.size() + (options.masked() ? 1 : 0);
    if (pt.size() != expected) {
      throw PacketizationException.invalid("the declared prototype @" + decl.name() + " has " + pt.size()
          + " parameters but @" + fn + " has " + ps.size() + (options.masked() ? " (+1 mask)" : ""), fn);
    }
    List<ParamKind> out = new ArrayList<>();
    int w = options.width();
    for (int i = 0; i < ps.size(); i++) {
      Type s = ps.get(i).type();
      Type p = pt.get(i);
      if (p.equals(s)) out.add(s.isPointer() ? ParamKind.SOA : ParamKind.UNIFORM);
      else if (p.equals(packetTypeOrNull(s, w))) out.add(ParamKind.VARYING);
      else {
        Type packetOfS = packetTypeOrNull(s, w);
        throw PacketizationException.invalid("parameter " + i + describeParam(ps.get(i)) + " of the declared prototype @"
            + decl.name() + " has type " + p + "; for scalar type " + s + " it must be " + (packetOfS == null ? "(none)" : packetOfS)
            + " (varying) or " + s + " (uniform)", fn);
      }
    }
    return out;
  }

  /**
   * The packet type of a scalar parameter or result type: {@code <W x T>} for integers, float, double
   * and pointers; for vectors and aggregates {@link CompositePackets#packetType} ({@code <N x T>} →
   * {@code <N*W x T>} element-major, structs and arrays element-wise); null when there is none.
   */
  private static Type packetTypeOrNull(Type t, int w) {
    if (CompositePackets.isComposite(t)) {
      try {
        return CompositePackets.packetType(t, w);
      } catch (IllegalArgumentException e) {
        return null;
      }
    }
    if (t.isVectorElement() && (!t.isFloatingPoint() || t.isPacketFloat())) return t.vectorOf(w);
    return null;
  }

  private Type packetFunctionType(LlvmModule module, Function scalar, List<ParamKind> kinds, int w) {
    var ctx = module.context();
    List<Type> params = new ArrayList<>();
    List<Value> ps = scalar.params();
    for (int i = 0; i < ps.size(); i++) {
      Type t = ps.get(i).type();
      params.add(kinds.get(i) instanceof ParamKind.Varying ? packetTypeOrNull(t, w) : t);
    }
    if (options.masked()) params.add(ctx.i1().vectorOf(w));
    Type rt = scalar.returnType();
    Type prt;
    if (rt.isVoid()) prt = rt;
    else if (packetTypeOrNull(rt, w) != null) prt = packetTypeOrNull(rt, w);
    else {
      String why = "";
      if (CompositePackets.isComposite(rt)) {
        try {
          CompositePackets.packetType(rt, w);
        } catch (IllegalArgumentException e) {
          why = ": " + e.getMessage();
        }
      }
      throw PacketizationException.unsupported("the return type " + rt + " cannot be packetized (only void, integers, half, float,"
          + " double, pointers and vectors and aggregates of them)" + why, scalar.name(), null, null);
    }
    return ctx.functionType(prt, params, false);
  }

  private void checkPrototype(Function decl, Type expected, Function scalar, List<ParamKind> kinds, String fn) {
    Type actual = decl.functionType();
    if (actual.isVarArg()) throw PacketizationException.invalid("the declared prototype @" + decl.name() + " is variadic", fn);
    List<Type> a = actual.paramTypes();
    List<Type> e = expected.paramTypes();
    if (a.size() != e.size()) {
      throw PacketizationException.invalid("the declared prototype @" + decl.name() + " has " + a.size()
          + " parameters; expected " + e.size(), fn);
    }
    for (int i = 0; i < a.size(); i++) {
      if (!a.get(i).equals(e.get(i))) {
        String kind = i < kinds.size() ? kinds.get(i).getClass().getSimpleName().toLowerCase(java.util.Locale.ROOT) : "mask";
        throw PacketizationException.invalid("parameter " + i + " of the declared prototype @" + decl.name() + " has type "
            + a.get(i) + " but a " + kind + " parameter needs " + e.get(i), fn);
      }
    }
    if (!actual.returnType().equals(expected.returnType())) {
      throw PacketizationException.invalid("the declared prototype @" + decl.name() + " returns " + actual.returnType()
          + " but the packet of " + scalar.returnType() + " is " + expected.returnType(), fn);
    }
  }

  private static String suggest(LlvmModule module, String name) {
    String best = null;
    int bestD = Integer.MAX_VALUE;
    for (Function f : module.functions()) {
      if (f.isDeclaration()) continue;
      int d = levenshtein(name, f.name());
      if (d < bestD) {
        bestD = d;
        best = f.name();
      }
    }
    if (best != null && bestD <= Math.max(2, name.length() / 3)) return "; did you mean @" + best + "?";
    List<String> defined = new ArrayList<>();
    for (Function f : module.functions()) if (!f.isDeclaration()) defined.add("@" + f.name());
    if (defined.isEmpty()) return " (it defines no functions)";
    return " (it defines " + String.join(", ", defined.subList(0, Math.min(8, defined.size())))
        + (defined.size() > 8 ? ", ..." : "") + ")";
  }

  private static int levenshtein(String a, String b) {
    int[] prev = new int[b.length() + 1];
    int[] cur = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) prev[j] = j;
    for (int i = 1; i <= a.length(); i++) {
      cur[0] = i;
      for (int j = 1; j <= b.length(); j++) {
        int c = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
        cur[j] = Math.min(Math.min(cur[j - 1] + 1, prev[j] + 1), prev[j - 1] + c);
      }
      int[] t = prev;
      prev = cur;
      cur = t;
    }
    return prev[b.length()];
  }

  /** Whether a call may read or write memory the packetized function's shared locations live in. */
  static boolean mayAccessMemory(Value call, PureCalls pure, SpmdIntrinsics spmd) {
    Optional<Function> f = call.calledFunction();
    if (f.isEmpty()) return true;
    String name = f.get().name();
    if (name.startsWith("llvm.lifetime.") || name.startsWith("llvm.dbg.") || name.startsWith("llvm.assume")
        || name.startsWith("llvm.experimental.noalias") || name.startsWith("llvm.invariant.")) {
      return false;
    }
    if (SpmdIntrinsics.op(call).isPresent() || pure.test(call)) return false;
    long mem = f.get().memoryEffects();
    // LLVM's MemoryEffects: two bits (read, write) each for argument memory, inaccessible memory, other
    return mem < 0 || (mem & 0b110011) != 0;
  }
}
