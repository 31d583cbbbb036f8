package org.packetizer.core.widen;

import java.util.List;
import java.util.Map;
import org.packetizer.core.api.Remark;
import org.packetizer.core.ir.Block;
import org.packetizer.core.ir.Function;
import org.packetizer.core.ir.Opcode;
import org.packetizer.core.ir.Type;
import org.packetizer.core.ir.Value;
import org.packetizer.core.mask.MaskOps;
import org.packetizer.core.pipeline.SlotSsa;
import org.packetizer.core.pipeline.UniformMemory;

/**
 * Memory at uniform addresses shared by the lanes ({@link UniformMemory}): each lane's own copy of
 * a private location (the highest lane that wrote it has the last word), and counters updated once
 * for all active lanes, in lane order.
 */
final class UniformMemoryWidener extends EmissionPhase {
  UniformMemoryWidener(PacketEmitter e) { super(e.state(), e); }

  UniformMemory shared() { return st.sharedMemory(); }

  /** Each lane's copy of a private location and the lanes that wrote it: {values, written mask}. */
  private final Map<UniformMemory.Location, SlotSsa.Var[]> ownCopies = new java.util.LinkedHashMap<>();

  SlotSsa.Var[] ownCopy(UniformMemory.Location loc) {
    return ownCopies.computeIfAbsent(loc, l -> {
      Type vt = l.type().vectorOf(w);
      SlotSsa.Var values = vars().newVar(vt, nameOf("own.", l.base()));
      vars().init(values, allocaBlock(), b.poison(vt));
      SlotSsa.Var written = vars().newVar(masks.maskType(), nameOf("own.written.", l.base()));
      vars().init(written, allocaBlock(), masks.allFalse());
      return new SlotSsa.Var[] {values, written};
    });
  }

  /** A store to a private location: the active lanes' copies take the value. */
  void emitOwnCopyStore(Value inst, UniformMemory.Location loc) {
    SlotSsa.Var[] own = ownCopy(loc);
    Value v = vec(inst.operand(0));
    if (MaskOps.isAllTrue(mask())) {
      vars().write(own[0], v);
      vars().write(own[1], masks.allTrue());
      return;
    }
    Value old = vars().read(own[0], "");
    vars().write(own[0], b.select(mask(), v, old, nameOf(loc.base(), ".own")));
    vars().write(own[1], masks.or(vars().read(own[1], ""), mask(), ""));
  }

  /** At the exit: the highest lane that wrote a private location has the last word (lane order). */
  void writeBackOwnCopies() {
    for (var e : ownCopies.entrySet()) {
      UniformMemory.Location loc = e.getKey();
      Value written = vars().read(e.getValue()[1], "");
      Value values = vars().read(e.getValue()[0], "");
      Block from = b.currentBlock();
      Block wb = packet.appendBlock(nameOf("writeback.", loc.base()));
      Block cont = packet.appendBlock(nameOf("writeback.done.", loc.base()));
      wb.moveAfter(from);
      cont.moveAfter(wb);
      b.condBr(masks.any(written, ""), wb, cont);
      b.atEnd(wb);
      Value v = b.extractElement(values, lastActiveLane(written), nameOf(loc.base(), ".last"));
      b.store(v, sharedAddress(loc), loc.align());
      b.br(cont);
      b.atEnd(cont);
    }
  }

  private Value sharedAddress(UniformMemory.Location loc) {
    Value base = loc.base().isArgument() ? params.get(loc.base()) : loc.base();
    if (loc.offset() == 0) return base;
    return b.gep(st.context().i8(), base, List.of(b.i64(loc.offset())), true, nameOf(loc.base(), ".at"));
  }

