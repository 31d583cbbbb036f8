package org.packetizer.core.wrapper;


import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.packetizer.core.api.PacketizationException;
import org.packetizer.core.api.Rejection;
import org.packetizer.core.api.PacketizationResult;
import org.packetizer.core.api.PacketizerOptions;
import org.packetizer.core.api.ParamKind;
import org.packetizer.core.api.Remark;
import org.packetizer.core.api.WrapperMode;
import org.packetizer.core.ir.Block;
import org.packetizer.core.ir.Function;
import org.packetizer.core.ir.FunctionCloner;
import org.packetizer.core.ir.IrBuilder;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.ir.Type;
import org.packetizer.core.ir.Value;
import org.packetizer.core.mask.MaskOps;
import org.packetizer.core.prepare.Preparer;

/**
 * Wrapper generation (thesis 4.6, Fig 4.18): serves a packet width S larger than the hardware width N
 * by packetizing at N into {@code <simd>.n<N>} (internal linkage) and emitting {@code <simd>} with
 * exactly the S-wide prototype a direct packetization would have, which calls the N-wide function
 * k = S/N times, once per N-lane slice i:
 *
 * <ul>
 *   <li>varying arguments (scalars and vectors of pointers) and the mask: lanes {@code [iN, iN+N)},
 *       taken with a {@code shufflevector};
 *   <li>uniform arguments: passed through;
 *   <li>linear arguments: {@code base + i*N*step} (for pointers, step in bytes);
 *   <li>struct-of-arrays pointers: the layouts differ (an S-wide buffer keeps lane j of leaf (o, s)
 *       at {@code S*o + j*s}, the N-wide function expects {@code N*o + j*s}), so every slice is
 *       copied into an N-wide temporary (one {@code alloca} per parameter) before the call, and the
 *       leaves the function may store to are copied back after it. The leaves are the scalar
 *       function's accesses through the parameter ({@link SoaLeaves}); they must have constant
 *       offsets.
 *   <li>masked functions: a call whose slice of the mask is all false is skipped (its result lanes
 *       are poison, as inactive lanes' results are);
 *   <li>the result: the k N-lane results concatenated with shuffles.
 * </ul>
 *
 * The k calls are unrolled (shuffle masks must be constants): k is at most {@code S/2}, and code size
 * grows by a call and a few shuffles per slice, not by a copy of the function.
 *
 * <p>Failure leaves the module as it was, as for every packetization.
 */
public final class LoopWrapper {
  private LoopWrapper() {}

  /**
   * Packetizes a function at the hardware width N for the wrapper: the driver's own packetization,
   * handed in so that this phase does not depend on the driver that calls it.
   */
  @FunctionalInterface
  public interface NarrowPacketizer {
    PacketizationResult run(PacketizerOptions options, LlvmModule module, String scalarName, String simdName);
  }

