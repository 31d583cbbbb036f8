package org.packetizer.core;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.packetizer.analysis.cfg.CfgAnalyses;
import org.packetizer.analysis.cfg.IrreducibleCfgException;
import org.packetizer.analysis.divergence.DivergenceAnalysis;
import org.packetizer.analysis.divergence.DivergenceInfo;
import org.packetizer.analysis.divergence.Shape;
import org.packetizer.core.adapt.LlvmSsaFunction;
import org.packetizer.core.api.MemoryStrategy;
import org.packetizer.core.api.PacketizationException;
import org.packetizer.core.api.WrapperMode;
import org.packetizer.core.api.PacketizationResult;
import org.packetizer.core.api.PacketizerOptions;
import org.packetizer.core.api.ParamKind;
import org.packetizer.core.api.Rejection;
import org.packetizer.core.api.Remark;
import org.packetizer.core.driver.ArrayDriver;
import org.packetizer.core.ir.Block;
import org.packetizer.core.ir.Function;
import org.packetizer.core.ir.FunctionCloner;
import org.packetizer.core.ir.LlvmException;
import org.packetizer.core.ir.Llvm;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.ir.Value;
import org.packetizer.core.legality.Legality;
import org.packetizer.core.linearize.Schedule;
import org.packetizer.core.mapping.SignatureAbi;
import org.packetizer.core.mapping.SpmdIntrinsics;
import org.packetizer.core.mapping.UserMappings;
import org.packetizer.core.pipeline.CalleePacketizer;
import org.packetizer.core.pipeline.PacketizationState;
import org.packetizer.core.pipeline.PureCalls;
import org.packetizer.core.pipeline.SoaPointers;
import org.packetizer.core.pipeline.UniformMemory;
import org.packetizer.core.prepare.Preparer;
import org.packetizer.core.widen.MaskDemotion;
import org.packetizer.core.widen.PacketEmitter;
import org.packetizer.core.wrapper.LoopWrapper;

/**
 * One packetization, phase by phase in the order of the thesis' chapter 4 ({@link #run}): legality,
 * the wrapper decision (4.6), prepare (4.1), the analyses, legality's shape checks, emission (masks
 * 4.2, blends 4.3, linearization 4.4 and instruction vectorization 4.5 in one walk over the
 * linearized blocks), clean-up, and publishing the result. Everything is made on copies and new
 * functions; any failure removes them (the safety net behind legality).
 */
final class Pipeline {
  private final PacketizerOptions options;
  private final LlvmModule module;
  private final String scalarName;
  private final CalleePacketizer callees;
  /** False for a callee's nested packet version (the caller's packet function is then half-emitted). */
  private final boolean topLevel;
  private final int w;

  private final long start = System.nanoTime();
  private final Map<String, Long> phases = new LinkedHashMap<>();
  private long mark = start;
  private final Set<String> namesBefore = new HashSet<>();

  Pipeline(PacketizerOptions options, LlvmModule module, String scalarName, CalleePacketizer callees) {
    this.options = options;
    this.module = module;
    this.scalarName = scalarName;
    this.topLevel = callees == null;
    // callees are packetized at this function's width: the wrapper decision is the top level's
    this.callees = callees != null ? callees : new CalleePacketizer((callee, name, kinds, nested) -> new Pipeline(
        options.toBuilder().params(kinds).masked(true).wrapperMode(org.packetizer.core.api.WrapperMode.DIRECT).vectorAbi(false)
            .build(), module, callee, nested).run(name));
    this.w = options.width();
    for (Function f : module.functions()) namesBefore.add(f.name());
  }

  /**
   * A top-level packetization (the facade's run): the vector-function-ABI ISA for the
   * run, the pipeline, an array driver when asked; on failure every function made is removed and a
   * rejection is reported as a remark.
   */
  /** Nesting depth of {@link #run} on this thread (a wrapper's N-wide packetization runs through it too). */
  private static final ThreadLocal<int[]> DEPTH = ThreadLocal.withInitial(() -> new int[1]);

  static PacketizationResult run(PacketizerOptions options, LlvmModule module, String scalarName, String simdName) {
    int[] depth = DEPTH.get();
    depth[0]++;
    boolean done = false;
    try {
      PacketizationResult r = runOnce(options, module, scalarName, simdName);
      done = true;
      return r;
    } finally {
      depth[0]--;
      // the glibc-exact helpers' shared cold pieces, where only one helper calls them, back to its own (issue 16)
      if (done && depth[0] == 0) org.packetizer.core.mapping.SharedCold.settle(module);
    }
  }

