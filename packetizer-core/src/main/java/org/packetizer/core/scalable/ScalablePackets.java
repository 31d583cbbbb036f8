package org.packetizer.core.scalable;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.packetizer.core.api.PacketizationException;
import org.packetizer.core.ir.Block;
import org.packetizer.core.ir.Function;
import org.packetizer.core.ir.IrLoadException;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.ir.Opcode;
import org.packetizer.core.ir.Type;
import org.packetizer.core.ir.Value;

/**
 * Scalable packets ({@code --scalable}): the packet function takes {@code <vscale x W x T>} values and a
 * {@code <vscale x W x i1>} predicate, so one call computes vscale × W lanes, vscale being known only at
 * run time (SVE's vector length, RISC-V V's VLEN / 64).
 *
 * <p>How: the pipeline emits the masked W-wide packet function as usual; when every instruction of it
 * is <em>lane-wise</em> — the same operation on every lane, so the same code is right for any number
 * of lanes — it is re-typed: each {@code <W x T>} becomes {@code <vscale x W x T>}, splat constants
 * become scalable splats and overloaded intrinsics ({@code llvm.masked.load}, {@code
 * llvm.vector.reduce.or}, {@code llvm.sqrt}, ...) their scalable overloads. Lane-wise are: arithmetic,
 * compares, selects, casts, phis and branches on uniform conditions, broadcasts (insertelement into
 * lane 0 and a zero shuffle), loads and stores of whole packets, masked loads, stores, gathers and
 * scatters, element-wise intrinsics and {@code llvm.vector.reduce.*} (any/all lanes active).
 *
 * <p>What is not (each reported as {@code UNSUPPORTED} naming the instruction): anything that names a
 * lane — {@code extractelement}/{@code insertelement} at a lane (per-lane calls of functions without a
 * vector variant, the if-cascade memory strategy), shuffles other than broadcasts, constant vectors
 * whose lanes differ (lane numbers would need {@code llvm.stepvector}); vectors of another length than
 * W (vector values inside the scalar function); struct-of-arrays memory and aggregates holding packets
 * (a scalable vector has no size in memory); calls of non-intrinsic functions with packet arguments.
 */
public final class ScalablePackets {
  private ScalablePackets() {}

  /** Intrinsics that act lane by lane (plus the masked memory intrinsics and reductions). */
  private static final Set<String> LANE_WISE = Set.of(
      "llvm.fabs", "llvm.sqrt", "llvm.fma", "llvm.fmuladd", "llvm.minnum", "llvm.maxnum", "llvm.minimum", "llvm.maximum",
      "llvm.copysign", "llvm.floor", "llvm.ceil", "llvm.trunc", "llvm.rint", "llvm.nearbyint", "llvm.round",
      "llvm.roundeven", "llvm.smin", "llvm.smax", "llvm.umin", "llvm.umax", "llvm.abs", "llvm.ctpop", "llvm.ctlz",
      "llvm.cttz", "llvm.sadd.sat", "llvm.uadd.sat", "llvm.ssub.sat", "llvm.usub.sat", "llvm.fshl", "llvm.fshr",
      "llvm.bitreverse", "llvm.bswap", "llvm.masked.load", "llvm.masked.store", "llvm.masked.gather",
      "llvm.masked.scatter", "llvm.stepvector");

  /**
   * Element-wise intrinsics LLVM cannot expand on scalable vectors (it would call the libm function once
   * per lane, which needs a known lane count): a helper loops over the vscale × W lanes instead, calling
   * the scalar intrinsic once per lane (results bit-identical to the scalar function's).
   */
  private static final Set<String> PER_LANE = Set.of(
      "llvm.sin", "llvm.cos", "llvm.tan", "llvm.asin", "llvm.acos", "llvm.atan", "llvm.atan2", "llvm.sinh", "llvm.cosh",
      "llvm.tanh", "llvm.exp", "llvm.exp2", "llvm.exp10", "llvm.log", "llvm.log2", "llvm.log10", "llvm.pow", "llvm.powi",
      "llvm.ldexp", "llvm.lrint", "llvm.llrint", "llvm.lround", "llvm.llround");