  /**
   * {@code g = g OP x} by every active lane: one scalar read-modify-write with the reduction of the
   * active lanes' operands (integers: any order gives the same result; floats: an ordered reduction
   * in lane order, exactly the scalar calls' sequence).
   */
  void emitCounterUpdate(Value inst, UniformMemory.Counter c) {
    Type t = inst.operand(0).type();
    Type vt = t.vectorOf(w);
    Value ptr = scal(inst.operand(1));
    int align = Math.max(1, inst.alignment());
    if (c.family() == Opcode.CALL) {
      // g = fmuladd(a, b, g) lane after lane: the same intrinsic, so the same rounding as the scalar calls
      Value a = vec(c.operands().get(0));
      Value m = vec(c.operands().get(1));
      Value acc = b.load(t, ptr, Math.max(1, c.load().alignment()), nameOf(c.location().base(), ".old"));
      Function f = Function.of(c.intrinsic().ref());
      for (int k = 0; k < w; k++) {
        Value r = b.call(f, List.of(b.extractElement(a, k, ""), b.extractElement(m, k, ""), acc), "");
        acc = MaskOps.isAllTrue(mask()) ? r : b.select(b.extractElement(mask(), k, ""), r, acc, "");
      }
      b.store(acc, ptr, align);
      st.stats().scalarStores++;
      return;
    }
    // each lane's contribution: the operands combined (x1 - x2 + ...; x1 * x2; ...)
    Value x = null;
    for (int i = 0; i < c.operands().size(); i++) {
      Value xi = vec(c.operands().get(i));
      boolean neg = c.negated().get(i);
      if (c.family() == Opcode.FADD) {
        x = neg ? b.fneg(xi, "") : xi;
      } else if (c.family() == Opcode.ADD) {
        x = x == null ? (neg ? b.sub(b.splat(b.constInt(t, 0), w, ""), xi, "") : xi) : neg ? b.sub(x, xi, "") : b.add(x, xi, "");
      } else {
        x = x == null ? xi : b.binop(c.family(), x, xi, "");
      }
    }
    Value cur = b.load(t, ptr, Math.max(1, c.load().alignment()), nameOf(c.location().base(), ".old"));
    Value updated;
    if (c.family() == Opcode.FADD) {
      if (!MaskOps.isAllTrue(mask())) x = b.select(mask(), x, b.splat(b.constReal(t, -0.0), w, ""), "");
      updated = b.call(st.module().intrinsic("llvm.vector.reduce.fadd", vt), List.of(cur, x), nameOf(c.location().base(), ".new"));
    } else {
      long identity = switch (c.family()) {
        case MUL -> 1;
        case AND -> -1;
        default -> 0;
      };
      String reduce = switch (c.family()) {
        case MUL -> "llvm.vector.reduce.mul";
        case AND -> "llvm.vector.reduce.and";
        case OR -> "llvm.vector.reduce.or";
        case XOR -> "llvm.vector.reduce.xor";
        default -> "llvm.vector.reduce.add";
      };
      if (!MaskOps.isAllTrue(mask())) x = b.select(mask(), x, b.splat(b.constInt(t, identity), w, ""), "");
      Value r = b.call(st.module().intrinsic(reduce, vt), List.of(x), "");
      updated = b.binop(c.family(), cur, r, nameOf(c.location().base(), ".new"));
    }
    b.store(updated, ptr, align);
    st.stats().scalarStores++;
  }

  void reportSharedMemory() {
    UniformMemory um = shared();
    if (um == null) return;
    for (UniformMemory.Location loc : um.races()) {
      Value at = loc.stores().getFirst();
      st.remark(Remark.Kind.CROSS_LANE_RACE, st.ssa().blockOf(at).orElse(null), at, "cross-lane race on " + loc.describe()
          + ": lanes write it differently and " + loc.reason() + "; the packet function does not behave as " + w
          + " calls in lane order here (a store writes the highest active lane's value, a load reads one value for all lanes)");
    }
    for (UniformMemory.Location loc : um.privates()) {
      Value at = loc.stores().getFirst();
      st.remark(Remark.Kind.MEMORY, st.ssa().blockOf(at).orElse(null), at, loc.describe() + " is kept per lane (each lane reads"
          + " back its own writes); the highest writing lane's last value is stored at the exit");
    }
    for (UniformMemory.Location loc : um.counters()) {
      Value at = loc.stores().getFirst();
      st.remark(Remark.Kind.MEMORY, st.ssa().blockOf(at).orElse(null), at, "updates of " + loc.describe()
          + " by the lanes became one read-modify-write with a reduction over the active lanes");
    }
  }
}