  private static PacketizationResult runOnce(PacketizerOptions options, LlvmModule module, String scalarName, String simdName) {
    // (the ir facade's java.lang.foreign binding pays back its set-up once enough code was packetized)
    module.function(scalarName).ifPresent(f -> Llvm.notePacketizing(f.instructionCount()));
    Set<String> before = new HashSet<>();
    for (Function f : module.functions()) before.add(f.name());
    // the run's target, in this order (RunTarget): a CPU or features named in the options: the module's functions carry
    // that target during the run (so that every decision reading a function's attributes sees what the options name,
    // and the functions the run clones inherit it); then a vector-function-ABI variant named for another ISA than the
    // scalar function's is emitted for that ISA from the start (vector math variants, the hardware width, nested packet
    // versions of callees): the module's functions carry the ISA's features on top. The user's functions get their own
    // back afterwards
    RunTarget.State savedTarget = RunTarget.retarget(module, options, scalarName, simdName);
    long marks = org.packetizer.core.ir.LoopAlign.marksMade();
    try {
      if (options.scalable()) return finishRun(options, savedTarget, module, before, marks, runScalable(options, module, scalarName, simdName));
      PacketizationResult r = new Pipeline(options, module, scalarName, null).run(simdName);
      if (options.arrayDriver().isPresent()) {
        r = ArrayDriver.build(module, r, options, (o, f, s) -> new Pipeline(o, module, f, null).run(s));
        int bytes = loopAlignment();
        if (bytes > 0 && r.driver().isPresent()) {
          // (--refill=auto: also its two bodies, so that its plain body is the plain driver's code, its refill body the
          // refill driver's, loop alignment included)
          String d0 = r.driver().get().name();
          for (String d : List.of(d0, d0 + ".plain", d0 + ".refill")) {
            module.function(d).ifPresent(f -> org.packetizer.core.ir.LoopAlign.alignInnermostLoops(f, bytes));
          }
        }
      }
      return finishRun(options, savedTarget, module, before, marks, r);
    } catch (RuntimeException | Error e) {
      // nested packet versions of callees made on the way are removed too (also on StackOverflowError,
      // OutOfMemoryError, ...: the module is left as it was whatever goes wrong)
      rollback(module, before);
      // (once: a wrapper's N-wide packetization runs through here too)
      if (e instanceof PacketizationException pe && pe.reason().isPresent() && REPORTED.add(pe)) reportRejection(options, pe, scalarName);
      throw e;
    } finally {
      RunTarget.restore(module, savedTarget);
    }
  }

  /**
   * The end of a top-level run, over the functions this run made. The cold-lane loops' marks
   * ({@link org.packetizer.core.ir.LoopAlign#markColdLaneLoop}) served the loop alignment: the published IR carries none
   * (only when marks were made). On x86, each function's {@code "min-legal-vector-width"} is raised where LLVM needs
   * it: to the widest X86 intrinsic it calls, and to 512 where it holds vectors wider than 256 bits
   * ({@link org.packetizer.core.mapping.SignatureAbi#fitTargetIntrinsicCallers}, {@code fitWideVectors}).
   */
  private static PacketizationResult finishRun(PacketizerOptions options, RunTarget.State savedTarget,
      LlvmModule module, Set<String> before, long marks, PacketizationResult r) {
    if (org.packetizer.core.ir.LoopAlign.marksMade() != marks) {
      for (Function f : module.functions()) if (!before.contains(f.name())) org.packetizer.core.ir.LoopAlign.unmarkColdLaneLoops(f);
    }
    // what this run made (the packet function, its helpers, drivers) legal for the widest X86 intrinsic it calls:
    // on CPUs that prefer 256-bit vectors LLVM cannot split a 512-bit one (SignatureAbi.fitTargetIntrinsicCallers)
    Set<String> made = new HashSet<>();
    made.add(r.packetFunction());
    r.driver().ifPresent(d -> made.add(d.name()));
    java.util.function.Predicate<Function> ours = f -> !before.contains(f.name()) || made.contains(f.name());
    // the options' target on what this run made and does not carry it yet (helpers made from nothing; what the run
    // cloned carries it already: RunTarget.retarget)
    for (Function f : module.functions()) if (!f.isDeclaration() && ours.test(f)) RunTarget.mark(f, options);
    // and with the scalar function's rounding where the options' target fuses llvm.fmuladd and its own does not (or the
    // reverse): the packet function computes what the user's function computes (RunTarget.keepContraction). A scalar
    // function without target attributes is compiled for whatever its module is compiled for (a JIT's or llc's CPU):
    // nothing to keep
    RunTarget.Saved own = savedTarget.optionsOwn(r.scalarFunction());
    if (own != null && (own.cpu().isPresent() || own.features().isPresent())
        && org.packetizer.core.ir.TargetArch.of(module.targetTriple()) == org.packetizer.core.ir.TargetArch.X86) {
      boolean scalarFma = RunTarget.fma(own.cpu().orElse(""), own.features().orElse(""));
      for (Function f : module.functions()) if (!f.isDeclaration() && ours.test(f)) RunTarget.keepContraction(f, scalarFma);
    }
    org.packetizer.core.mapping.SignatureAbi.fitTargetIntrinsicCallers(module, ours);
    // and legal for 512-bit vectors wherever they hold wider ones: on Intel's AVX-512 CPUs LLVM would split them into
    // 256-bit halves, a route LLVM 20 miscompiles (SignatureAbi.fitWideVectors). Whatever the options name: the
    // function may be compiled later for another CPU (generic IR JIT-compiled on the host), and without AVX-512 the
    // attribute changes nothing
    if (org.packetizer.core.ir.TargetArch.of(module.targetTriple()) == org.packetizer.core.ir.TargetArch.X86) {
      for (Function f : module.functions()) {
        if (!f.isDeclaration() && ours.test(f)) org.packetizer.core.mapping.SignatureAbi.fitWideVectors(f);
      }
    }
    return r;
  }