  static boolean perLane(String name, int w) {
    for (String base : PER_LANE) {
      if (name.startsWith(base + ".v" + w)) return true;
    }
    return false;
  }

  private static final Pattern NAMED_TYPE = Pattern.compile("%(\"[^\"]*\"|[\\w$.-]+) = type ");

  private static final Pattern DECLARE = Pattern.compile("^declare [^@]*@(\"[^\"]*\"|[\\w$.]+)\\(");

  private static Optional<String> declaredName(String line) {
    Matcher m = DECLARE.matcher(line.strip());
    return m.find() ? Optional.of(m.group(1)) : Optional.empty();
  }

  private static boolean hasPackets(Type fnType, int w) {
    if (fnType.returnType().isVector()) return true;
    for (Type t : fnType.paramTypes()) if (t.isVector()) return true;
    return false;
  }

  /**
   * The fixed-width text (re-typed with the caller) of {@code name}: {@code intrinsic} on each lane in a
   * loop over vscale × w lanes. Scalar operands (powi's exponent) go through as they are.
   */
  static String perLaneHelper(Function intrinsic, String name, int w) {
    Type ft = intrinsic.functionType();
    Type rt = ft.returnType();
    String scalarName = intrinsic.name().replaceAll("\\.v" + w + "(i\\d+|f16|bf16|f32|f64)", ".$1");
    StringBuilder params = new StringBuilder();
    StringBuilder lanes = new StringBuilder();
    List<String> args = new ArrayList<>();
    List<String> scalarParams = new ArrayList<>();
    for (int i = 0; i < ft.paramTypes().size(); i++) {
      Type t = ft.paramTypes().get(i);
      if (i > 0) params.append(", ");
      params.append(t).append(" %a").append(i);
      if (t.isVector()) {
        lanes.append("  %x").append(i).append(" = extractelement ").append(t).append(" %a").append(i).append(", i64 %i\n");
        args.add(t.elementType() + " %x" + i);
        scalarParams.add(t.elementType().toString());
      } else {
        args.add(t + " %a" + i);
        scalarParams.add(t.toString());
      }
    }
    Type re = rt.elementType();
    return "declare " + re + " @" + scalarName + "(" + String.join(", ", scalarParams) + ")\n"
        + "declare i64 @llvm.vscale.i64()\n"
        + "define internal " + rt + " @" + quote(name) + "(" + params + ") {\n"
        + "entry:\n"
        + "  %vscale = call i64 @llvm.vscale.i64()\n"
        + "  %n = mul i64 %vscale, " + w + "\n"
        + "  br label %lane\n"
        + "lane:\n"
        + "  %i = phi i64 [ 0, %entry ], [ %next, %lane ]\n"
        + "  %acc = phi " + rt + " [ poison, %entry ], [ %acc.next, %lane ]\n"
        + lanes
        + "  %y = call " + re + " @" + scalarName + "(" + String.join(", ", args) + ")\n"
        + "  %acc.next = insertelement " + rt + " %acc, " + re + " %y, i64 %i\n"
        + "  %next = add i64 %i, 1\n"
        + "  %more = icmp ult i64 %next, %n\n"
        + "  br i1 %more, label %lane, label %done\n"
        + "done:\n"
        + "  ret " + rt + " %acc.next\n"
        + "}\n";
  }

  /**
   * Makes {@code scalableName}, the scalable version of the masked {@code w}-wide packet function
   * {@code fixed}, in {@code module}. The fixed function is left as it is.
   *
   * @throws PacketizationException UNSUPPORTED naming the first instruction that is not lane-wise
   */
  public static Function build(LlvmModule module, Function fixed, String scalableName, int w, String scalarName) {
    return build(module, fixed, scalableName, w, scalarName, null);
  }

