package org.packetizer.core.pipeline;

import java.util.ArrayDeque;
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
    return s;
  }

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
    if (v.opcode() == Opcode.LOAD && derived.contains(v.operand(0))) return Optional.of(Shape.VARYING);
    return Optional.empty();
  }
}