  /**
   * The hook of the driver ({@code Packetizer.run}): when the options and the target make the wrapper the way to
   * serve width S, builds it and returns the result; empty when the packet function is to be emitted
   * directly at S.
   *
   * @param kinds      the parameter kinds (already checked)
   * @param packetType the S-wide packet function type
   * @param declared   a declaration of {@code simdName} to fill, if the module has one
   */
  public static Optional<PacketizationResult> packetizeIfWider(LlvmModule module, Function scalar, String simdName,
      List<ParamKind> kinds, Type packetType, Optional<Function> declared, PacketizerOptions options,
      NarrowPacketizer narrow) {
    WrapperMode mode = options.wrapperMode();
    if (mode == WrapperMode.DIRECT) return Optional.empty();
    String fn = scalar.name();
    int s = options.width();
    HardwareWidth.Target target = options.hardwareWidth() > 0
        ? new HardwareWidth.Target(options.targetCpu().orElse(""), options.targetFeatures().orElse(""), options.hardwareWidth(),
            "the hardwareWidth option")
        : HardwareWidth.resolve(scalar, options.targetCpu().orElse(null), options.targetFeatures().orElse(null));
    int n = target.width();
    if (s <= n) return Optional.empty();
    if (hasCompositePacket(scalar, kinds)) {
      // an N-lane slice of a packetized vector or aggregate is not a contiguous piece of it
      if (mode == WrapperMode.AUTO) return Optional.empty();
      throw PacketizationException.unsupported(Rejection.UNSUPPORTED_SIGNATURE, "the wrapper for width " + s + " over hardware width " + n + " cannot slice"
          + " varying vector or aggregate parameters or results; use wrapper mode DIRECT (--wrapper direct)", fn, null, null);
    }
    if (s % n != 0) {
      throw PacketizationException.invalid(Rejection.INVALID_HARDWARE_WIDTH, "packet width " + s + " is not a multiple of the hardware width " + n + " ("
          + describe(target) + "): the wrapper calls the " + n + "-wide packet function S/N times, which must be a whole "
          + "number; choose a width that is a multiple of " + n + ", another hardware width, or wrapper mode DIRECT"
          + " (--wrapper direct)", fn);
    }
    if (n < 2) {
      if (mode == WrapperMode.AUTO) return Optional.empty();
      throw PacketizationException.invalid(Rejection.INVALID_HARDWARE_WIDTH, "the hardware width is 1 (" + describe(target) + "): there is no vector register"
          + " to loop over; use wrapper mode DIRECT (--wrapper direct) or give a hardware width", fn);
    }
    if (mode == WrapperMode.AUTO && s / n < AUTO_MIN_CALLS) return Optional.empty();
    Map<Integer, List<SoaLeaves.Leaf>> leaves;
    try {
      leaves = soaLeaves(module, scalar, kinds, options);
    } catch (SoaLeaves.NotConstant e) {
      if (mode == WrapperMode.AUTO) return Optional.empty();
      Value p = scalar.param(e.param);
      String name = p.name().isEmpty() ? "#" + e.param : "%" + p.name() + " (#" + e.param + ")";
      throw PacketizationException.unsupported(Rejection.UNSUPPORTED_SIGNATURE, "the wrapper for width " + s + " over hardware width " + n
          + " cannot copy the struct-of-arrays parameter " + name + " between the " + s + "-wide and " + n
          + "-wide layouts: it " + e.getMessage() + ", so the fields it accesses are not known at compile time; use"
          + " wrapper mode DIRECT (--wrapper direct) to packetize at width " + s + " directly", fn, null, e.instruction);
    }
    return build(module, scalar, simdName, kinds, packetType, declared, options, n, target, leaves, narrow);
  }

  private static boolean hasCompositePacket(Function scalar, List<ParamKind> kinds) {
    // (vectors, structs, arrays: their packets are element-major / per field, see widen.CompositePackets)
    if (isComposite(scalar.returnType())) return true;
    for (int i = 0; i < kinds.size(); i++) {
      if (kinds.get(i) instanceof ParamKind.Varying && isComposite(scalar.param(i).type())) {
        return true;
      }
    }
    return false;
  }

  private static boolean isComposite(Type t) { return t.isVector() || t.isAggregate(); }

  /** AUTO uses LOOP only from this many calls of the N-wide function on (S/N). */
  public static final int AUTO_MIN_CALLS = 8;

  /**
   * AUTO's rule, from {@code WrapperBenchmark} (table in docs/wrapper.md): LOOP when S/N is at least
   * {@link #AUTO_MIN_CALLS} and the N-wide packet function has a loop with a divergent exit; DIRECT
   * otherwise. Measured on SSE (N = 4) and AVX2 (N = 8) at S = 16, 32, 64 over 11 kernels: DIRECT is
   * 5-20% faster for straight-line and branchy code at every S (no calls, more independent work per
   * instruction) and 1.1-10x faster for small struct-of-arrays kernels (no copies); for loops whose
   * trip count differs per lane it is about as fast or faster up to S/N = 4, but from S/N = 8 on it
   * is 1.3-6x slower: the S-wide loop runs until the slowest of S lanes is done, and its state no
   * longer fits the 16 vector registers. The rule picks the faster form (or one within 3%) in 59 of
   * the 66 measured cases; the misses are a large branchy struct-of-arrays kernel with library calls
   * ({@code shade}: LOOP 9-70% faster at every S on SSE, at S = 64 on AVX2) and three cases within
   * 5-14%.
   */
  static boolean prefersLoop(int s, int n, PacketizationResult inner) {
    if (s / n < AUTO_MIN_CALLS) return false;
    return inner.blockInfo().stream().anyMatch(b -> b.loopHeader() && b.divergentLoop());
  }