  /**
   * As {@link #build(LlvmModule, Function, String, int, String)}; {@code made} names the functions this
   * packetization made (packet versions of callees, exact vector helpers): a call of one of them with
   * packets gets a scalable version of it too. Null: none (calls with packets are refused).
   */
  public static Function build(LlvmModule module, Function fixed, String scalableName, int w, String scalarName,
      Set<String> made) {
    return new Builder(module, w, scalarName, made).build(fixed, scalableName);
  }

  /** One scalable packetization: the scalable versions of callees made so far (shared by the call tree). */
  private static final class Builder {
    final LlvmModule module;
    final int w;
    final String scalarName;
    final Set<String> made;
    final Map<String, Function> scalableCallees = new LinkedHashMap<>();
    final Set<String> inProgress = new java.util.HashSet<>();

    Builder(LlvmModule module, int w, String scalarName, Set<String> made) {
      this.module = module;
      this.w = w;
      this.scalarName = scalarName;
      this.made = made == null ? Set.of() : made;
    }

    /** A call of {@code f} with packets can get a scalable callee. */
    boolean convertible(Value f) {
      if (!f.isFunction()) return false;
      Function fn = Function.of(f.ref());
      return made.contains(fn.name()) && !fn.isDeclaration() && !fn.name().startsWith("llvm.");
    }

    Function scalableCallee(Function callee) {
      Function done = scalableCallees.get(callee.name());
      if (done != null) return done;
      if (!inProgress.add(callee.name())) {
        throw PacketizationException.unsupported("scalable packets: packet function @" + callee.name() + " calls itself"
            + " (recursive packet functions are not re-typed)", scalarName, null, null);
      }
      String name = callee.name() + ".scalable";
      for (int i = 1; module.function(name).isPresent(); i++) name = callee.name() + ".scalable" + i;
      Function s = build(callee, name);
      s.setInternalLinkage();
      scalableCallees.put(callee.name(), s);
      inProgress.remove(callee.name());
      return s;
    }

