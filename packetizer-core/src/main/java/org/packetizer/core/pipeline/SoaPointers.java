package org.packetizer.core.pipeline;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import org.packetizer.core.ir.Type;
import java.util.Set;
import java.util.function.Function;
import org.packetizer.analysis.divergence.Shape;
import org.packetizer.core.api.PacketizationException;
import org.packetizer.core.api.Rejection;
import org.packetizer.core.api.ParamKind;
import org.packetizer.core.ir.Opcode;
import org.packetizer.core.ir.Value;

/**
 * Pointers into struct-of-arrays memory (thesis Fig 4.4: a pointer to τ becomes a pointer to
 * packetize(τ)). For naturally aligned types the packetized layout puts lane k's copy of the scalar
 * leaf at byte offset {@code o} (size {@code s}) at {@code W*o + k*s}: the emitter scales every byte
 * offset from such a pointer by W and adds {@code k*s} when it accesses memory.
 *
 * <p>This class finds every value derived from a struct-of-arrays parameter (through GEPs, phis,
 * selects and casts that keep the pointer), rejects escapes (calls, stores of the pointer, integer
 * casts, comparisons) with a clear message, and tells the shape analysis that loads through them are
 * varying although the address is the same for all lanes. {@code llvm.memcpy/memmove/memset} on them
 * are copied by the emitter; phis and selects merging them with other pointers become per-lane
 * pointer vectors when every access through them has one field size ({@link #lanePointerFieldSize}).
 */
public final class SoaPointers {
  private final Set<Value> derived = new LinkedHashSet<>();
  private final java.util.Map<Value, Long> lanePointers = new java.util.LinkedHashMap<>();
  /** Private arrays laid out interleaved: each derived value's leaf size (every scalar leaf of the alloca has it). */
  private final java.util.Map<Value, Long> allocaLeaf = new java.util.LinkedHashMap<>();
  /** Fixed-size allocas kept one block per lane, with the reason. */
  private final java.util.Map<Value, String> perLaneAllocas = new java.util.LinkedHashMap<>();
  /** Scalar loads/stores through struct-of-arrays memory that span smaller leaves other accesses give the same bytes: the leaf size. */
  private final java.util.Map<Value, Long> splitLeaf = new java.util.LinkedHashMap<>();

  private SoaPointers() {}

  /**
   * Whether a value of type t can be loaded or stored through a struct-of-arrays pointer one scalar
   * leaf at a time (each at W times its scalar offset): vectors of byte-sized elements (SLP stores
   * two adjacent floats of a struct as one {@code <2 x float>}) and structs and arrays of such.
   */
  static boolean byLeaves(org.packetizer.core.ir.Type t) {
    if (t.isVector()) {
      org.packetizer.core.ir.Type e = t.elementType();
      return e.isFloat() || e.isDouble() || e.isPointer() || (e.isInteger() && e.intWidth() % 8 == 0);
    }
    if (t.isStruct()) {
      for (org.packetizer.core.ir.Type e : t.structElements()) if (!e.isVectorElement() && !byLeaves(e) || e.isInteger(1)) return false;
      return !t.structElements().isEmpty();
    }
    if (t.isArray()) return (t.elementType().isVectorElement() && !t.elementType().isInteger(1)) || byLeaves(t.elementType());
    return false;
  }

  public static SoaPointers find(org.packetizer.core.ir.Function f, List<ParamKind> kinds, String fn) {
    return find(f, kinds, fn, true);
  }

