package org.packetizer.core.widen;

import java.util.ArrayList;
import java.util.List;
import org.packetizer.core.ir.Function;
import org.packetizer.core.ir.IrBuilder;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.ir.Opcode;
import org.packetizer.core.ir.Type;
import org.packetizer.core.ir.Value;

/**
 * Packets of composite values: vectors ({@code <N x T>}, as clang's SLP vectorizer, intrinsics, GNU
 * vector types and the x86-64 ABI lowering of small structs produce them) and aggregates in
 * registers (structs and arrays as SSA values).
 *
 * <p>The packet type {@code P(t)} of a scalar type {@code t} at width W:
 *
 * <ul>
 *   <li>an integer, floating-point or pointer type {@code T}: {@code <W x T>};
 *   <li>a vector {@code <N x T>}: one flat vector {@code <N*W x T>} in <b>element-major</b> order —
 *       element i of lane k is at position {@code i*W + k}, so the W copies of one element form one
 *       contiguous {@code <W x T>} packet;
 *   <li>a struct: the literal struct of its fields' packet types (packed stays packed); an array
 *       {@code [N x T]}: {@code [N x P(T)]}.
 * </ul>
 *
 * Why element-major: element-wise operations (arithmetic, compares, casts, selects, element-wise
 * intrinsics) are one instruction on the flat vector; {@code extractelement} with a constant index is
 * a contiguous slice (a no-op view once the backend splits the vector into registers); {@code
 * insertelement} with a constant index and every {@code shufflevector} with a constant mask are one
 * shuffle, because element m of either operand of lane k is at {@code m*W + k} in the concatenation
 * of the two packets; a lane mask applies to every element by repeating it N times. Only bit casts
 * that change the element count (and consecutive memory, which holds lanes one after another) need
 * the lane-major order {@code k*N + i}; they transpose with one shuffle each way. Aggregates mirror
 * the scalar type, so {@code extractvalue}/{@code insertvalue} keep their indices.
 */
public final class CompositePackets {
  private final IrBuilder b;
  private final LlvmModule module;
  private final int w;

  public CompositePackets(IrBuilder b, LlvmModule module, int w) {
    this.b = b;
    this.module = module;
    this.w = w;
  }

  /** Whether {@code t} is a vector, struct or array type (its packet is not {@code <W x t>}). */
  public static boolean isComposite(Type t) {
    return t.isVector() || t.isStruct() || t.isArray();
  }

  /**
   * The packet type of {@code t} (see the class comment).
   *
   * @throws IllegalArgumentException naming the part of {@code t} that cannot become a packet
   */
  public static Type packetType(Type t, int w) {
    switch (t.kind()) {
      case INTEGER, FLOAT, DOUBLE, POINTER -> {
        return t.vectorOf(w);
      }
      case VECTOR -> {
        Type e = t.elementType();
        if (!(e.isInteger() || e.isFloat() || e.isDouble() || e.isPointer())) {
          throw new IllegalArgumentException("vectors of " + e + " (" + t + ") cannot become packets");
        }
        return e.vectorOf(t.vectorSize() * w);
      }
      case STRUCT -> {
        List<Type> es = new ArrayList<>();
        for (Type e : t.structElements()) es.add(packetType(e, w));
        if (es.isEmpty()) throw new IllegalArgumentException("the empty struct " + t + " cannot become a packet");
        return t.context().structType(es, t.isPackedStruct());
      }
      case ARRAY -> {
        return packetType(t.elementType(), w).arrayOf(t.arrayLength());
      }
      case SCALABLE_VECTOR -> throw new IllegalArgumentException("scalable vectors (" + t + ") are not supported");
      default -> throw new IllegalArgumentException("values of type " + t + " cannot become packets");
    }
  }

  private Type packetType(Type t) { return packetType(t, w); }

  // ------------------------------------------------------------------------------------------
  // shuffle masks

  private Value mask(int[] idx) {
    List<Value> es = new ArrayList<>(idx.length);
    for (int i : idx) es.add(i < 0 ? b.poison(b.context().i32()) : b.i32(i));
    return b.constVector(es);
  }