  Function build(Function fixed, String scalableName) {
    rewriteMaskTests(module, fixed, w);
    check(fixed, w, scalarName, this::convertible);
    // functions and globals the body refers to are declared under placeholder names and replaced by the
    // module's own after linking (they may be internal, which a declaration cannot link to)
    Map<String, String> decls = new LinkedHashMap<>();
    Map<String, Value> placeholders = new LinkedHashMap<>();
    Map<String, String> renamed = new LinkedHashMap<>();
    Map<String, String> helpers = new LinkedHashMap<>();
    for (Block bl : fixed.blocks()) {
      for (Value inst : bl.instructions()) {
        for (Value op : inst.operands()) {
          if (op == null || !(op.isFunction() || op.isGlobalVariable())) continue;
          String name = op.name();
          if (renamed.containsKey(name)) continue;
          if (op.isFunction() && name.startsWith("llvm.") && perLane(name, w)) {
            // no scalable expansion in LLVM: a loop over the vscale × w lanes calling the scalar intrinsic
            String helper = "__packetizer.lanes." + name;
            helpers.put(name, perLaneHelper(Function.of(op.ref()), helper, w));
            renamed.put(name, helper);
            continue;
          }
          if (op.isFunction() && name.startsWith("llvm.")) {
            decls.put(name, retype(declaration(Function.of(op.ref())), w));
            renamed.put(name, name);
            continue;
          }
          if (op.isFunction() && convertible(op) && hasPackets(Function.of(op.ref()).functionType(), w)) {
            Function sc = scalableCallee(Function.of(op.ref()));
            String ph = "__packetizer.scalable.ref" + placeholders.size();
            placeholders.put(ph, sc);
            renamed.put(name, ph);
            Type ft = sc.functionType();
            List<String> ps = ft.paramTypes().stream().map(Type::toString).toList();
            decls.put(name, "declare " + ft.returnType() + " @" + ph + "(" + String.join(", ", ps) + ")");
            continue;
          }
          String ph = "__packetizer.scalable.ref" + placeholders.size();
          placeholders.put(ph, op);
          renamed.put(name, ph);
          if (op.isFunction()) {
            Type ft = Function.of(op.ref()).functionType();
            List<String> ps = ft.paramTypes().stream().map(Type::toString).toList();
            decls.put(name, "declare " + ft.returnType() + " @" + ph + "(" + String.join(", ", ps) + (ft.isVarArg() ? ", ..." : "") + ")");
          } else {
            decls.put(name, "@" + ph + " = external global " + op.globalValueType());
          }
        }
      }
    }
    String fixedText = stripAttributes(fixed.print());
    for (var e : helpers.entrySet()) {
      // renamed before re-typing (the helper's .v<W> suffix becomes .nxv<W> with everything else)
      fixedText = Pattern.compile("@" + Pattern.quote(quote(e.getKey())) + "(?![\\w$.])").matcher(fixedText)
          .replaceAll(Matcher.quoteReplacement("@" + quote("__packetizer.lanes." + e.getKey())));
    }
    String body = retype(fixedText, w);
    for (String h : helpers.values()) body = body + "\n" + retype(h, w);
    body = body.replaceFirst("@" + Pattern.quote(quote(fixed.name())) + "\\(", Matcher.quoteReplacement("@" + quote(scalableName)) + "(");
    for (var e : renamed.entrySet()) {
      if (e.getKey().equals(e.getValue()) || helpers.containsKey(e.getKey())) continue;
      body = Pattern.compile("@" + Pattern.quote(quote(e.getKey())) + "(?![\\w$.])").matcher(body)
          .replaceAll(Matcher.quoteReplacement("@" + e.getValue()));
    }
    StringBuilder text = new StringBuilder();
    // the module's named types (%struct.T in GEPs and allocas)
    for (String line : module.toIr().split("\n")) {
      if (NAMED_TYPE.matcher(line).lookingAt()) text.append(line).append('\n');
    }
    Set<String> declared = new java.util.HashSet<>();
    for (String d : decls.values()) {
      for (String line : d.split("\n")) declaredName(line).ifPresent(declared::add);
      text.append(d).append('\n');
    }
    for (String line : body.split("\n", -1)) {
      // the per-lane helpers declare the intrinsics they call: once per module text
      Optional<String> dn = declaredName(line);
      if (dn.isPresent() && !declared.add(dn.get())) continue;
      text.append(line).append('\n');
    }
    LlvmModule parsed;
    try {
      parsed = module.context().parseIr(text.toString(), "scalable:" + scalableName);
    } catch (IrLoadException e) {
      throw PacketizationException.unsupported("scalable packets: the lane-wise packet function could not be re-typed ("
          + e.getMessage() + ")", scalarName, null, null);
    }
    try {
      parsed.setTargetTriple(module.targetTriple());
      parsed.setDataLayout(module.dataLayoutString());
      Optional<String> bad = parsed.verify();
      if (bad.isPresent()) {
        throw PacketizationException.unsupported("scalable packets: the re-typed function is not valid IR: " + bad.get(),
            scalarName, null, null);
      }
      Function f = parsed.function(scalableName).orElseThrow();
      for (var e : fixed.stringAttributes().entrySet()) f.setStringAttribute(e.getKey(), e.getValue());
      for (Function h : parsed.functions()) {
        if (h.isDeclaration() || h.equals(f)) continue;
        // the per-lane helpers: the same target as the packet function (scalable vectors need +sve / +v)
        for (String a : List.of("target-cpu", "target-features")) fixed.stringAttribute(a).ifPresent(v -> h.setStringAttribute(a, v));
      }
      for (String attr : List.of("nounwind", "willreturn", "norecurse", "mustprogress")) {
        if (fixed.hasEnumAttribute(attr)) f.addEnumAttribute(attr);
      }
      f.setCallingConvention(fixed.callingConvention());
      // linked as an external function (the linker leaves out unreferenced internal ones); internal again below
      f.setExternalLinkage();
    } catch (RuntimeException e) {
      parsed.close();
      throw e;
    }
    try {
      module.linkIn(parsed);
    } catch (org.packetizer.core.ir.LlvmException e) {
      throw PacketizationException.unsupported("scalable packets: cannot link the scalable function into the module",
          scalarName, null, null);
    }
    for (var e : placeholders.entrySet()) {
      Optional<Value> ph = module.function(e.getKey()).map(x -> (Value) x).or(() -> module.global(e.getKey()));
      if (ph.isEmpty()) continue;
      ph.get().replaceAllUsesWith(e.getValue());
      if (ph.get().isFunction()) Function.of(ph.get().ref()).delete();
      else ph.get().deleteGlobal();
    }
    Function out = module.function(scalableName).orElseThrow();
    out.setLinkage(fixed.linkage());
    return out;
  }
  }