  /**
   * As {@link #find(org.packetizer.core.ir.Function, List, String)}; {@code interleaveAllocas} false keeps
   * every private array one block per lane (scalable packets: the interleaved layout's offsets depend on W).
   */
  public static SoaPointers find(org.packetizer.core.ir.Function f, List<ParamKind> kinds, String fn, boolean interleaveAllocas) {
    SoaPointers s = new SoaPointers();
    Deque<Value> work = new ArrayDeque<>();
    for (int i = 0; i < kinds.size(); i++) {
      if (kinds.get(i) instanceof ParamKind.SoaPointer) work.add(f.param(i));
    }
    while (!work.isEmpty()) {
      Value v = work.poll();
      if (!s.derived.add(v)) continue;
      for (Value u : v.users()) {
        if (!u.isInstruction()) continue;
        Opcode op = u.opcode();
        switch (op) {
          case GEP -> {
            if (!u.operand(0).equals(v)) throw escape(u, v, "used as a GEP index", fn);
            work.add(u);
          }
          case PHI, BITCAST, ADDRSPACECAST, FREEZE -> work.add(u);
          case SELECT -> {
            if (u.operand(0).equals(v)) throw escape(u, v, "used as a condition", fn);
            work.add(u);
          }
          case LOAD -> {
            if (u.isVolatile() || u.isAtomic()) throw escape(u, v, "accessed by a volatile or atomic load", fn);
            if (!u.type().isVectorElement() && !byLeaves(u.type())) throw escape(u, v, "loaded as a whole aggregate", fn);
          }
          case STORE -> {
            if (u.operand(0).equals(v)) throw escape(u, v, "stored to memory", fn);
            if (u.isVolatile() || u.isAtomic()) throw escape(u, v, "accessed by a volatile or atomic store", fn);
            if (!u.operand(0).type().isVectorElement() && !byLeaves(u.operand(0).type())) throw escape(u, v, "stored as a whole aggregate", fn);
          }
          case CALL -> {
            var callee = u.calledFunction();
            if (callee.isPresent() && (callee.get().name().startsWith("llvm.lifetime.") || callee.get().name().startsWith("llvm.dbg."))) {
              continue;
            }
            // llvm.memcpy/memmove/memset: copied leaf by leaf (or as one block) by the emitter
            if (callee.isPresent() && isMemIntrinsic(callee.get().name()) && !u.operand(2).equals(v)) continue;
            // a function defined in the module gets a packet version taking the struct-of-arrays pointer
            if (callee.isPresent() && !callee.get().isDeclaration() && !callee.get().isVarArg()
                && !u.calledOperand().equals(v)) {
              continue;
            }
            throw escape(u, v, "passed to a call of a function without a body in the module", fn);
          }
          default -> throw escape(u, v, "used by '" + op.mnemonic() + "'", fn);
        }
      }
    }
    // a phi or select mixing struct-of-arrays pointers with others becomes a vector of per-lane
    // pointers when every use of it accesses one field size s (lane k's field of a struct-of-arrays
    // object is at its packet address + k*s); anything else is refused
    for (Value v : List.copyOf(s.derived)) {
      Opcode op = v.isInstruction() ? v.opcode() : Opcode.UNKNOWN;
      Value other = null;
      if (op == Opcode.PHI) {
        for (int i = 0; i < v.incomingCount(); i++) {
          Value in = v.incomingValue(i);
          if (!s.derived.contains(in) && !in.isUndef() && !in.isPoison()) other = in;
        }
      } else if (op == Opcode.SELECT) {
        for (int i = 1; i <= 2; i++) if (!s.derived.contains(v.operand(i))) other = v.operand(i);
      }
      if (other == null || s.lanePointers.containsKey(v)) continue;
      // the merges connected to v (a pointer carried around a loop: a phi and a select) convert together
      Set<Value> web = new LinkedHashSet<>();
      Deque<Value> todo = new ArrayDeque<>(List.of(v));
      while (!todo.isEmpty()) {
        Value m = todo.poll();
        if (!web.add(m)) continue;
        for (Value u : m.users()) {
          if (u.isInstruction() && s.derived.contains(u) && (u.opcode() == Opcode.PHI || u.opcode() == Opcode.SELECT)) todo.add(u);
        }
      }
      OptionalLong size = oneAccessSize(web);
      if (size.isEmpty()) {
        throw escape(v, other, "merged with a pointer that is not struct-of-arrays and then used otherwise than by loads and"
            + " stores of one size (offsets from the merged pointer address a field differently in the two layouts)", fn);
      }
      for (Value m : web) {
        s.derived.remove(m);
        s.lanePointers.put(m, size.getAsLong());
      }
    }
    s.findSplitAccesses(f);
    if (interleaveAllocas) s.findInterleavedAllocas(f);
    return s;
  }