  /**
   * {@link PacketizerOptions#scalable}: the masked W-wide packet function, re-typed to vscale × W lanes
   * by {@link org.packetizer.core.scalable.ScalablePackets} (lane-wise code only).
   */
  private static PacketizationResult runScalable(PacketizerOptions options, LlvmModule module, String scalarName,
      String simdName) {
    if (options.cAbi()) {
      throw PacketizationException.invalid(Rejection.CONFLICTING_OPTIONS, "scalable packets are published as LLVM functions,"
          + " SVE vector-function-ABI variants (--vector-abi) and array drivers: not in the C form (--c-abi)", scalarName);
    }
    boolean sveAbi = options.vectorAbi();
    if (sveAbi) {
      Function scalar = module.function(scalarName).orElseThrow(() -> Legality.noSuchFunction(module, scalarName));
      org.packetizer.core.scalable.ScalableVectorAbi.requireSve(module, scalar, scalarName);
    }
    if (!sveAbi && (simdName == null || simdName.isBlank())) {
      throw PacketizationException.invalid(Rejection.INVALID_NAME, "the SIMD function needs a name", scalarName);
    }
    String fixedName = (sveAbi ? "__packetizer.sve." + scalarName : simdName) + ".fixed";
    PacketizerOptions fixedOptions = options.toBuilder().scalable(false).vectorAbi(false).arrayDriver((String) null).lanesMayBeRetyped(true).masked(true).wrapperMode(WrapperMode.DIRECT)
        .vectorMath(PacketizerOptions.VectorMath.INTRINSICS).memoryStrategy(MemoryStrategy.GATHER).build();
    if (!sveAbi && module.function(simdName).isPresent()) {
      throw PacketizationException.invalid(Rejection.INVALID_NAME, "@" + simdName + " already exists in the module", scalarName);
    }
    Function scalarFn = module.function(scalarName).orElseThrow(() -> Legality.noSuchFunction(module, scalarName));
    requireNoScalarVectorsOfWidth(scalarFn, options.width(), scalarName, new HashSet<>());
    Set<String> existing = new HashSet<>();
    for (Function f : module.functions()) existing.add(f.name());
    PacketizationResult fixed = new Pipeline(fixedOptions, module, scalarName, null).run(fixedName);
    // what this packetization made (packet versions of callees, exact vector helpers) may be re-typed too
    Set<String> made = new HashSet<>();
    for (Function f : module.functions()) if (!existing.contains(f.name())) made.add(f.name());
    // (struct-of-arrays pointers: blocks of vscale × W elements per field, the offsets scaled by llvm.vscale in
    // the emitter; see SoaWidener and docs/cross-targets.md)
    for (int i = 0; sveAbi && i < fixed.params().size(); i++) {
      if (fixed.params().get(i) instanceof ParamKind.SoaPointer) {
        throw PacketizationException.invalid(Rejection.CONFLICTING_OPTIONS, "parameter #" + i + " is a struct-of-arrays"
            + " pointer (s), which has no token in the SVE vector function ABI; publish the scalable packet function itself"
            + " (without --vector-abi) and call it with the block of vscale × " + options.width() + " elements per field", scalarName);
      }
    }
    String published = simdName;
    if (sveAbi) {
      // the SVE variant's name follows from the parameter kinds; the packet function itself is NAME.ir
      String mangled = org.packetizer.core.scalable.ScalableVectorAbi.mangledName(scalarName, fixed.params());
      if (simdName != null && !simdName.isBlank() && !simdName.equals(mangled)) {
        throw PacketizationException.invalid(Rejection.INVALID_NAME, "the SVE vector-function-ABI variant of @" + scalarName
            + " with these parameters is @" + mangled + ", not @" + simdName, scalarName);
      }
      for (String n : List.of(mangled, mangled + org.packetizer.core.mapping.SignatureAbi.IR_FORM_SUFFIX)) {
        if (module.function(n).map(f -> !f.isDeclaration()).orElse(false)) {
          throw PacketizationException.invalid(Rejection.INVALID_NAME, "@" + n + " already exists in the module", scalarName);
        }
      }
      published = mangled;
      simdName = mangled + org.packetizer.core.mapping.SignatureAbi.IR_FORM_SUFFIX;
    }
    Function fixedFn = module.function(fixedName).orElseThrow();
    org.packetizer.core.scalable.ScalablePackets.build(module, fixedFn, simdName, options.width(), scalarName, made);
    fixedFn.delete();
    // the fixed-width packet versions of callees (now re-typed) and helpers nothing calls any more
    for (boolean removed = true; removed; ) {
      removed = false;
      for (Function f : module.functions()) {
        if (made.contains(f.name()) && !f.name().equals(simdName) && !f.hasUses()) {
          f.delete();
          removed = true;
          break;
        }
      }
    }
    Function scalable = module.function(simdName).orElseThrow();
    scalable.verify().ifPresent(msg -> {
      throw new PacketizationException(PacketizationException.Kind.INTERNAL,
          "internal error: the scalable packet function is invalid: " + msg, scalarName);
    });
    if (sveAbi) {
      Function declared = module.function(published).orElse(null);
      if (declared != null) {
        // a declaration the module already had (a caller of the variant): the definition replaces it
        String tmp = "__packetizer.sve.pub." + published;
        org.packetizer.core.scalable.ScalableVectorAbi.publish(module, simdName, tmp, options.width(), scalarName);
        Function def = module.function(tmp).orElseThrow();
        declared.replaceAllUsesWith(def);
        declared.delete();
        def.setName(published);
      } else {
        org.packetizer.core.scalable.ScalableVectorAbi.publish(module, simdName, published, options.width(), scalarName);
      }
    }
    Remark note = new Remark(Remark.Kind.NOTE, scalarName, null, null, "scalable packet function @" + simdName + ": "
        + scalable.functionType() + " (vscale x " + options.width() + " lanes, last parameter the predicate)"
        + (sveAbi ? "; SVE vector-function-ABI variant @" + published + " (svbool_t predicate)" : ""));
    options.remarks().accept(note);
    PacketizationResult result = fixed.withPacketFunction(published).withRemark(note);
    if (options.arrayDriver().isPresent() && options.refill() == org.packetizer.core.api.Refill.AUTO) {
      Remark plain = new Remark(Remark.Kind.NOTE, scalarName, null, null, "lane refill not chosen (--refill=auto): the rule"
          + " chooses refill only where it was measured (x86 with AVX2 or AVX-512), and the scalable refill driver (SVE, RISC-V V)"
          + " has been run under qemu only, not timed on " + (org.packetizer.core.ir.TargetArch.of(module.targetTriple())
          == org.packetizer.core.ir.TargetArch.RISCV64 ? "RISC-V V" : "SVE") + " hardware (--refill builds it); plain scalable driver");
      options.remarks().accept(plain);
      result = result.withRemark(plain);
    }
    if (options.arrayDriver().isPresent() && options.refill() == org.packetizer.core.api.Refill.ON) {
      // lane refill for vscale × W lanes (issue 17; docs/drivers.md "Scalable packets")
      return org.packetizer.core.driver.ScalableRefillDriver.build(module, result, simdName, options,
          (o, f, s) -> runScalable(o, module, f, s));
    }
    if (options.arrayDriver().isPresent()) result = ArrayDriver.buildScalable(module, result, simdName, options);
    return result;
  }