  /**
   * LLVM's clean-up writes "any lane active" as {@code icmp ne (bitcast <W x i1> %m to iW), 0} (and
   * "no lane", "all lanes" with eq 0 / eq -1): one bit per lane, which has no scalable form. These
   * become {@code llvm.vector.reduce.or} / {@code and} of the mask, which has.
   */
  static void rewriteMaskTests(LlvmModule module, Function f, int w) {
    var ctx = module.context();
    Type maskType = ctx.i1().vectorOf(w);
    List<Value> casts = new ArrayList<>();
    for (Block bl : f.blocks()) {
      for (Value inst : bl.instructions()) {
        if (inst.opcode() == Opcode.BITCAST && inst.operand(0).type().equals(maskType) && inst.type().isInteger(w)) casts.add(inst);
      }
    }
    try (org.packetizer.core.ir.IrBuilder b = new org.packetizer.core.ir.IrBuilder(ctx)) {
      for (Value cast : casts) {
        for (Value user : cast.users()) {
          if (user.opcode() != Opcode.ICMP) continue;
          Value other = user.operand(0).equals(cast) ? user.operand(1) : user.operand(0);
          if (!other.isConstantInt()) continue;
          boolean eq = user.isICmpEq();
          if (!eq && !user.isICmpNe()) continue;
          boolean zero = other.constIntZExt() == 0;
          boolean ones = other.isAllOnesValue();
          if (!zero && !ones) continue;
          b.before(user);
          Function reduce = module.intrinsic(zero ? "llvm.vector.reduce.or" : "llvm.vector.reduce.and", maskType);
          Value r = b.call(reduce, List.of(cast.operand(0)), "lanes");
          // ne 0: any lane; eq 0: no lane; eq -1: all lanes; ne -1: not all lanes
          Value v = (zero != eq) ? r : b.xor(r, b.i1(true), "lanes.not");
          user.replaceAllUsesWith(v);
          user.eraseFromParent();
        }
        if (cast.users().isEmpty()) cast.eraseFromParent();
      }
    }
  }

  /** Rejects the first instruction of {@code f} that is not lane-wise (see the class comment). */
  static void check(Function f, int w, String fn) {
    check(f, w, fn, callee -> false);
  }

  static void check(Function f, int w, String fn, java.util.function.Predicate<Value> convertibleCallee) {
    for (Type t : f.functionType().paramTypes()) requirePacketType(t, w, fn, null, "parameter type " + t);
    requirePacketType(f.returnType(), w, fn, null, "return type " + f.returnType());
    for (Block bl : f.blocks()) {
      for (Value inst : bl.instructions()) {
        String why = whyNotLaneWise(inst, w, convertibleCallee);
        if (why != null) {
          throw PacketizationException.unsupported("scalable packets: " + why + " (only lane-wise code can run on vscale × "
              + w + " lanes; see docs/cross-targets.md)", fn, bl.describe(), inst.print().strip());
        }
      }
    }
  }