  private static String describe(HardwareWidth.Target t) {
    if (t.source().startsWith("the ")) return "from " + t.source();
    return "detected from the " + t.source() + ": target-cpu \"" + t.cpu() + "\"" + (t.features().isEmpty() ? ""
        : ", target-features \"" + abbreviate(t.features()) + "\"");
  }

  private static String abbreviate(String s) { return s.length() <= 60 ? s : s.substring(0, 57) + "..."; }

  /** Leaves of every struct-of-arrays parameter, read from a prepared copy of the scalar function. */
  private static Map<Integer, List<SoaLeaves.Leaf>> soaLeaves(LlvmModule module, Function scalar, List<ParamKind> kinds,
      PacketizerOptions options) throws SoaLeaves.NotConstant {
    Map<Integer, List<SoaLeaves.Leaf>> out = new LinkedHashMap<>();
    if (kinds.stream().noneMatch(k -> k instanceof ParamKind.SoaPointer)) return out;
    Set<String> before = names(module);
    Function copy = FunctionCloner.cloneInModule(module, scalar, "__packetizer.wrapper.scan." + scalar.name());
    try {
      Preparer.prepare(module, copy, options, scalar.name());
      for (int i = 0; i < kinds.size(); i++) {
        if (kinds.get(i) instanceof ParamKind.SoaPointer) out.put(i, SoaLeaves.find(module, copy, i));
      }
      return out;
    } finally {
      copy.delete();
      deleteNewDeclarations(module, before);
    }
  }

  private static Optional<PacketizationResult> build(LlvmModule module, Function scalar, String simdName, List<ParamKind> kinds,
      Type packetType, Optional<Function> declared, PacketizerOptions options, int n, HardwareWidth.Target target,
      Map<Integer, List<SoaLeaves.Leaf>> leaves, NarrowPacketizer narrow) {
    long start = System.nanoTime();
    String fn = scalar.name();
    int s = options.width();
    String innerName = simdName + ".n" + n;
    Set<String> before = names(module);
    // remarks of the N-wide packetization reach the caller only if it is kept
    List<Remark> innerRemarks = new ArrayList<>();
    // (the N-wide function is internal: only the W-wide wrapper is published under the vector ABI)
    PacketizerOptions innerOptions = options.toBuilder().width(n).params(kinds).wrapperMode(WrapperMode.DIRECT)
        .vectorAbi(false).cAbi(false).remarks(innerRemarks::add).build();
    PacketizationResult inner = narrow.run(innerOptions, module, fn, innerName);
    Function innerF = module.function(innerName).orElseThrow();
    if (options.wrapperMode() == WrapperMode.AUTO && !prefersLoop(s, n, inner)) {
      innerF.delete();
      deleteNewDeclarations(module, before);
      return Optional.empty();
    }
    Function wrapper = null;
    try {
      innerF.setInternalLinkage();
      wrapper = module.addFunction("__packetizer.wrapper." + simdName, packetType);
      for (var e : scalar.stringAttributes().entrySet()) wrapper.setStringAttribute(e.getKey(), e.getValue());
      wrapper.setCallingConvention(scalar.publishedCallingConvention());
      for (String attr : List.of("nounwind", "willreturn", "norecurse", "mustprogress")) {
        if (scalar.hasEnumAttribute(attr)) wrapper.addEnumAttribute(attr);
      }
      new Emitter(module, wrapper, innerF, kinds, options.masked(), s, n, leaves).emit();
      module.verify().ifPresent(msg -> {
        throw new PacketizationException(PacketizationException.Kind.INTERNAL,
            "internal error: the wrapper is invalid: " + msg, fn);
      });
      if (declared.isPresent()) {
        declared.get().replaceAllUsesWith(wrapper);
        declared.get().delete();
      }
      wrapper.setName(simdName);
      // vectors in the signature travel as a C caller compiled for this target passes them
      org.packetizer.core.mapping.SignatureAbi.fitCallers(wrapper);
      org.packetizer.core.mapping.SignatureAbi.fitCallers(innerF);
      module.verify().ifPresent(msg -> {
        throw new PacketizationException(PacketizationException.Kind.INTERNAL,
            "internal error: the module is invalid after adding the wrapper: " + msg, fn);
      });
    } catch (RuntimeException e) {
      try {
        if (wrapper != null) wrapper.delete();
        innerF.delete();
        deleteNewDeclarations(module, before);
      } catch (RuntimeException ignored) {
        // best effort: the original exception matters more
      }
      if (e instanceof PacketizationException pe) throw pe;
      PacketizationException pe = new PacketizationException(PacketizationException.Kind.INTERNAL,
          "internal error while building the wrapper: " + e, fn);
      pe.initCause(e);
      throw pe;
    }
    innerRemarks.forEach(options.remarks());
    List<Remark> remarks = new ArrayList<>(inner.remarks());
    Remark note = new Remark(Remark.Kind.NOTE, fn, null, null, "width " + s + " exceeds the hardware width " + n + " ("
        + describe(target) + "): @" + simdName + " calls the " + n + "-wide @" + innerName + " " + (s / n)
        + " times, one slice of the lanes each (wrapper, thesis 4.6)");
    remarks.add(note);
    options.remarks().accept(note);
    return Optional.of(new PacketizationResult(fn, simdName, s, inner.params(), inner.shapes(), inner.uniformValues(),
        inner.varyingValues(), inner.blocks(), inner.linearizedBranches(), inner.keptBranches(), inner.selects(),
        inner.vectorLoads(), inner.vectorStores(), inner.gathers(), inner.scatters(), inner.cascades(), inner.vectorCalls(),
        inner.scalarizedCalls(), inner.scalarInstructions(), inner.emittedInstructions(),
        inner.packetInstructions() + wrapper.instructionCount(), List.copyOf(remarks), inner.blockInfo(),
        System.nanoTime() - start, withWrapper(inner.phaseNanos(), System.nanoTime() - start - inner.nanos())));
  }