  private Value shuffle(Value a, Value c, int[] idx, String name) {
    return b.shuffle(a, c == null ? b.poison(a.type()) : c, mask(idx), name);
  }

  /** Lane mask {@code <W x i1>} (or any {@code <W x T>}) repeated for each of n elements (element-major). */
  public Value repeat(Value laneVector, int n) {
    if (n == 1) return laneVector;
    int[] idx = new int[n * w];
    for (int i = 0; i < n; i++) for (int k = 0; k < w; k++) idx[i * w + k] = k;
    return shuffle(laneVector, null, idx, "");
  }

  /** Lane mask repeated in lane-major order: position {@code k*n + i} holds lane k. */
  public Value repeatLaneMajor(Value laneVector, int n) {
    if (n == 1) return laneVector;
    int[] idx = new int[n * w];
    for (int k = 0; k < w; k++) for (int i = 0; i < n; i++) idx[k * n + i] = k;
    return shuffle(laneVector, null, idx, "");
  }

  /** Element-major {@code <n*W x T>} to lane-major (lane k's n elements back to back). */
  public Value toLaneMajor(Value p, int n) {
    if (n == 1) return p;
    int[] idx = new int[n * w];
    for (int k = 0; k < w; k++) for (int i = 0; i < n; i++) idx[k * n + i] = i * w + k;
    return shuffle(p, null, idx, "lanemajor");
  }

  /** Lane-major {@code <n*W x T>} to element-major. */
  public Value fromLaneMajor(Value p, int n) {
    if (n == 1) return p;
    int[] idx = new int[n * w];
    for (int i = 0; i < n; i++) for (int k = 0; k < w; k++) idx[i * w + k] = k * n + i;
    return shuffle(p, null, idx, "elemmajor");
  }

  /** The {@code <W x T>} packet of element i of a packetized {@code <N x T>}. */
  public Value element(Value p, int i) {
    int[] idx = new int[w];
    for (int k = 0; k < w; k++) idx[k] = i * w + k;
    return shuffle(p, null, idx, "");
  }

  /** Concatenates element packets {@code <W x T>} into the packet of a {@code <N x T>}. */
  public Value concat(List<Value> elements) {
    List<Value> cur = elements;
    if (cur.size() == 1) return cur.getFirst();
    // widen each to the full size, then blend them in one chain of shuffles
    int n = cur.size();
    int[] widen = new int[n * w];
    for (int j = 0; j < n * w; j++) widen[j] = j < w ? j : -1;
    Value acc = shuffle(cur.getFirst(), null, widen, "");
    for (int i = 1; i < n; i++) {
      Value wi = shuffle(cur.get(i), null, widen, "");
      int[] idx = new int[n * w];
      for (int j = 0; j < n * w; j++) idx[j] = j / w == i ? n * w + (j % w) : j;
      acc = shuffle(acc, wi, idx, "");
    }
    return acc;
  }

  // ------------------------------------------------------------------------------------------
  // broadcast and per-lane access

  /** The packet of a uniform value of type t: every lane holds {@code v}. */
  public Value broadcast(Value v, String name) {
    Type t = v.type();
    if (t.isVector()) {
      int n = t.vectorSize();
      int[] idx = new int[n * w];
      for (int i = 0; i < n; i++) for (int k = 0; k < w; k++) idx[i * w + k] = i;
      return shuffle(v, null, idx, name);
    }
    if (t.isStruct() || t.isArray()) {
      Value acc = b.poison(packetType(t));
      int n = t.isStruct() ? t.structElements().size() : Math.toIntExact(t.arrayLength());
      for (int i = 0; i < n; i++) acc = b.insertValue(acc, broadcast(b.extractValue(v, i, ""), ""), i, name);
      return acc;
    }
    return b.splat(v, w, name);
  }