  /**
   * The re-typing turns every {@code <W x T>} into {@code <vscale x W x T>}: a vector of W lanes the
   * scalar function (or one it calls) computes itself, e.g. an SLP-vectorized {@code <4 x float>},
   * would be re-typed too and mean something else. Refused instead.
   */
  private static void requireNoScalarVectorsOfWidth(Function f, int w, String scalarName, Set<String> seen) {
    if (f.isDeclaration() || !seen.add(f.name())) return;
    for (var bl : f.blocks()) {
      for (var inst : bl.instructions()) {
        boolean bad = inst.type().isVector() && inst.type().vectorSize() == w;
        for (var op : inst.operands()) bad |= op != null && op.type().isVector() && op.type().vectorSize() == w;
        if (bad) {
          throw PacketizationException.unsupported(Rejection.SCALABLE_VECTOR, "scalable packets: @" + f.name() + " computes"
              + " vectors of " + w + " lanes itself, which re-typing to vscale × " + w + " lanes would change; packetize"
              + " with another width", scalarName, bl.describe(), inst.print().strip());
        }
        if (inst.opcode() == org.packetizer.core.ir.Opcode.CALL) {
          var callee = inst.operand(inst.numOperands() - 1);
          if (callee != null && callee.isFunction()) requireNoScalarVectorsOfWidth(Function.of(callee.ref()), w, scalarName, seen);
        }
      }
    }
  }