  /**
   * The struct-of-arrays layout puts lane k's copy of a leaf at {@code W*o + k*s}, with s the size of
   * the access. clang may merge adjacent stores or loads of an object's small fields into one wider
   * integer access ({@code store i64 0} for two {@code int} elements): taken as one 8-byte leaf it
   * would address the bytes of two 4-byte leaves in the wrong places. Every load and store at a
   * constant offset from a struct-of-arrays parameter is collected with its leaves; a scalar access
   * that overlaps smaller leaves of another access is split into leaves of the smallest such size
   * (when it divides the access and its offset), which the emitter accesses one by one.
   */
  private void findSplitAccesses(org.packetizer.core.ir.Function f) {
    org.packetizer.core.ir.LlvmModule m = f.module();
    java.util.Map<Value, Value> root = new java.util.HashMap<>();
    java.util.Map<Value, Long> off = new java.util.HashMap<>();
    boolean changed = true;
    while (changed) {
      changed = false;
      for (Value v : derived) {
        if (root.containsKey(v)) continue;
        if (!v.isInstruction()) {
          root.put(v, v);
          off.put(v, 0L);
          changed = true;
          continue;
        }
        Opcode op = v.opcode();
        Value base = v.operand(0);
        if (!root.containsKey(base)) continue;
        if (op == Opcode.BITCAST || op == Opcode.ADDRSPACECAST || op == Opcode.FREEZE) {
          root.put(v, root.get(base));
          off.put(v, off.get(base));
          changed = true;
        } else if (op == Opcode.GEP) {
          OptionalLong c = constantGepOffset(m, v);
          if (c.isEmpty()) continue;
          root.put(v, root.get(base));
          off.put(v, off.get(base) + c.getAsLong());
          changed = true;
        }
      }
    }
    // per root: {offset, size} of every leaf accessed, and the scalar accesses with their offset
    java.util.Map<Value, List<long[]>> leaves = new java.util.HashMap<>();
    java.util.Map<Value, long[]> scalars = new java.util.LinkedHashMap<>();
    java.util.Map<Value, Value> accessRoot = new java.util.HashMap<>();
    for (Value v : root.keySet()) {
      for (Value u : v.users()) {
        if (!u.isInstruction()) continue;
        Type t;
        if (u.opcode() == Opcode.LOAD && u.operand(0).equals(v)) t = u.type();
        else if (u.opcode() == Opcode.STORE && u.operand(1).equals(v) && !u.operand(0).equals(v)) t = u.operand(0).type();
        else continue;
        long o = off.get(v);
        List<long[]> list = leaves.computeIfAbsent(root.get(v), k -> new ArrayList<>());
        if (t.isVectorElement()) {
          long size = m.allocSize(t);
          list.add(new long[] {o, size});
          if (!t.isPointer() && !t.isInteger(1) && size > 1 && m.storeSize(t) == size) {
            scalars.put(u, new long[] {o, size});
            accessRoot.put(u, root.get(v));
          }
        } else if (t.isVector()) {
          long es = m.allocSize(t.elementType());
          for (int i = 0; i < t.vectorSize(); i++) list.add(new long[] {o + i * es, es});
        }
      }
    }
    // an element of an array field at a variable index (s->i[k]) accesses every element of the array
    for (Value v : derived) {
      if (root.containsKey(v) || !v.isInstruction() || v.opcode() != Opcode.GEP || v.numOperands() != 3) continue;
      Value base = v.operand(0);
      Type at = v.gepSourceElementType();
      if (!root.containsKey(base) || !at.isArray() || !v.operand(1).isConstantInt() || v.operand(1).constIntSExt() != 0) continue;
      long es = m.allocSize(at.elementType());
      boolean elementAccess = true;
      for (Value u : v.users()) {
        if (!u.isInstruction()) continue;
        Type t = u.opcode() == Opcode.LOAD ? u.type() : u.opcode() == Opcode.STORE && !u.operand(0).equals(v) ? u.operand(0).type() : null;
        if (t == null || !t.isVectorElement() || m.allocSize(t) != es) elementAccess = false;
      }
      if (!elementAccess || v.users().isEmpty()) continue;
      List<long[]> list = leaves.computeIfAbsent(root.get(base), k -> new ArrayList<>());
      for (long i = 0; i < at.arrayLength(); i++) list.add(new long[] {off.get(base) + i * es, es});
    }
    for (var e : scalars.entrySet()) {
      long o = e.getValue()[0], size = e.getValue()[1];
      long smallest = size;
      for (long[] l : leaves.get(accessRoot.get(e.getKey()))) {
        if (l[0] < o + size && o < l[0] + l[1] && l[1] < smallest) smallest = l[1];
      }
      if (smallest < size && size % smallest == 0 && Math.floorMod(o, smallest) == 0) splitLeaf.put(e.getKey(), smallest);
    }
  }