  private static void requirePacketType(Type t, int w, String fn, String bl, String what) {
    if (t.isAggregate() && containsVector(t) && !(what.startsWith("return type") && flatPacketStruct(t, w))) {
      throw PacketizationException.unsupported("scalable packets: " + what + " holds packets inside an aggregate (a scalable"
          + " vector has no size in memory)", fn, bl, null);
    }
    if (t.isVector() && t.vectorSize() != w) {
      throw PacketizationException.unsupported("scalable packets: " + what + " is a vector of " + t.vectorSize()
          + " lanes, not " + w, fn, bl, null);
    }
  }

  /** A struct (not an array) whose elements are packets of w lanes or scalars: no aggregate inside. */
  private static boolean flatPacketStruct(Type t, int w) {
    if (!t.isStruct()) return false;
    for (Type e : t.structElements()) {
      if (e.isAggregate() || (e.isVector() && e.vectorSize() != w)) return false;
    }
    return true;
  }

  private static boolean containsVector(Type t) {
    if (t.isVector()) return true;
    if (t.isStruct()) return t.structElements().stream().anyMatch(ScalablePackets::containsVector);
    if (t.isArray()) return containsVector(t.elementType());
    return false;
  }

  /** Null when {@code inst} acts on every lane alike; else why not. */
  static String whyNotLaneWise(Value inst, int w) {
    return whyNotLaneWise(inst, w, callee -> false);
  }

  static String whyNotLaneWise(Value inst, int w, java.util.function.Predicate<Value> convertibleCallee) {
    Type t = inst.type();
    if (t.isVector() && t.vectorSize() != w) return "a vector of " + t.vectorSize() + " lanes (not " + w + ")";
    Opcode op = inst.opcode();
    // a flat struct of packets and scalars in registers (a function's several results: the refill driver's split
    // functions return {at loop header, state..., result}) is re-typed as it is; in memory it would have no size
    boolean inRegisters = op == Opcode.INSERTVALUE || op == Opcode.EXTRACTVALUE || op == Opcode.RET || op == Opcode.PHI
        || op == Opcode.SELECT;
    if (t.isAggregate() && containsVector(t) && !(inRegisters && flatPacketStruct(t, w))) return "an aggregate holding packets";
    if (t.isVector() && t.elementType().isInteger() && t.elementType().intWidth() > 64) return "a packet of " + t.elementType();
    for (Value o : inst.operands()) {
      if (o != null && o.type().isAggregate() && containsVector(o.type()) && !(inRegisters && flatPacketStruct(o.type(), w))) {
        return "an aggregate holding packets";
      }
    }
    if (op == Opcode.GEP && containsVector(inst.gepSourceElementType())) {
      return "an address inside packets in memory (struct-of-arrays layout: where a lane's value lies depends on the"
          + " number of lanes)";
    }
    switch (op) {
      case FREM -> {
        // LLVM expands frem into a call of fmod per lane, which it cannot do on scalable vectors
        if (t.isVector()) return "frem on packets needs fmod one lane at a time";
      }
      case EXTRACTELEMENT -> {
        // lane 0 is lane 0 at any vector length (the base of a linear value, the first lane of an address);
        // any other lane stands for one of W lanes handled one by one, and lanes W and up would be missed
        // A variable lane (the lane loops the emitter writes for scalable packets: 0 .. vscale × W - 1) is
        // right at any length. A constant lane k > 0 is refused: the emitter's W-fold unrolled per-lane code
        // uses constant lanes 0 .. W-1, which would leave lanes W and up out.
        Value idx = inst.operand(1);
        if (idx.isConstantInt() && idx.constIntZExt() != 0) return "extractelement reads lane " + idx.constIntZExt();
      }
      case INSERTELEMENT -> {
        Value idx = inst.operand(2);
        Value base = inst.operand(0);
        boolean broadcastStart = idx.isConstantInt() && idx.constIntZExt() == 0 && isUndefOrPoison(base)
            && !inst.users().isEmpty() && inst.users().stream().allMatch(u -> u.isShuffleVector() && isZeroShuffle(u));
        if (!broadcastStart && idx.isConstantInt()) return "insertelement writes lane " + idx.constIntZExt();
      }
      case SHUFFLEVECTOR -> {
        if (!isZeroShuffle(inst)) return shuffleKind(inst) + " moves lanes";
      }
      case ALLOCA -> {
        if (containsVector(inst.allocatedType())) return "an alloca of packets";
      }
      case BITCAST -> {
        Type from = inst.operand(0).type();
        if (from.isVector() != t.isVector() || (from.isVector() && from.vectorSize() != t.vectorSize())) {
          return "a bit cast that regroups lanes";
        }
      }
      case CALL -> {
        Value callee = inst.operand(inst.numOperands() - 1);
        boolean vectorArgs = t.isVector();
        for (int i = 0; i + 1 < inst.numOperands(); i++) vectorArgs |= inst.operand(i).type().isVector();
        if (!callee.isFunction()) return vectorArgs ? "an indirect call with packets" : null;
        String name = callee.name();
        if (!name.startsWith("llvm.")) {
          if (!vectorArgs || convertibleCallee.test(callee)) return null;
          return "a call of @" + name + " with packets";
        }
        if (!vectorArgs) return null;
        if (name.startsWith("llvm.vector.reduce.") || perLane(name, w)) return null;
        for (String base : LANE_WISE) if (name.equals(base) || name.startsWith(base + ".")) return null;
        return "intrinsic @" + name + " is not known to act lane by lane";
      }
      default -> { }
    }
    for (Value o : inst.operands()) {
      if (o == null || !o.type().isVector() || !o.isConstant() || o.isGlobalValue()) continue;
      if (!isSplatConstant(o)) return "constant vector " + o.print() + " has different lanes (lane numbers need llvm.stepvector)";
    }
    return null;
  }