  /** Lane {@code lane}'s scalar value (of type {@code t}) of packet p; lane is an i32 value. */
  public Value extractLane(Value p, Type t, Value lane) {
    if (t.isVector()) {
      int n = t.vectorSize();
      Value acc = b.poison(t);
      for (int i = 0; i < n; i++) {
        Value at = lane.isConstantInt() ? b.i32(i * w + lane.constIntZExt()) : b.add(lane, b.i32((long) i * w), "");
        acc = b.insertElement(acc, b.extractElement(p, at, ""), i, "");
      }
      return acc;
    }
    if (t.isStruct() || t.isArray()) {
      Value acc = b.poison(t);
      List<Type> es = fieldTypes(t);
      for (int i = 0; i < es.size(); i++) acc = b.insertValue(acc, extractLane(b.extractValue(p, i, ""), es.get(i), lane), i, "");
      return acc;
    }
    return b.extractElement(p, lane, "");
  }

  /** Packet p with lane {@code lane} (constant) replaced by the scalar value s. */
  public Value insertLane(Value p, Value s, int lane) {
    Type t = s.type();
    if (t.isVector()) {
      for (int i = 0; i < t.vectorSize(); i++) p = b.insertElement(p, b.extractElement(s, i, ""), i * w + lane, "");
      return p;
    }
    if (t.isStruct() || t.isArray()) {
      for (int i = 0; i < fieldTypes(t).size(); i++) {
        p = b.insertValue(p, insertLane(b.extractValue(p, i, ""), b.extractValue(s, i, ""), lane), i, "");
      }
      return p;
    }
    return b.insertElement(p, s, lane, "");
  }

  private static List<Type> fieldTypes(Type t) {
    if (t.isStruct()) return t.structElements();
    List<Type> out = new ArrayList<>();
    for (long i = 0; i < t.arrayLength(); i++) out.add(t.elementType());
    return out;
  }

  // ------------------------------------------------------------------------------------------
  // selects and blends

  /**
   * {@code select(cond, x, y)} on packets of any type: cond is an {@code i1} (uniform), a lane mask
   * {@code <W x i1>} (repeated for each element of a vector, applied to each field of an aggregate)
   * or, for vector packets, a packetized vector condition {@code <N*W x i1>}.
   */
  public Value select(Value cond, Value x, Value y, String name) {
    Type ct = cond.type();
    Type t = x.type();
    if (!ct.isVector()) return b.select(cond, x, y, name);
    if (t.isVector()) {
      int n = t.vectorSize() / w;
      if (ct.vectorSize() == t.vectorSize()) return b.select(cond, x, y, name);
      return b.select(repeat(cond, n), x, y, name);
    }
    Value acc = b.poison(t);
    int fields = t.isStruct() ? t.structElements().size() : Math.toIntExact(t.arrayLength());
    for (int i = 0; i < fields; i++) {
      acc = b.insertValue(acc, select(cond, b.extractValue(x, i, ""), b.extractValue(y, i, ""), ""), i, name);
    }
    return acc;
  }

  // ------------------------------------------------------------------------------------------
  // vector instructions

  /** {@code extractelement <N x T> v, idx}: idx is a scalar (uniform or constant) or a lane packet. */
  public Value extractElement(Value p, int n, Value idx, String name) {
    if (idx.isConstantInt()) {
      long i = idx.constIntZExt();
      if (i >= n) return b.poison(p.type().elementType().vectorOf(w));
      return element(p, (int) i);
    }
    // a chain of selects over the n element packets (an index out of range gives element 0, where
    // the scalar code has poison)
    Value iv = idx.type().isVector() ? idx : b.splat(idx, w, "");
    Value acc = element(p, 0);
    for (int i = 1; i < n; i++) {
      Value is = b.icmpEq(iv, b.splat(b.constInt(iv.type().elementType(), i), w, ""), "");
      acc = b.select(is, element(p, i), acc, "");
    }
    if (!name.isEmpty()) acc.setName(name);
    return acc;
  }

