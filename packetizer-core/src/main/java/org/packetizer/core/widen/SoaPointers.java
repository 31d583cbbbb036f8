package org.packetizer.core.widen;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import org.packetizer.analysis.divergence.Shape;
import org.packetizer.core.api.PacketizationException;
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
 * casts, comparisons) with a clear message — {@code llvm.memcpy/memmove/memset} on them are copied by
 * the emitter — and tells the shape analysis that loads through them are
 * varying although the address is the same for all lanes.
 */
public final class SoaPointers {
  private final Set<Value> derived = new LinkedHashSet<>();

  private SoaPointers() {}

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
            if (!u.type().isVectorElement()) throw escape(u, v, "loaded as a whole aggregate", fn);
          }
          case STORE -> {
            if (u.operand(0).equals(v)) throw escape(u, v, "stored to memory", fn);
            if (u.isVolatile() || u.isAtomic()) throw escape(u, v, "accessed by a volatile or atomic store", fn);
            if (!u.operand(0).type().isVectorElement()) throw escape(u, v, "stored as a whole aggregate", fn);
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
    // phis and selects must not mix struct-of-arrays pointers with others
    for (Value v : s.derived) {
      Opcode op = v.isInstruction() ? v.opcode() : Opcode.UNKNOWN;
      if (op == Opcode.PHI) {
        for (int i = 0; i < v.incomingCount(); i++) {
          Value in = v.incomingValue(i);
          if (!s.derived.contains(in) && !in.isUndef() && !in.isPoison()) {
            throw escape(v, in, "merged with a pointer that is not struct-of-arrays", fn);
          }
        }
      } else if (op == Opcode.SELECT) {
        for (int i = 1; i <= 2; i++) {
          Value in = v.operand(i);
          if (!s.derived.contains(in)) throw escape(v, in, "merged with a pointer that is not struct-of-arrays", fn);
        }
      }
    }
    return s;
  }

  private static PacketizationException escape(Value user, Value ptr, String how, String fn) {
    return PacketizationException.unsupported("the struct-of-arrays pointer " + ptr.describe() + " is " + how
        + "; struct-of-arrays pointers may only be offset and loaded or stored through (give the parameter kind u or v instead)",
        fn, user.block().map(b -> b.describe()).orElse(null), user.print());
  }

  public boolean isDerived(Value v) { return derived.contains(v); }

  /** {@code llvm.memcpy}, {@code llvm.memmove}, {@code llvm.memset} (the inline variants too). */
  public static boolean isMemIntrinsic(String name) {
    return name.startsWith("llvm.memcpy.") || name.startsWith("llvm.memmove.") || name.startsWith("llvm.memset.");
  }

  public boolean isEmpty() { return derived.isEmpty(); }

  /** The analysis hook: loads through struct-of-arrays pointers give each lane its own value. */
  public Optional<Shape> customShape(Value v, Function<Value, Shape> current) {
    if (derived.isEmpty() || !v.isInstruction()) return Optional.empty();
    if (v.opcode() == Opcode.LOAD && derived.contains(v.operand(0))) return Optional.of(Shape.VARYING);
    return Optional.empty();
  }
}