  /** Packetizes the scalar function into {@code simdName}; the module is unchanged on failure. */
  PacketizationResult run(String simdName) {
    Legality.Request request = new Legality(options).checkRequest(module, scalarName, simdName, topLevel);
    phase("check-input");
    Optional<PacketizationResult> wrapped = wrapper(request);
    if (wrapped.isPresent()) return wrapped.get();

    Set<String> functionsBefore = new HashSet<>();
    for (Function f : module.functions()) functionsBefore.add(f.name());
    try {
      Function copy;
      PacketizationState state;
      org.packetizer.core.ir.LlvmContext ctx = module.context();
      // the scalar copy keeps its names (remarks, the result's shapes), also inside an enclosing run without names
      try (var names = ctx.valueNames(true)) {
        copy = prepare(request);
        state = analyse(copy, request);
      }
      Legality.checkShapes(state);
      Function packet;
      // what the packetizer makes is named only when asked (PacketizerOptions.valueNames; the context's own
      // setting, perhaps the user's, is back afterwards)
      try (var names = ctx.valueNames(options.valueNames())) {
        packet = packetFunction(request);
        emit(state, packet);
        cleanUp(request, state, packet);
        packet = scalarLanesForSize(request, state, packet);
        alignLoops(packet);
      }
      return publish(request, state, packet);
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
   * Thesis 4.6: a width above the hardware width may be served by an N-wide function (this whole
   * pipeline at width N) and a W-wide wrapper that calls it W/N times.
   */
  private Optional<PacketizationResult> wrapper(Legality.Request r) {
    Optional<PacketizationResult> wrapped = LoopWrapper.packetizeIfWider(module, r.scalar(), r.simdName(), r.kinds(),
        r.packetType(), r.declared(), options,
        // (the N-wide function gets no array driver: the driver belongs to the W-wide function)
        (o, m, f, s) -> run(o.toBuilder().arrayDriver((String) null).build(), m, f, s));
    if (wrapped.isEmpty()) return wrapped;
    String simdName = r.simdName();
    requireReturnsLikeScalar(module, r.scalar(), module.function(simdName).orElseThrow(), "the wrapper", scalarName);
    // the W-wide wrapper is what callers see: it is the variant published and announced
    if (r.abiVariant() == null) {
      Optional<Remark> c = topLevel && options.cAbi() ? Publication.inCForm(options, module, scalarName, simdName) : Optional.empty();
      if (c.isEmpty()) return wrapped;
      options.remarks().accept(c.get());
      return Optional.of(wrapped.get().withRemark(c.get()));
    }
    Remark note = Publication.underVectorAbi(module, r.scalar(), simdName, r.abiVariant(), namesBefore);
    options.remarks().accept(note);
    return Optional.of(wrapped.get().withRemark(note));
  }

  /** Thesis 4.1: a copy of the scalar function, canonicalized (the user's function is not touched). */
  private Function prepare(Legality.Request r) {
    Function copy = FunctionCloner.cloneInModule(module, r.scalar(), "__packetizer.scalar." + scalarName);
    Preparer.prepare(module, copy, options, scalarName);
    phase("prepare");
    return copy;
  }

  /**
   * The analyses: dominance and loops, shapes (uniform / linear / varying) and partial blocks,
   * struct-of-arrays pointers, memory the lanes share, and the linearized block order (4.4).
   */
  private PacketizationState analyse(Function copy, Legality.Request r) {
    List<ParamKind> kinds = r.kinds();
    PureCalls pure = new PureCalls();
    SoaPointers soa = SoaPointers.find(copy, kinds, scalarName, !options.scalable() && !options.lanesMayBeRetyped());
    SpmdIntrinsics spmd = new SpmdIntrinsics(module, w, scalarName);
    // loads of shared memory that each lane reads back from its own writes (UniformMemory)
    Set<Value> ownCopies = new HashSet<>();
    LlvmSsaFunction ssa = new LlvmSsaFunction(module, copy, pure,
        (v, current) -> ownCopies.contains(v) ? Optional.of(Shape.VARYING)
            : soa.customShape(v, current).or(() -> spmd.customShape(v, current)));
    CfgAnalyses<Block> cfg;
    try {
      cfg = CfgAnalyses.of(ssa.cfg());
    } catch (IrreducibleCfgException e) {
      throw PacketizationException.unsupported(Rejection.UNSUPPORTED_CONTROL_FLOW,
          "irreducible control flow remained after fix-irreducible: " + e.getMessage(), scalarName, null, null);
    }
    Map<Value, Shape> seeds = new LinkedHashMap<>();
    for (int i = 0; i < copy.paramCount(); i++) seeds.put(copy.param(i), seedShape(kinds.get(i)));
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
    PacketizationState state = new PacketizationState(module, options, scalarName, copy, ssa, cfg, div, schedule,
        kinds, mappings, pure, soa, callees);
    state.setSharedMemory(shared);
    phase("analyze");
    return state;
  }

  /** The new, empty packet function with the scalar function's attributes. */
  private Function packetFunction(Legality.Request r) {
    Function scalar = r.scalar();
    Function packet = module.addFunction("__packetizer.packet." + r.simdName(), r.packetType());
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
    return packet;
  }

  private int rawInstructions;

  /**
   * Masks (4.2), blends (4.3), partial linearization (4.4) and instruction vectorization (4.5): one
   * walk over the linearized blocks ({@link PacketEmitter} and its phase classes), since each block's
   * masks and blends are made where its code is emitted.
   */
  private void emit(PacketizationState state, Function packet) {
    List<ParamKind> kinds = state.paramKinds();
    callees.enter(scalarName, kinds, w, options.masked(), packet.name());
    try {
      new PacketEmitter(state, packet).emit();
    } finally {
      callees.exit(scalarName, kinds, w, options.masked());
      state.flushRemarks();
    }
    rawInstructions = packet.instructionCount();
    phase("emit");
    verify(packet, "after emitting the packet function");
    if (options.verifyEachPhase()) {
      // the analyses' view of the scalar copy caches its instructions, opcodes and operand lists
      List<String> changed = state.ssa().changes();
      if (!changed.isEmpty()) {
        throw new IllegalStateException("internal error: the scalar copy of " + scalarName
            + " changed after its analysis: " + String.join("; ", changed));
      }
    }
    phase("verify");
  }

  private static boolean x86(Function f) {
    return org.packetizer.core.ir.TargetArch.of(f.module().targetTriple()) == org.packetizer.core.ir.TargetArch.X86;
  }

  /** Clean-up: LLVM's scalar optimizations on the packet function, then integer masks where they pay. */
  private void cleanUp(Legality.Request r, PacketizationState state, Function packet) {
    if (!options.cleanup()) return;
    // (measurement knob -Dpacketizer.cleanupPasses=PIPELINE: another pass list, e.g. one pass left out, read at each use)
    String passes = System.getProperty("packetizer.cleanupPasses");
    LlvmModule.runPasses(packet, passes != null ? passes : options.prepareOptimize() ? CLEANUP_AFTER_PREPARE : CLEANUP_PIPELINE, null);
    // (after the clean-up: InstCombine would fold integer masks back to <W x i1>)
    boolean intMasks = switch (options.integerMasks()) {
      case ALWAYS -> true;
      case NEVER -> false;
      case AUTO -> MaskDemotion.worthwhile(packet, w, options.targetCpu().orElse(null), options.targetFeatures().orElse(null));
    };
    if (intMasks) {
      MaskDemotion.run(packet, w);
      org.packetizer.core.widen.CounterBroadcasts.run(packet, w);
    } else if (MaskDemotion.hasMaskRegisters(packet, options.targetCpu().orElse(null), options.targetFeatures().orElse(null))) {
      // (mask registers: only the clamped counters of the loop-exit compares narrowed for them)
      org.packetizer.core.widen.CounterBroadcasts.runClamped(packet, w);
      // (AVX-512F for the packet function's target, which is the options' when they name one (RunTarget): rounded conversions
      // by one instruction)
      org.packetizer.core.widen.RoundedConversions.run(packet, x86(packet) && MaskDemotion.hasMaskRegisters(packet));
    }
    // (after the clean-up too: InstCombine would fold the shifts and adds back into the multiply)
    mulShifts(state, packet);
    requireReturnsLikeScalar(module, r.scalar(), packet, "the packet function", scalarName);
    phase("cleanup");
    if (options.verifyEachPhase()) verify(packet, "after clean-up");
    phase("verify");
  }

  /**
   * Vector multiplies by constants on a recurrence as shifts and adds where the target's multiply is slow
   * ({@link org.packetizer.core.widen.MulShifts}, knob {@code -Dpacketizer.mulShifts}), one remark per multiply.
   */
  private void mulShifts(PacketizationState state, Function packet) {
    // (the target is resolved only where the packet function has a vector multiply by a constant)
    var done = org.packetizer.core.widen.MulShifts.run(packet, options.targetCpu().orElse(null), options.targetFeatures().orElse(null));
    for (var d : done) state.remark(Remark.Kind.NOTE, null, null, d.message());
  }

  /**
   * Optimizing for size ({@link ScalarLanes}): a packet function whose machine code (with the module's
   * functions it calls, compiled for the target as the benchmark's {@code asm} column counts it) is more
   * than the budget times the scalar function's (times W over the target's 32-bit lanes per register where
   * W is wider) is replaced by a loop over the lanes running the scalar code, where that is exact, with a remark.
   */
  private Function scalarLanesForSize(Legality.Request r, PacketizationState state, Function packet) {
    if (!ScalarLanes.enabled(options) || !topLevel) return packet;
    Function scalar = r.scalar();
    // (a packet function within half the budget in IR instructions is not compiled to be measured: on the
    // 17 benchmark kernels machine code is within 0.7 to 1.25 times the IR ratio)
    if (ScalarLanes.size(packet, scalar) <= ScalarLanes.budget() / 2 * ScalarLanes.size(scalar, null)) return packet;
    Optional<String> no = ScalarLanes.refusal(options, scalar, packet, r.kinds(), w);
    if (no.isPresent()) return packet;
    int[] n = ScalarLanes.machineInstructions(module, options, scalar, packet);
    // (a packet wider than the target's registers is several register-wide packets, as the benchmark's and the
    // array drivers' interleaved ic*W-lane functions are: the budget is per register-wide packet)
    int hw = org.packetizer.core.wrapper.HardwareWidth.resolve(scalar, options.targetCpu().orElse(null),
        options.targetFeatures().orElse(null)).width();
    double budget = ScalarLanes.budget() * Math.max(1.0, (double) w / Math.max(1, hw));
    String ratio = String.format(java.util.Locale.ROOT, "%.2f", (double) n[1] / Math.max(1, n[0]));
    if (n[0] <= 0 || n[1] <= budget * n[0]) return packet;
    packet.delete();
    Function lanes = packetFunction(r);
    ScalarLanes.emit(module, scalar, lanes, r.kinds(), w);
    state.remark(Remark.Kind.NOTE, null, null, "optimizing for size: the packet function would be " + n[1] + " machine instructions, "
        + ratio + " times the scalar function's " + n[0] + " (budget " + budget + "): a loop over the " + w
        + " lanes calling a copy of the scalar function instead");
    verify(lanes, "after the size mode's lane loop");
    phase("cleanup");
    return lanes;
  }

  /**
   * The packet function's innermost loops start on a {@link #loopAlignment()}-byte boundary ({@code
   * llvm.loop.align}, {@link org.packetizer.core.ir.LoopAlign}): their speed no longer depends on where
   * the code before them ends (issue 16, binomial). Knob {@code -Dpacketizer.loopAlign=0} leaves LLVM's
   * default (16 bytes on x86); read at each use.
   */
  private void alignLoops(Function packet) {
    int bytes = loopAlignment();
    if (bytes > 0) org.packetizer.core.ir.LoopAlign.alignInnermostLoops(packet, bytes);
    phase("cleanup");
  }

  /** Knob: {@code -Dpacketizer.loopAlign=N} (a power of two, 0 = LLVM's default); 64 by default. */
  static int loopAlignment() {
    String v = System.getProperty("packetizer.loopAlign", "64");
    try {
      int n = Integer.parseInt(v.trim());
      return n > 0 && Integer.bitCount(n) == 1 ? n : 0;
    } catch (NumberFormatException e) {
      return 0;
    }
  }

  /** The packet function takes its name (and a declared prototype's place), is published, and described. */
  private PacketizationResult publish(Legality.Request r, PacketizationState state, Function packet) {
    String simdName = r.simdName();
    LlvmSsaFunction ssa = state.ssa();
    DivergenceInfo<Block, Value> div = state.divergence();
    List<PacketizationResult.BlockInfo> blockInfo = new ArrayList<>();
    Map<String, String> shapes = new LinkedHashMap<>();
    int uniformValues = 0;
    int varyingValues = 0;
    // (one pass: every instruction's name, type and shape fetched once; block names once per block)
    Map<Block, String> blockNames = new HashMap<>();
    for (Block bl : state.schedule().order()) {
      List<String> succ = new ArrayList<>();
      for (Block s2 : bl.successors()) succ.add(blockNames.computeIfAbsent(s2, Block::name));
      List<String> vary = new ArrayList<>();
      List<String> uni = new ArrayList<>();
      for (Value v : ssa.instructions(bl)) {
        if (v.type().isVoid()) continue;
        Shape s = div.shape(v);
        if (s.isUniform()) uniformValues++;
        else varyingValues++;
        String name = v.name();
        if (name.isEmpty()) continue;
        String ref = "%" + name;
        (s.isUniform() ? uni : vary).add(ref);
        shapes.put(ref, s.toString());
      }
      var loop = state.cfg().loops().loopOf(bl).filter(l -> l.header().equals(bl));
      boolean partial = div.mayBePartial(bl);
      boolean divergent = div.isDivergentBranch(bl);
      boolean kept = !partial && !divergent && ssa.branchCondition(bl).isPresent();
      blockInfo.add(new PacketizationResult.BlockInfo(blockNames.computeIfAbsent(bl, Block::name), succ, partial, divergent,
          kept, loop.isPresent(), loop.map(div::isDivergentLoop).orElse(false), vary, uni));
    }
    state.scalar().delete();
    if (r.declared().isPresent()) {
      r.declared().get().replaceAllUsesWith(packet);
      r.declared().get().delete();
    }
    packet.setName(simdName);
    if (!packet.name().equals(simdName)) {
      throw new PacketizationException(PacketizationException.Kind.INTERNAL, "internal error: the packet function could not be"
          + " named @" + simdName + " (LLVM named it @" + packet.name() + ")", scalarName);
    }
    // vectors in the signature travel as a C caller compiled for this target passes them
    SignatureAbi.fitCallers(packet);
    verify(packet, "at the end");
    if (r.abiVariant() != null) {
      Remark note = Publication.underVectorAbi(module, r.scalar(), simdName, r.abiVariant(), namesBefore);
      state.remark(note.kind(), null, null, note.message());
    } else if (topLevel && options.cAbi()) {
      Publication.inCForm(options, module, scalarName, simdName).ifPresent(n -> state.remark(n.kind(), null, null, n.message()));
    }
    var stats = state.stats();
    return new PacketizationResult(scalarName, simdName, w, r.kinds(), shapes, uniformValues, varyingValues,
        stats.blocks, stats.linearizedBranches, stats.keptBranches, stats.selects, stats.vectorLoads, stats.vectorStores,
        stats.gathers, stats.scatters, stats.cascades, stats.vectorCalls, stats.scalarizedCalls,
        r.scalar().instructionCount(), rawInstructions, packet.instructionCount(), List.copyOf(state.remarks()),
        blockInfo, System.nanoTime() - start, finishPhases());
  }

  // ------------------------------------------------------------------------------------------

  private void phase(String name) {
    long now = System.nanoTime();
    phases.merge(name, now - mark, Long::sum);
    mark = now;
  }

  private Map<String, Long> finishPhases() {
    phase("finish");
    Map<String, Long> ordered = new LinkedHashMap<>();
    for (String p : PacketizationResult.PHASES) if (phases.containsKey(p)) ordered.put(p, phases.get(p));
    return ordered;
  }

  private void verify(Function f, String when) {
    // verify the function alone first: an enclosing packetization may have a function under construction
    if (f.isValid()) return;
    Optional<String> msg = module.verify();
    if (msg.isPresent()) {
      if (Boolean.getBoolean("packetizer.debug")) System.err.println(module.toIr());
      throw new PacketizationException(PacketizationException.Kind.INTERNAL,
          "internal error: the packet function is invalid " + when + ": " + msg.get(), scalarName);
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

  // ------------------------------------------------------------------------------------------
  // rollback and the returns guard

  private static final Set<Throwable> REPORTED =
      java.util.Collections.synchronizedSet(java.util.Collections.newSetFromMap(new java.util.WeakHashMap<>()));

  /** A rejection as a remark: the reason's tag, the message, function, block and instruction. */
  private static void reportRejection(PacketizerOptions options, PacketizationException e, String scalarName) {
    options.remarks().accept(new Remark(Remark.Kind.REJECTED, e.function().orElse(scalarName), e.block().orElse(null),
        e.instruction().orElse(null), e.reason().orElseThrow().tag() + ": " + e.detail()));
  }

  /**
   * The guard against silent miscompiles: a packet function (or nested version, or wrapper) in which
   * no {@code ret} is reachable any more while the scalar function can return means the packet
   * function had undefined behaviour on every path (e.g. a call with another calling convention than
   * its callee's) that the clean-up turned into {@code unreachable}. That is our bug, never a result —
   * unless the scalar function has undefined behaviour on every path itself (random IR does): the
   * same clean-up on a copy of the scalar function tells. Likewise a packet function whose every
   * {@code ret} returns a constant poison or undef while the cleaned scalar copy returns a defined
   * value.
   */
  static void requireReturnsLikeScalar(LlvmModule module, Function scalar, Function packet, String what, String scalarName) {
    if (!canReturn(scalar)) return;
    boolean noReturn = !canReturn(packet);
    boolean poisonOnly = !noReturn && returnsOnlyUndefined(packet);
    if (!noReturn && !poisonOnly) return;
    Function probe = FunctionCloner.cloneInModule(module, scalar, "__packetizer.probe." + scalarName);
    try {
      LlvmModule.runPasses(probe, CLEANUP_PIPELINE, null);
      if (noReturn ? !canReturn(probe) : !canReturn(probe) || returnsOnlyUndefined(probe)) return;
    } finally {
      probe.delete();
    }
    String how = noReturn
        ? " cannot return (the clean-up reduced its body to 'unreachable': undefined behaviour on every path) while @" + scalarName + " can"
        : " returns only poison/undef (the clean-up folded its result away: a poison value reached every result) while @" + scalarName
            + " returns a defined value";
    throw new PacketizationException(PacketizationException.Kind.INTERNAL, "internal error: " + what + " @" + packet.name()
        + how + "; refusing to emit it", scalarName, packet.entry().describe(), null);
  }

  /**
   * Whether every reachable {@code ret} of a function with a result returns a constant {@code undef}
   * or {@code poison} (issue 19, fuzz seed 9910 #512: a poison edge mask folded a whole packet
   * function to {@code ret poison}).
   */
  static boolean returnsOnlyUndefined(Function f) {
    if (f.isDeclaration() || f.returnType().isVoid()) return false;
    Set<Block> seen = new HashSet<>();
    java.util.ArrayDeque<Block> work = new java.util.ArrayDeque<>();
    work.add(f.entry());
    boolean anyRet = false;
    while (!work.isEmpty()) {
      Block bl = work.pop();
      if (!seen.add(bl)) continue;
      Value t = bl.terminator();
      if (t == null) continue;
      if (t.opcode() == org.packetizer.core.ir.Opcode.RET) {
        if (t.numOperands() == 0 || !t.operand(0).isUndef()) return false;
        anyRet = true;
      }
      work.addAll(bl.successors());
    }
    return anyRet;
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
   * Clean-up on the packet function: slots back to SSA, then the usual scalar optimizations, each
   * once (issue 16: InstCombine is most of the clean-up's time; a second InstCombine and GVN after
   * it cost 35-40 % of the clean-up and changed no benchmark kernel's instruction count in total —
   * early-cse after the one InstCombine catches the redundancy it exposes: fifteenth round, irchecks
   * cleanup/loop-test-repeated-after-instcombine.ll; every pass left out makes some dumped module's
   * machine code larger, docs/performance.md). No loop
   * passes: {@code loop-mssa(licm)} run through LLVMRunPassesOnFunction grew the native heap by
   * 0.3–0.7 MB per packetization in EmbeddedPassExampleTest; codegen's MachineLICM hoists invariants.
   */
  public static final String CLEANUP_PIPELINE =
      "sroa,early-cse,simplifycfg,instcombine<no-verify-fixpoint>,early-cse,adce,simplifycfg";

  /**
   * The clean-up when the scalar copy was optimized first ({@code prepareOptimize}, the default):
   * {@link #CLEANUP_PIPELINE} without {@code sroa} (issue 16, seventh round). The preparation's sroa
   * already promoted every private variable it could on the scalar copy; what stays an alloca there
   * stays one in the packet function (same accesses, per lane or interleaved), and the emitter's own
   * slots ({@code .arg}/{@code .out} of calls through memory) escape into the call. Over the 1,863
   * modules of {@code bin/dump-packets} the output is byte-identical with and without it.
   */
  public static final String CLEANUP_AFTER_PREPARE = CLEANUP_PIPELINE.substring("sroa,".length());

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
      module.global(org.packetizer.core.widen.PacketEmitter.INACTIVE_LANE_SLOT).filter(g -> !g.hasUses()).ifPresent(Value::deleteGlobal);
    } catch (RuntimeException ignored) {
      // best effort: the original exception matters more
    }
  }
}