  /**
   * What a non-broadcast shuffle does, for the refusal: a reverse, splice, interleave or de-interleave
   * has a scalable form ({@code llvm.vector.reverse}, {@code .splice}, {@code .interleave2}, {@code
   * .deinterleave2}), but every shuffle of W-lane packets here is written by the emitter for W lanes
   * (prefix scans in log2 W steps, strided spans, unrolled per-lane results that LLVM's clean-up merged):
   * mapped alone, it would change meaning at any other lane count, so it is refused, named.
   */
  static String shuffleKind(Value shuffle) {
    int len = shuffle.shuffleMaskLength();
    int n = shuffle.operand(0).type().isVector() ? shuffle.operand(0).type().vectorSize() : -1;
    int[] m = new int[len];
    for (int i = 0; i < len; i++) m[i] = shuffle.shuffleMaskValue(i);
    boolean reverse = len == n, splice = len == n, interleave = len == 2 * n, deinterleave = 2 * len == n || len == n;
    int d = m.length > 0 ? m[0] : 0;
    int p = m.length > 0 ? m[0] : 0;
    for (int i = 0; i < len; i++) {
      boolean undef = m[i] < 0;
      reverse &= undef || m[i] == n - 1 - i;
      splice &= undef || m[i] == d + i;
      interleave &= undef || m[i] == (i % 2 == 0 ? i / 2 : n + i / 2);
      deinterleave &= undef || m[i] == 2 * i + p;
    }
    deinterleave &= p == 0 || p == 1;
    String kind = reverse ? "a lane reverse (llvm.vector.reverse)"
        : splice && d != 0 ? "a lane splice by " + d + " (llvm.vector.splice)"
        : interleave ? "an interleave (llvm.vector.interleave2)"
        : deinterleave ? "a de-interleave (llvm.vector.deinterleave2)"
        : "a shuffle other than a broadcast";
    return kind + " written for " + n + " lanes";
  }

  private static boolean isUndefOrPoison(Value v) {
    return v.isUndef() || v.isPoison();
  }