  /** {@code insertelement <N x T> v, s, idx}: s is a {@code <W x T>} packet. */
  public Value insertElement(Value p, int n, Value s, Value idx, String name) {
    int[] widen = new int[n * w];
    for (int j = 0; j < n * w; j++) widen[j] = j % w;
    Value sw = shuffle(s, null, widen, "");
    if (idx.isConstantInt()) {
      long i = idx.constIntZExt();
      if (i >= n) return b.poison(p.type());
      int[] m = new int[n * w];
      for (int j = 0; j < n * w; j++) m[j] = j / w == i ? n * w + j : j;
      return shuffle(p, sw, m, name);
    }
    Value iv = idx.type().isVector() ? repeat(idx, n) : b.splat(idx, n * w, "");
    Type it = iv.type().elementType();
    List<Value> which = new ArrayList<>();
    for (int j = 0; j < n * w; j++) which.add(b.constInt(it, j / w));
    Value is = b.icmpEq(iv, b.constVector(which), "");
    return b.select(is, sw, p, name);
  }

  /**
   * {@code shufflevector <N x T> a, <N x T> c, <M x i32> mask}: element m of either operand of lane k
   * is at {@code m*W + k} in the concatenation of the two packets, so the packet is one shuffle.
   */
  public Value shuffleVector(Value scalarInst, Value pa, Value pc, String name) {
    int m = scalarInst.shuffleMaskLength();
    int undef = Value.undefShuffleMaskElement();
    int[] idx = new int[m * w];
    for (int j = 0; j < m; j++) {
      int s = scalarInst.shuffleMaskValue(j);
      for (int k = 0; k < w; k++) idx[j * w + k] = s == undef ? -1 : s * w + k;
    }
    return shuffle(pa, pc, idx, name);
  }

  /**
   * A bit cast whose source or destination is a vector with another element count (e.g. {@code <2 x
   * float>} to {@code i64} or {@code double}, as clang's ABI lowering emits): lane-major order holds
   * each lane's bits together, so transpose, cast the flat vector, transpose back.
   */
  public Value bitcast(Value p, Type from, Type to, String name) {
    Type pto = packetType(to);
    if (from.isVector() && to.isVector() && from.vectorSize() == to.vectorSize()) return b.cast(Opcode.BITCAST, p, pto, name);
    Value lm = from.isVector() ? toLaneMajor(p, from.vectorSize()) : p;
    Value c = b.cast(Opcode.BITCAST, lm, pto, to.isVector() ? "" : name);
    return to.isVector() ? named(fromLaneMajor(c, to.vectorSize()), name) : c;
  }

  private static Value named(Value v, String name) {
    if (!name.isEmpty() && v.isInstruction()) v.setName(name);
    return v;
  }

  // ------------------------------------------------------------------------------------------
  // intrinsics on vectors

  /** Element-wise intrinsics: the packet calls the same intrinsic on the packet type. */
  private static final java.util.Set<String> ELEMENTWISE = java.util.Set.of("fabs", "sqrt", "fma", "fmuladd", "minnum",
      "maxnum", "minimum", "maximum", "copysign", "floor", "ceil", "trunc", "rint", "nearbyint", "round", "roundeven", "sin",
      "cos", "tan", "exp", "exp2", "exp10", "log", "log2", "log10", "pow", "smin", "smax", "umin", "umax", "abs", "ctpop",
      "ctlz", "cttz", "bitreverse", "bswap", "fshl", "fshr", "sadd.sat", "uadd.sat", "ssub.sat", "usub.sat", "canonicalize");

  private static final java.util.Set<String> REDUCTIONS = java.util.Set.of("add", "mul", "and", "or", "xor", "smax", "smin",
      "umax", "umin", "fmax", "fmin", "fmaximum", "fminimum", "fadd", "fmul");

  /** The base name of an overloaded intrinsic ("llvm.fabs.v4f32" → "fabs"), or null. */
  static String intrinsicBase(String name, java.util.Set<String> among, String prefix) {
    if (!name.startsWith(prefix)) return null;
    String rest = name.substring(prefix.length());
    String best = null;
    for (String s : among) {
      if ((rest.equals(s) || rest.startsWith(s + ".")) && (best == null || s.length() > best.length())) best = s;
    }
    return best;
  }