  private static java.util.Map<String, Long> withWrapper(java.util.Map<String, Long> inner, long wrapperNanos) {
    java.util.Map<String, Long> out = new java.util.LinkedHashMap<>(inner);
    out.put("wrapper", Math.max(0, wrapperNanos));
    return out;
  }

  private static Set<String> names(LlvmModule m) {
    Set<String> out = new HashSet<>();
    for (Function f : m.functions()) out.add(f.name());
    return out;
  }

  private static void deleteNewDeclarations(LlvmModule m, Set<String> before) {
    for (Function f : m.functions()) {
      if (!before.contains(f.name()) && f.isDeclaration() && !f.hasUses()) f.delete();
    }
  }

  /** Emits the wrapper's body. */
  private static final class Emitter {
    private final LlvmModule module;
    private final LlvmContext ctx;
    private final Function wrapper, inner;
    private final List<ParamKind> kinds;
    private final boolean masked;
    private final int s, n, k;
    private final Map<Integer, List<SoaLeaves.Leaf>> leaves;

    Emitter(LlvmModule module, Function wrapper, Function inner, List<ParamKind> kinds, boolean masked, int s, int n,
        Map<Integer, List<SoaLeaves.Leaf>> leaves) {
      this.module = module;
      this.ctx = module.context();
      this.wrapper = wrapper;
      this.inner = inner;
      this.kinds = kinds;
      this.masked = masked;
      this.s = s;
      this.n = n;
      this.k = s / n;
      this.leaves = leaves;
    }