  /** The byte offset a GEP with only constant indices adds, if it has only constant indices. */
  private static OptionalLong constantGepOffset(org.packetizer.core.ir.LlvmModule m, Value gep) {
    Type t = gep.gepSourceElementType();
    long constant = 0;
    for (int i = 1; i < gep.numOperands(); i++) {
      Value idx = gep.operand(i);
      if (!idx.isConstantInt()) return OptionalLong.empty();
      if (i == 1) {
        constant += idx.constIntSExt() * m.allocSize(t);
      } else if (t.isStruct()) {
        int field = (int) idx.constIntSExt();
        constant += m.offsetOfElement(t, field);
        t = t.structElements().get(field);
      } else if (t.isArray() || t.isVector()) {
        t = t.elementType();
        constant += idx.constIntSExt() * m.allocSize(t);
      } else {
        return OptionalLong.empty();
      }
    }
    return OptionalLong.of(constant);
  }

  /**
   * The leaf size a scalar load or store through struct-of-arrays memory is split into (it spans
   * smaller leaves that other accesses give its bytes), if it is.
   */
  public OptionalLong splitLeafSize(Value access) {
    Long s = splitLeaf.get(access);
    return s == null ? OptionalLong.empty() : OptionalLong.of(s);
  }

  /**
   * Private arrays (fixed-size allocas) laid out interleaved, as struct-of-arrays memory: lane k's leaf
   * at scalar byte offset o lies at W*o + k*s ({@code [64 x float]} becomes {@code [64 x <W x float>]}),
   * so an index that is the same in every lane is one vector access. Only where that layout cannot be
   * observed: every scalar leaf of the allocated type has one size s (no padding), every address derived
   * from the alloca (GEPs, casts, phis and selects among them) is at a multiple of s and only loaded or
   * stored through with accesses whose leaves are all of size s, memset with a constant length that is a
   * multiple of s, or dropped markers (lifetime, debug). Anything else — the address passed to a call,
   * stored, compared, cast to an integer, merged with another pointer, copied with memcpy, accessed at a
   * sub-element or with a bit-packed type — keeps the per-lane layout (one block per lane).
   */
  private void findInterleavedAllocas(org.packetizer.core.ir.Function f) {
    org.packetizer.core.ir.LlvmModule m = f.module();
    for (org.packetizer.core.ir.Block bl : f.blocks()) {
      for (Value a : bl.instructions()) {
        if (a.opcode() != Opcode.ALLOCA || !a.operand(0).isConstantInt()) continue;
        long leaf = uniformLeafSize(m, a.allocatedType());
        String why;
        Set<Value> closure = new LinkedHashSet<>();
        if (leaf <= 0) {
          why = "its type " + a.allocatedType() + " has leaves of different sizes, padding, or bit-packed values";
        } else {
          why = allocaClosure(m, a, leaf, closure);
        }
        if (why != null) {
          perLaneAllocas.put(a, why);
          continue;
        }
        for (Value v : closure) {
          derived.add(v);
          allocaLeaf.put(v, leaf);
        }
      }
    }
  }

  /** The one allocation size of every scalar leaf of t (no padding), or -1. */
  private static long uniformLeafSize(org.packetizer.core.ir.LlvmModule m, Type t) {
    long[] acc = {-1, 0};
    if (!leaves(m, t, acc) || acc[0] <= 0 || acc[1] * acc[0] != m.allocSize(t)) return -1;
    return acc[0];
  }

  private static boolean leaves(org.packetizer.core.ir.LlvmModule m, Type t, long[] acc) {
    if (t.isArray() || t.isVector()) {
      long n = t.isArray() ? t.arrayLength() : t.vectorSize();
      long[] one = {-1, 0};
      if (n == 0 || !leaves(m, t.elementType(), one)) return false;
      if (acc[0] >= 0 && acc[0] != one[0]) return false;
      acc[0] = one[0];
      acc[1] += n * one[1];
      return true;
    }
    if (t.isStruct()) {
      if (t.structElements().isEmpty()) return false;
      for (Type e : t.structElements()) if (!leaves(m, e, acc)) return false;
      return true;
    }
    long s = storeBytes(t);
    if (s <= 0 || m.allocSize(t) != s || acc[0] >= 0 && acc[0] != s) return false;
    acc[0] = s;
    acc[1]++;
    return true;
  }