  /** Whether {@code name} is an intrinsic this class packetizes on vector operands. */
  public static boolean handlesIntrinsic(String name) {
    return intrinsicBase(name, ELEMENTWISE, "llvm.") != null || intrinsicBase(name, REDUCTIONS, "llvm.vector.reduce.") != null;
  }

  /**
   * A call of an element-wise intrinsic on vectors: the same intrinsic on the packet type. Vector
   * arguments are packets; scalar arguments (abs/ctlz's i1 flag, powi's exponent) must be uniform
   * and stay as they are.
   */
  public Value elementwiseIntrinsic(Value inst, List<Value> args, String name) {
    String callee = inst.calledFunction().orElseThrow().name();
    String base = intrinsicBase(callee, ELEMENTWISE, "llvm.");
    Type pt = packetType(inst.type());
    Function f = module.intrinsic("llvm." + base, pt);
    Value r = b.call(f, args, name);
    if (inst.canUseFastMathFlags() && r.canUseFastMathFlags()) r.setFastMathFlags(inst.fastMathFlags());
    return r;
  }

  /**
   * {@code llvm.vector.reduce.*} over the elements of each lane: the elements' packets combined with
   * the packet operation, in element order (start first for ordered fadd/fmul); with {@code reassoc}
   * the halving tree the backend uses for fast reductions.
   */
  public Value reduction(Value inst, List<Value> args, String name) {
    String callee = inst.calledFunction().orElseThrow().name();
    String op = intrinsicBase(callee, REDUCTIONS, "llvm.vector.reduce.");
    boolean withStart = op.equals("fadd") || op.equals("fmul");
    Value vec = args.get(withStart ? 1 : 0);
    Type vt = inst.operand(withStart ? 1 : 0).type();
    int n = vt.vectorSize();
    List<Value> es = new ArrayList<>();
    for (int i = 0; i < n; i++) es.add(element(vec, i));
    int fmf = inst.canUseFastMathFlags() ? inst.fastMathFlags() : 0;
    boolean reassoc = inst.allowsReassoc();
    Value acc;
    if (withStart && !reassoc) {
      acc = args.get(0);
      for (Value e : es) acc = combine(op, acc, e, fmf);
    } else {
      List<Value> cur = es;
      while (cur.size() > 1) {
        int half = cur.size() / 2;
        List<Value> next = new ArrayList<>();
        for (int i = 0; i < half; i++) next.add(combine(op, cur.get(i), cur.get(i + half), fmf));
        if (cur.size() % 2 == 1) {
          // odd count: fold the last one in sequentially
          next.set(next.size() - 1, combine(op, next.getLast(), cur.getLast(), fmf));
        }
        cur = next;
      }
      acc = cur.getFirst();
      if (withStart) acc = combine(op, args.get(0), acc, fmf);
    }
    return named(acc, name);
  }

  private Value combine(String op, Value x, Value y, int fmf) {
    Value r = switch (op) {
      case "add" -> b.add(x, y, "");
      case "mul" -> b.mul(x, y, "");
      case "and" -> b.and(x, y, "");
      case "or" -> b.or(x, y, "");
      case "xor" -> b.xor(x, y, "");
      case "fadd" -> b.fadd(x, y, "");
      case "fmul" -> b.fmul(x, y, "");
      case "smax", "smin", "umax", "umin" -> b.call(module.intrinsic("llvm." + op, x.type()), List.of(x, y), "");
      case "fmax" -> b.call(module.intrinsic("llvm.maxnum", x.type()), List.of(x, y), "");
      case "fmin" -> b.call(module.intrinsic("llvm.minnum", x.type()), List.of(x, y), "");
      case "fmaximum" -> b.call(module.intrinsic("llvm.maximum", x.type()), List.of(x, y), "");
      case "fminimum" -> b.call(module.intrinsic("llvm.minimum", x.type()), List.of(x, y), "");
      default -> throw new IllegalStateException(op);
    };
    if (fmf != 0 && r.canUseFastMathFlags()) r.setFastMathFlags(fmf);
    return r;
  }
}