    void emit() {
      try (IrBuilder b = new IrBuilder(ctx)) {
        b.atEnd(wrapper.appendBlock("entry"));
        int params = kinds.size();
        for (int j = 0; j < params; j++) wrapper.param(j).setName(inner.param(j).name());
        Value mask = masked ? wrapper.param(params) : null;
        if (mask != null) mask.setName("mask");
        Map<Integer, Value> temps = new LinkedHashMap<>();
        for (var e : leaves.entrySet()) {
          long bytes = Math.max(1, SoaLeaves.packetBytes(e.getValue(), n));
          Value t = b.alloca(ctx.i8().arrayOf(bytes), wrapper.param(e.getKey()).name() + ".n" + n);
          t.setAlignment(64);
          temps.put(e.getKey(), t);
        }
        Type rt = wrapper.returnType();
        Type slice = rt.isVoid() ? null : rt.elementType().vectorOf(n);
        List<Value> results = new ArrayList<>();
        MaskOps masks = new MaskOps(module, b, n);
        for (int i = 0; i < k; i++) {
          List<Value> args = new ArrayList<>();
          for (int j = 0; j < params; j++) args.add(argument(b, j, i, temps));
          Value sliceMask = null;
          Block skipFrom = null;
          Block join = null;
          if (mask != null) {
            sliceMask = slice(b, mask, i, "mask." + i);
            args.add(sliceMask);
            Block call = wrapper.appendBlock("call" + i);
            join = wrapper.appendBlock("next" + i);
            skipFrom = b.currentBlock();
            b.condBr(masks.any(sliceMask, "any" + i), call, join);
            b.atEnd(call);
          }
          for (var e : temps.entrySet()) copy(b, e.getKey(), e.getValue(), i, true);
          Value r = b.call(inner, args, rt.isVoid() ? "" : "r" + i);
          r.setInstructionCallConv(inner.callingConvention());
          for (var e : temps.entrySet()) copy(b, e.getKey(), e.getValue(), i, false);
          if (join != null) {
            Block callEnd = b.currentBlock();
            b.br(join);
            b.atEnd(join);
            if (slice != null) {
              Value phi = b.phi(slice, "r" + i + ".or.poison");
              phi.addIncoming(r, callEnd);
              phi.addIncoming(b.poison(slice), skipFrom);
              r = phi;
            }
          }
          if (slice != null) results.add(r);
        }
        if (rt.isVoid()) {
          b.retVoid();
        } else {
          b.ret(concat(b, results));
        }
      }
    }

    private Value argument(IrBuilder b, int j, int i, Map<Integer, Value> temps) {
      Value p = wrapper.param(j);
      String name = p.name().isEmpty() ? "" : p.name() + "." + i;
      return switch (kinds.get(j)) {
        case ParamKind.Varying v -> slice(b, p, i, name);
        case ParamKind.Uniform u -> p;
        case ParamKind.Linear l -> {
          long delta = (long) i * n * l.step();
          if (delta == 0) yield p;
          if (p.type().isPointer()) yield b.gep(ctx.i8(), p, List.of(b.i64(delta)), false, name);
          yield b.add(p, b.constInt(p.type(), delta), name);
        }
        case ParamKind.SoaPointer sp -> temps.containsKey(j) ? temps.get(j) : p;
      };
    }

    /** Lanes {@code [iN, iN+N)} of an S-lane vector. */
    private Value slice(IrBuilder b, Value v, int i, String name) {
      List<Value> idx = new ArrayList<>();
      for (int l = 0; l < n; l++) idx.add(b.i32((long) i * n + l));
      return b.shuffle(v, b.poison(v.type()), b.constVector(idx), name);
    }

    /**
     * Copies slice i of every leaf of struct-of-arrays parameter j from the S-wide buffer into the
     * N-wide temporary ({@code in}), or the stored leaves back.
     */
    private void copy(IrBuilder b, int j, Value temp, int i, boolean in) {
      Value p = wrapper.param(j);
      Type ptr = ctx.ptrType();
      Type i64 = ctx.i64();
      Function memcpy = module.intrinsic("llvm.memcpy", ptr, ptr, i64);
      for (SoaLeaves.Leaf leaf : leaves.get(j)) {
        if (!in && !leaf.stored()) continue;
        long wide = s * leaf.offset() + (long) i * n * leaf.size();
        long narrow = n * leaf.offset();
        Value w = wide == 0 ? p : b.gep(ctx.i8(), p, List.of(b.i64(wide)), true, "");
        Value t = narrow == 0 ? temp : b.gep(ctx.i8(), temp, List.of(b.i64(narrow)), true, "");
        Value len = b.i64(n * leaf.size());
        b.call(memcpy, in ? List.of(t, w, len, b.i1(false)) : List.of(w, t, len, b.i1(false)), "");
      }
    }

    /** Concatenates N-lane vectors pairwise into one S-lane vector. */
    private Value concat(IrBuilder b, List<Value> parts) {
      List<Value> level = parts;
      while (level.size() > 1) {
        List<Value> next = new ArrayList<>();
        for (int i = 0; i < level.size(); i += 2) {
          Value a = level.get(i);
          Value c = level.get(i + 1);
          int m = a.type().vectorSize();
          List<Value> idx = new ArrayList<>();
          for (int l = 0; l < 2 * m; l++) idx.add(b.i32(l));
          next.add(b.shuffle(a, c, b.constVector(idx), level.size() == 2 ? "result" : ""));
        }
        level = next;
      }
      return level.getFirst();
    }
  }
}