  /** Collects the addresses derived from alloca a into closure; the reason to keep it per lane, or null. */
  private static String allocaClosure(org.packetizer.core.ir.LlvmModule m, Value a, long leaf, Set<Value> closure) {
    Deque<Value> work = new ArrayDeque<>(List.of(a));
    while (!work.isEmpty()) {
      Value v = work.poll();
      if (!closure.add(v)) continue;
      for (Value u : v.users()) {
        if (!u.isInstruction()) return "its address is used by a constant expression";
        Opcode op = u.opcode();
        switch (op) {
          case GEP -> {
            for (int i = 1; i < u.numOperands(); i++) if (u.operand(i).equals(v)) return "its address is used as a GEP index";
            if (!gepAtLeaves(m, u, leaf)) return "a GEP from it may address a part of an element (" + u.print().strip() + ")";
            work.add(u);
          }
          case PHI, BITCAST, FREEZE -> work.add(u);
          case SELECT -> {
            if (u.operand(0).equals(v)) return "its address is used as a condition";
            work.add(u);
          }
          case LOAD -> {
            if (u.isVolatile() || u.isAtomic()) return "it is accessed by a volatile or atomic load";
            if (uniformLeafSize(m, u.type()) != leaf) return "it is loaded as " + u.type() + ", not in whole elements of " + leaf + " bytes";
          }
          case STORE -> {
            if (u.operand(0).equals(v)) return "its address is stored to memory";
            if (u.isVolatile() || u.isAtomic()) return "it is accessed by a volatile or atomic store";
            if (uniformLeafSize(m, u.operand(0).type()) != leaf) {
              return "it is stored to as " + u.operand(0).type() + ", not in whole elements of " + leaf + " bytes";
            }
          }
          case CALL -> {
            var callee = u.calledFunction();
            String name = callee.map(c -> c.name()).orElse("");
            if (name.startsWith("llvm.lifetime.") || name.startsWith("llvm.dbg.")) continue;
            if (name.startsWith("llvm.memset.") && u.operand(0).equals(v) && !u.operand(1).equals(v) && u.operand(2).isConstantInt()
                && u.operand(2).constIntZExt() % leaf == 0 && leaf <= 8) {
              continue;
            }
            return "its address is passed to " + (name.isEmpty() ? "an indirect call" : "'" + name + "'")
                + " (a callee sees one lane's array in the per-lane layout)";
          }
          default -> {
            return "its address is used by '" + op.mnemonic() + "'";
          }
        }
      }
    }
    // merges must only merge addresses of this array
    for (Value v : closure) {
      if (!v.isInstruction()) continue;
      if (v.opcode() == Opcode.PHI) {
        for (int i = 0; i < v.incomingCount(); i++) {
          Value in = v.incomingValue(i);
          if (!closure.contains(in) && !in.isUndef() && !in.isPoison()) return "its address is merged with another pointer";
        }
      } else if (v.opcode() == Opcode.SELECT) {
        for (int i = 1; i <= 2; i++) if (!closure.contains(v.operand(i))) return "its address is merged with another pointer";
      }
    }
    return null;
  }

  /** Whether every offset a GEP adds is a multiple of the leaf size (its constant part and each index's scale). */
  private static boolean gepAtLeaves(org.packetizer.core.ir.LlvmModule m, Value gep, long leaf) {
    Type t = gep.gepSourceElementType();
    long constant = 0;
    for (int i = 1; i < gep.numOperands(); i++) {
      Value idx = gep.operand(i);
      long scale;
      if (i == 1) {
        scale = m.allocSize(t);
      } else if (t.isStruct()) {
        if (!idx.isConstantInt()) return false;
        int field = (int) idx.constIntSExt();
        constant += m.offsetOfElement(t, field);
        t = t.structElements().get(field);
        continue;
      } else if (t.isArray() || t.isVector()) {
        t = t.elementType();
        scale = m.allocSize(t);
      } else {
        return false;
      }
      if (idx.isConstantInt()) constant += idx.constIntSExt() * scale;
      else if (idx.type().isVector() || scale % leaf != 0) return false;
    }
    return Math.floorMod(constant, leaf) == 0;
  }

