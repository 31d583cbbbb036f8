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
      "llvm.masked.scatter");

  /**
   * Makes {@code scalableName}, the scalable version of the masked {@code w}-wide packet function
   * {@code fixed}, in {@code module}. The fixed function is left as it is.
   *
   * @throws PacketizationException UNSUPPORTED naming the first instruction that is not lane-wise
   */
  public static Function build(LlvmModule module, Function fixed, String scalableName, int w, String scalarName) {
    rewriteMaskTests(module, fixed, w);
    check(fixed, w, scalarName);
    // functions and globals the body refers to are declared under placeholder names and replaced by the
    // module's own after linking (they may be internal, which a declaration cannot link to)
    Map<String, String> decls = new LinkedHashMap<>();
    Map<String, Value> placeholders = new LinkedHashMap<>();
    Map<String, String> renamed = new LinkedHashMap<>();
    for (Block bl : fixed.blocks()) {
      for (Value inst : bl.instructions()) {
        for (Value op : inst.operands()) {
          if (op == null || !(op.isFunction() || op.isGlobalVariable())) continue;
          String name = op.name();
          if (renamed.containsKey(name)) continue;
          if (op.isFunction() && name.startsWith("llvm.")) {
            decls.put(name, retype(declaration(Function.of(op.ref())), w));
            renamed.put(name, name);
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
    String body = retype(stripAttributes(fixed.print()), w);
    body = body.replaceFirst("@" + Pattern.quote(quote(fixed.name())) + "\\(", Matcher.quoteReplacement("@" + quote(scalableName)) + "(");
    for (var e : renamed.entrySet()) {
      if (e.getKey().equals(e.getValue())) continue;
      body = Pattern.compile("@" + Pattern.quote(quote(e.getKey())) + "(?![\\w$.])").matcher(body)
          .replaceAll(Matcher.quoteReplacement("@" + e.getValue()));
    }
    StringBuilder text = new StringBuilder();
    for (String d : decls.values()) text.append(d).append('\n');
    text.append(body).append('\n');
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
      for (String attr : List.of("nounwind", "willreturn", "norecurse", "mustprogress")) {
        if (fixed.hasEnumAttribute(attr)) f.addEnumAttribute(attr);
      }
      f.setCallingConvention(fixed.callingConvention());
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
    return module.function(scalableName).orElseThrow();
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
    for (Type t : f.functionType().paramTypes()) requirePacketType(t, w, fn, null, "parameter type " + t);
    requirePacketType(f.returnType(), w, fn, null, "return type " + f.returnType());
    for (Block bl : f.blocks()) {
      for (Value inst : bl.instructions()) {
        String why = whyNotLaneWise(inst, w);
        if (why != null) {
          throw PacketizationException.unsupported("scalable packets: " + why + " (only lane-wise code can run on vscale × "
              + w + " lanes; see docs/cross-targets.md)", fn, bl.describe(), inst.print().strip());
        }
      }
    }
  }

  private static void requirePacketType(Type t, int w, String fn, String bl, String what) {
    if (t.isAggregate() && containsVector(t)) {
      throw PacketizationException.unsupported("scalable packets: " + what + " holds packets inside an aggregate (a scalable"
          + " vector has no size in memory)", fn, bl, null);
    }
    if (t.isVector() && t.vectorSize() != w) {
      throw PacketizationException.unsupported("scalable packets: " + what + " is a vector of " + t.vectorSize()
          + " lanes, not " + w, fn, bl, null);
    }
  }

  private static boolean containsVector(Type t) {
    if (t.isVector()) return true;
    if (t.isStruct()) return t.structElements().stream().anyMatch(ScalablePackets::containsVector);
    if (t.isArray()) return containsVector(t.elementType());
    return false;
  }

  /** Null when {@code inst} acts on every lane alike; else why not. */
  static String whyNotLaneWise(Value inst, int w) {
    Type t = inst.type();
    if (t.isVector() && t.vectorSize() != w) return "a vector of " + t.vectorSize() + " lanes (not " + w + ")";
    if (t.isAggregate() && containsVector(t)) return "an aggregate holding packets";
    Opcode op = inst.opcode();
    if (t.isVector() && t.elementType().isInteger() && t.elementType().intWidth() > 64) return "a packet of " + t.elementType();
    for (Value o : inst.operands()) {
      if (o != null && o.type().isAggregate() && containsVector(o.type())) return "an aggregate holding packets";
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
        return "extractelement reads one lane";
      }
      case INSERTELEMENT -> {
        Value idx = inst.operand(2);
        Value base = inst.operand(0);
        boolean broadcastStart = idx.isConstantInt() && idx.constIntZExt() == 0 && isUndefOrPoison(base)
            && !inst.users().isEmpty() && inst.users().stream().allMatch(u -> u.isShuffleVector() && isZeroShuffle(u));
        if (!broadcastStart) return "insertelement writes one lane";
      }
      case SHUFFLEVECTOR -> {
        if (!isZeroShuffle(inst)) return "a shuffle other than a broadcast moves lanes";
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
        if (!name.startsWith("llvm.")) return vectorArgs ? "a call of @" + name + " with packets" : null;
        if (!vectorArgs) return null;
        if (name.startsWith("llvm.vector.reduce.")) return null;
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