  private static boolean isZeroShuffle(Value shuffle) {
    if (!shuffle.isShuffleVector()) return false;
    int n = shuffle.shuffleMaskLength();
    for (int i = 0; i < n; i++) {
      if (shuffle.shuffleMaskValue(i) != 0) return false;
    }
    return true;
  }

  /** zeroinitializer, poison/undef, or a vector constant with all lanes equal. */
  private static boolean isSplatConstant(Value c) {
    String s = c.print();
    int sp = s.indexOf(' ', s.indexOf('>'));
    String lit = sp < 0 ? "" : s.substring(sp + 1).strip();
    if (lit.equals("zeroinitializer") || lit.equals("poison") || lit.equals("undef") || lit.startsWith("splat (")) return true;
    if (!lit.startsWith("<")) return false;
    List<String> items = items(lit.substring(1, lit.length() - 1));
    return items.stream().distinct().count() == 1;
  }

  // ---- text ----

  private static final Pattern ATTRIBUTE_REF = Pattern.compile("\\s#\\d+");
  private static final Pattern METADATA_REF = Pattern.compile(",\\s*![A-Za-z_.][\\w.]*\\s+!\\d+");

  private static String stripAttributes(String text) {
    return METADATA_REF.matcher(ATTRIBUTE_REF.matcher(text).replaceAll("")).replaceAll("");
  }

  private static String declaration(Function f) {
    return stripAttributes(f.print()).strip();
  }

  /**
   * {@code <W x T>} → {@code <vscale x W x T>}, constant vectors → {@code splat (...)} (all lanes equal,
   * checked before), {@code .v<W>...} overload suffixes → {@code .nxv<W>...}.
   */
  static String retype(String text, int w) {
    StringBuilder out = new StringBuilder();
    int i = 0;
    String typePrefix = "<" + w + " x ";
    while (i < text.length()) {
      char c = text.charAt(i);
      if (c == '<' && text.startsWith(typePrefix, i)) {
        out.append("<vscale x ").append(w).append(" x ");
        i += typePrefix.length();
        continue;
      }
      if (c == '<' && i + 1 < text.length() && !Character.isDigit(text.charAt(i + 1)) && text.charAt(i + 1) != '{'
          && !text.startsWith("<vscale", i)) {
        int end = matching(text, i);
        if (end > i) {
          List<String> items = items(text.substring(i + 1, end));
          if (items.size() == w && items.stream().distinct().count() == 1) {
            out.append("splat (").append(retype(items.get(0), w)).append(')');
            i = end + 1;
            continue;
          }
        }
      }
      out.append(c);
      i++;
    }
    return Pattern.compile("\\.v" + w + "(i\\d+|f16|f32|f64|p0)").matcher(out).replaceAll(".nxv" + w + "$1");
  }

  private static int matching(String s, int open) {
    int depth = 0;
    for (int i = open; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '<' || c == '(' || c == '{' || c == '[') depth++;
      else if (c == '>' || c == ')' || c == '}' || c == ']') {
        depth--;
        if (depth == 0) return c == '>' ? i : -1;
      } else if (c == '\n') {
        return -1;
      }
    }
    return -1;
  }

  private static List<String> items(String inner) {
    List<String> out = new ArrayList<>();
    int depth = 0;
    int start = 0;
    for (int i = 0; i < inner.length(); i++) {
      char c = inner.charAt(i);
      if (c == '<' || c == '(' || c == '{' || c == '[') depth++;
      else if (c == '>' || c == ')' || c == '}' || c == ']') depth--;
      else if (c == ',' && depth == 0) {
        out.add(inner.substring(start, i).strip());
        start = i + 1;
      }
    }
    out.add(inner.substring(start).strip());
    return out;
  }

  private static String quote(String name) {
    return name.matches("[A-Za-z$._][\\w$.]*") ? name : "\"" + name.replace("\"", "\\22") + "\"";
  }
}