  /** The leaf size of an interleaved private array's derived address (every scalar leaf has it), if v is one. */
  public OptionalLong interleavedLeafSize(Value v) {
    Long s = allocaLeaf.get(v);
    return s == null ? OptionalLong.empty() : OptionalLong.of(s);
  }

  /** Why a fixed-size alloca keeps the per-lane layout, if it does. */
  public Optional<String> perLaneReason(Value alloca) { return Optional.ofNullable(perLaneAllocas.get(alloca)); }

  private static PacketizationException escape(Value user, Value ptr, String how, String fn) {
    return PacketizationException.unsupported(Rejection.STRUCT_OF_ARRAYS, "the struct-of-arrays pointer " + ptr.describe() + " is " + how
        + "; struct-of-arrays pointers may only be offset and loaded or stored through (give the parameter kind u or v instead)",
        fn, user.block().map(b -> b.describe()).orElse(null), user.print());
  }

  public boolean isDerived(Value v) { return derived.contains(v); }

  /**
   * The field size s when {@code v} is a phi/select merging struct-of-arrays pointers with others:
   * it is a vector of per-lane pointers (struct-of-arrays incoming values at packet address + k*s).
   */
  public OptionalLong lanePointerFieldSize(Value v) {
    Long s = lanePointers.get(v);
    return s == null ? OptionalLong.empty() : OptionalLong.of(s);
  }

  /** The common access size of every use of the merges in {@code web} outside it: loads and stores through them only. */
  private static OptionalLong oneAccessSize(Set<Value> web) {
    long size = -1;
    for (Value v : web) for (Value u : v.users()) {
      if (!u.isInstruction()) return OptionalLong.empty();
      if (web.contains(u) && !(u.opcode() == Opcode.SELECT && u.operand(0).equals(v))) continue;
      Type t;
      if (u.opcode() == Opcode.LOAD && !u.isVolatile() && !u.isAtomic()) t = u.type();
      else if (u.opcode() == Opcode.STORE && u.operand(1).equals(v) && !u.operand(0).equals(v) && !u.isVolatile() && !u.isAtomic()) {
        t = u.operand(0).type();
      } else {
        return OptionalLong.empty();
      }
      if (!t.isVectorElement()) return OptionalLong.empty();
      long s = storeBytes(t);
      if (s <= 0 || size >= 0 && s != size) return OptionalLong.empty();
      size = s;
    }
    return size < 0 ? OptionalLong.empty() : OptionalLong.of(size);
  }

  private static long storeBytes(Type t) {
    if (t.isInteger()) return t.intWidth() % 8 == 0 && Long.bitCount(t.intWidth() / 8) == 1 ? t.intWidth() / 8 : -1;
    if (t.isFloat()) return 4;
    if (t.isDouble()) return 8;
    if (t.isPointer()) return 8;
    return -1;
  }

  /** {@code llvm.memcpy}, {@code llvm.memmove}, {@code llvm.memset} (the inline variants too). */
  public static boolean isMemIntrinsic(String name) {
    return name.startsWith("llvm.memcpy.") || name.startsWith("llvm.memmove.") || name.startsWith("llvm.memset.");
  }

  public boolean isEmpty() { return derived.isEmpty(); }

  /** The analysis hook: loads through struct-of-arrays pointers give each lane its own value. */
  public Optional<Shape> customShape(Value v, Function<Value, Shape> current) {
    if (lanePointers.containsKey(v)) return Optional.of(Shape.VARYING);
    if (derived.isEmpty() || !v.isInstruction()) return Optional.empty();
    // an interleaved private array: one block for all lanes, at the same address in every lane
    if (v.opcode() == Opcode.ALLOCA && allocaLeaf.containsKey(v)) return Optional.of(Shape.uniform(Math.min(Math.max(1, v.alignment()), org.packetizer.analysis.divergence.DivergenceAnalysis.MAX_ALIGNMENT)));
    if (v.opcode() == Opcode.LOAD && derived.contains(v.operand(0))) return Optional.of(Shape.VARYING);
    return Optional.empty();
  }
}
