package org.packetizer.core.wrapper;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.packetizer.core.ir.Function;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.ir.Opcode;
import org.packetizer.core.ir.Type;
import org.packetizer.core.ir.Value;

/**
 * The scalar leaves a struct-of-arrays parameter is accessed at: every load and store through it at
 * a constant byte offset {@code o} with a lane size {@code s} (the access type's allocation size, the
 * stride the packet emitter gives lanes). In a W-wide struct-of-arrays buffer lane k's copy of the
 * leaf lives at {@code W*o + k*s}, so lanes {@code [iN, iN+N)} of an S-wide buffer are the
 * {@code N*s} contiguous bytes at {@code S*o + i*N*s}, and they go to {@code N*o} in an N-wide one.
 *
 * <p>Found on the prepared scalar function (the same one the packetizer sees), and in the functions
 * of the module the pointer is passed to. Offsets must be compile-time constants: a GEP with a
 * variable index, a phi or select between derived pointers makes the layout of the accessed memory
 * unknown to the wrapper, and {@link #find} fails.
 */
final class SoaLeaves {
  private SoaLeaves() {}

  /**
   * One accessed leaf.
   *
   * @param offset scalar byte offset from the parameter
   * @param size   bytes per lane
   * @param stored whether the function may store to it (else it is only read)
   */
  record Leaf(long offset, long size, boolean stored) {
    long end() { return offset + size; }
  }

  /** Why the leaves of a parameter cannot be known statically. */
  static final class NotConstant extends Exception {
    final int param;
    final String instruction;

    NotConstant(int param, String message, String instruction) {
      super(message);
      this.param = param;
      this.instruction = instruction;
    }
  }

  /**
   * The leaves of parameter {@code param} of {@code f}, sorted by offset; leaves accessed with the
   * same offset and size are merged.
   *
   * @throws NotConstant when an access's offset is not a constant, the pointer escapes, or two
   *     accesses overlap without being the same leaf
   */
  static List<Leaf> find(LlvmModule layout, Function f, int param) throws NotConstant {
    Map<List<Long>, Boolean> leaves = new LinkedHashMap<>();
    walk(layout, f.param(param), 0, param, leaves, new ArrayDeque<>());
    List<Leaf> out = new ArrayList<>();
    leaves.forEach((k, stored) -> out.add(new Leaf(k.get(0), k.get(1), stored)));
    out.sort(Comparator.comparingLong(Leaf::offset).thenComparingLong(Leaf::size));
    for (int i = 0; i + 1 < out.size(); i++) {
      Leaf a = out.get(i);
      Leaf c = out.get(i + 1);
      if (c.offset() < a.end()) {
        throw new NotConstant(param, "is accessed at overlapping leaves (bytes " + a.offset() + ".." + a.end() + " and "
            + c.offset() + ".." + c.end() + ")", null);
      }
    }
    if (!out.isEmpty() && out.getFirst().offset() < 0) {
      throw new NotConstant(param, "is accessed at a negative offset " + out.getFirst().offset(), null);
    }
    return out;
  }

  /**
   * Collects the leaves reached from {@code start}, which points {@code base} bytes into the
   * parameter; follows the pointer into functions of the module it is passed to (they get packet
   * versions taking it as a struct-of-arrays pointer), {@code calls} holding the callees being
   * walked.
   */
  private static void walk(LlvmModule layout, Value start, long base, int param, Map<List<Long>, Boolean> leaves,
      Deque<Function> calls) throws NotConstant {
    Deque<Value> work = new ArrayDeque<>();
    Deque<Long> offsets = new ArrayDeque<>();
    Set<Value> seen = new HashSet<>();
    work.add(start);
    offsets.add(base);
    while (!work.isEmpty()) {
      Value v = work.poll();
      long off = offsets.poll();
      if (!seen.add(v)) continue;
      for (Value u : v.users()) {
        if (!u.isInstruction()) continue;
        Opcode op = u.opcode();
        switch (op) {
          case GEP -> {
            if (!u.operand(0).equals(v)) throw new NotConstant(param, "is used as a GEP index", u.print());
            work.add(u);
            offsets.add(off + gepOffset(layout, u, param));
          }
          case BITCAST, ADDRSPACECAST, FREEZE -> {
            work.add(u);
            offsets.add(off);
          }
          case PHI, SELECT -> throw new NotConstant(param, "reaches a '" + op.mnemonic()
              + "' that chooses between addresses at run time", u.print());
          case LOAD -> leaves.merge(List.of(off, layout.allocSize(u.type())), false, Boolean::logicalOr);
          case STORE -> {
            if (u.operand(0).equals(v)) throw new NotConstant(param, "is itself stored to memory", u.print());
            leaves.merge(List.of(off, layout.allocSize(u.operand(0).type())), true, Boolean::logicalOr);
          }
          case CALL -> {
            var callee = u.calledFunction();
            String name = callee.map(Function::name).orElse("");
            if (name.startsWith("llvm.lifetime.") || name.startsWith("llvm.dbg.")) continue;
            if (callee.isEmpty() || callee.get().isDeclaration() || callee.get().isVarArg() || u.calledOperand().equals(v)) {
              throw new NotConstant(param, "is passed to a call of a function without a body in the module", u.print());
            }
            Function g = callee.get();
            if (calls.contains(g)) throw new NotConstant(param, "is passed to the recursive function @" + g.name(), u.print());
            calls.push(g);
            for (int a = 0; a < u.numArgOperands(); a++) {
              if (u.operand(a).equals(v)) walk(layout, g.param(a), off, param, leaves, calls);
            }
            calls.pop();
          }
          default -> throw new NotConstant(param, "is used by '" + op.mnemonic() + "'", u.print());
        }
      }
    }
  }

  /** The constant byte offset a GEP adds, or NotConstant for a variable index. */
  private static long gepOffset(LlvmModule layout, Value gep, int param) throws NotConstant {
    Type t = gep.gepSourceElementType();
    long off = 0;
    for (int i = 1; i < gep.numOperands(); i++) {
      Value idx = gep.operand(i);
      if (!idx.isConstantInt()) {
        throw new NotConstant(param, "is indexed by the run-time value " + idx.describe(), gep.print());
      }
      long c = idx.constIntSExt();
      if (i == 1) {
        off += c * layout.allocSize(t);
      } else if (t.isStruct()) {
        off += layout.offsetOfElement(t, (int) c);
        t = t.structElements().get((int) c);
      } else if (t.isArray() || t.isVector()) {
        t = t.elementType();
        off += c * layout.allocSize(t);
      } else {
        throw new NotConstant(param, "is indexed through the non-aggregate type " + t, gep.print());
      }
    }
    return off;
  }

  /** Bytes of one object in an N-wide struct-of-arrays buffer covering every leaf. */
  static long packetBytes(List<Leaf> leaves, int n) {
    long end = 0;
    for (Leaf l : leaves) end = Math.max(end, l.end());
    return end * n;
  }
}
