package org.packetizer.core.widen;

import java.util.ArrayList;
import java.util.List;
import org.packetizer.core.ir.AtomicRmwOp;
import org.packetizer.core.ir.Block;
import org.packetizer.core.ir.Function;
import org.packetizer.core.ir.IrBuilder;
import org.packetizer.core.ir.Opcode;
import org.packetizer.core.ir.Type;
import org.packetizer.core.ir.Value;
import org.packetizer.core.mask.MaskOps;

/**
 * Atomic operations in packet code ({@code atomicrmw}, {@code cmpxchg}, {@code fence}, atomic loads
 * and stores), with the semantics of W sequential scalar calls: the lanes' operations happen in lane
 * order, inactive lanes do nothing, and every active lane gets the old value its own scalar call would
 * have seen.
 *
 * <ul>
 *   <li><b>Per lane (the general rule).</b> One copy of the scalar instruction per lane, in lane order,
 *       each under a branch on the lane's mask bit (the thesis' if-cascade). A copy keeps everything of
 *       the scalar instruction: operation, ordering(s), sync scope, alignment, volatility, weakness.
 *   <li><b>Combined (uniform address).</b> For {@code add sub and or xor max min umax umin} on integers
 *       at one address for all lanes, one atomic of the reduction of the active lanes' operands (the
 *       identity for inactive lanes), executed only when some lane is active. Lane k's old value is the
 *       initial value combined with the exclusive prefix (lanes before k) of the same reduction: what
 *       W sequential calls return. (W back-to-back read-modify-writes of one location form one legal
 *       execution of the sequential calls, so merging them keeps every ordering guarantee; GPU
 *       compilers' atomic optimizers merge wave-wide atomics the same way.) Volatile operations stay
 *       per lane: their number is observable.
 *   <li><b>fence</b>: once, when some lane is active.
 * </ul>
 */
final class AtomicEmitter {
  /** What the emitter needs from the packet emitter for one instruction. */
  interface Lanes {
    /** The packet value as a vector (uniform values broadcast). */
    Value vec(Value scalar);

    /** The packet value of a uniform scalar value. */
    Value scal(Value scalar);

    boolean uniform(Value scalar);

    /** The current block mask. */
    Value mask();
  }

  private final IrBuilder b;
  private final Function packet;
  private final MaskOps masks;
  private final int w;

  AtomicEmitter(IrBuilder b, Function packet, MaskOps masks, int w) {
    this.b = b;
    this.packet = packet;
    this.masks = masks;
    this.w = w;
  }

  /** Whether {@code atomicrmw} at a uniform address can be merged into one atomic (see the class comment). */
  static boolean combinable(Value inst) {
    if (inst.isVolatile() || !inst.operand(1).type().isInteger()) return false;
    return switch (inst.atomicRmwOp()) {
      case ADD, SUB, AND, OR, XOR, MAX, MIN, UMAX, UMIN -> true;
      default -> false;
    };
  }

  /** {@code atomicrmw}: the old values as {@code <W x T>}. */
  Value rmw(Value inst, Lanes l) {
    Value ptr = inst.operand(0);
    Value val = inst.operand(1);
    Type t = val.type();
    if (l.uniform(ptr) && combinable(inst)) return combinedRmw(inst, l);
    Value pv = l.uniform(ptr) ? l.scal(ptr) : l.vec(ptr);
    Value vv = l.vec(val);
    List<Value> r = perLane(l.mask(), List.of(t), k -> {
      return List.of(cloneWith(inst, inst.name() + "." + k, lane(pv, k), lane(vv, k)));
    });
    return r.getFirst();
  }

  /** {@code cmpxchg}, per lane: the packet value is {@code { <W x T>, <W x i1> }}, as extractvalue expects. */
  Value cmpxchg(Value inst, Lanes l) {
    Value ptr = inst.operand(0);
    Type t = inst.operand(1).type();
    Value pv = l.uniform(ptr) ? l.scal(ptr) : l.vec(ptr);
    Value cv = l.vec(inst.operand(1));
    Value nv = l.vec(inst.operand(2));
    Type i1 = b.context().i1();
    List<Value> r = perLane(l.mask(), List.of(t, i1), k -> {
      Value c = cloneWith(inst, inst.name() + "." + k, lane(pv, k), lane(cv, k), lane(nv, k));
      return List.of(b.extractValue(c, 0, ""), b.extractValue(c, 1, ""));
    });
    Type st = b.context().structType(List.of(t.vectorOf(w), i1.vectorOf(w)), false);
    Value agg = b.insertValue(b.poison(st), r.get(0), 0, "");
    return b.insertValue(agg, r.get(1), 1, inst.name());
  }

  /** An atomic (or volatile) load through varying addresses: one scalar load per active lane, in lane order. */
  Value load(Value inst, Lanes l) {
    Value pv = l.vec(inst.operand(0));
    return perLane(l.mask(), List.of(inst.type()), k -> {
      return List.of(cloneWith(inst, inst.name() + "." + k, lane(pv, k)));
    }).getFirst();
  }

  /** An atomic (or volatile) store of varying values or through varying addresses: per active lane, in lane order. */
  void store(Value inst, Lanes l) {
    Value vv = l.vec(inst.operand(0));
    Value ptr = inst.operand(1);
    Value pv = l.uniform(ptr) ? l.scal(ptr) : l.vec(ptr);
    perLane(l.mask(), List.of(), k -> {
      cloneWith(inst, "", lane(vv, k), lane(pv, k));
      return List.of();
    });
  }

  /** {@code fence}: once, when some lane is active. */
  void fence(Value inst, Lanes l) {
    onlyIfAny(l.mask(), () -> {
      b.insertClone(inst, "");
      return null;
    }, null);
  }

  // ------------------------------------------------------------------------------------------

  /** Lane k of a packet value (a uniform scalar as it is), emitted before the instruction that uses it. */
  private Value lane(Value packetValue, int k) {
    return packetValue.type().isVector() ? b.extractElement(packetValue, k, "") : packetValue;
  }

  /** A copy of the scalar instruction (same operation, ordering, scope, flags) on the given operands. */
  private Value cloneWith(Value inst, String name, Value... operands) {
    Value c = b.insertClone(inst, name);
    for (int i = 0; i < operands.length; i++) c.setOperand(i, operands[i]);
    return c;
  }

  private Value combinedRmw(Value inst, Lanes l) {
    Value ptr = l.scal(inst.operand(0));
    Type t = inst.operand(1).type();
    AtomicRmwOp op = inst.atomicRmwOp();
    // sub combines like add: the atomic subtracts the lanes' sum, lane k sees init - (sum before k)
    AtomicRmwOp scanOp = op == AtomicRmwOp.SUB ? AtomicRmwOp.ADD : op;
    Value ident = b.splat(identity(scanOp, t), w, "");
    Value mask = l.mask();
    Value x = MaskOps.isAllTrue(mask) ? l.vec(inst.operand(1)) : b.select(mask, l.vec(inst.operand(1)), ident, inst.name() + ".active");
    // inclusive scan in lane order (log2 W shifted combines), then shifted by one lane: exclusive
    for (int d = 1; d < w; d *= 2) x = combine(scanOp, x, shiftUp(x, ident, d));
    Value inclusive = x;
    Value exclusive = shiftUp(inclusive, ident, 1);
    Value total = b.extractElement(inclusive, w - 1, inst.name() + ".total");
    Value init = onlyIfAny(mask, () -> {
      return cloneWith(inst, inst.name() + ".combined", ptr, total);
    }, t);
    Value initV = b.splat(init, w, "");
    return op == AtomicRmwOp.SUB ? b.sub(initV, exclusive, inst.name()) : combine(op, initV, exclusive);
  }

  private Value identity(AtomicRmwOp op, Type t) {
    if (op == AtomicRmwOp.AND || op == AtomicRmwOp.UMIN) return b.allOnes(t);
    // (the builder folds these to constants, at any integer width)
    Value signedMax = b.binop(Opcode.LSHR, b.allOnes(t), b.constInt(t, 1), "");
    if (op == AtomicRmwOp.MAX) return b.xor(b.allOnes(t), signedMax, "");
    if (op == AtomicRmwOp.MIN) return signedMax;
    return b.constNull(t); // add, or, xor, umax
  }

  private Value combine(AtomicRmwOp op, Value x, Value y) {
    return switch (op) {
      case ADD -> b.add(x, y, "");
      case AND -> b.and(x, y, "");
      case OR -> b.or(x, y, "");
      case XOR -> b.xor(x, y, "");
      case MAX -> b.max(x, y, false, "");
      case MIN -> b.min(x, y, false, "");
      case UMAX -> b.max(x, y, true, "");
      case UMIN -> b.min(x, y, true, "");
      default -> throw new IllegalArgumentException("not combinable: " + op);
    };
  }

  /** Lane i gets x[i - d], lanes below d the identity. */
  private Value shiftUp(Value x, Value ident, int d) {
    List<Value> idx = new ArrayList<>();
    for (int i = 0; i < w; i++) idx.add(b.i32(i >= d ? i - d : w + i));
    return b.shuffle(x, ident, b.constVector(idx), "");
  }

  /** Runs {@code body} when some lane of {@code mask} is active; its result (of type t, or none) as a phi. */
  private Value onlyIfAny(Value mask, java.util.function.Supplier<Value> body, Type t) {
    if (MaskOps.isAllTrue(mask)) return body.get();
    Block from = b.currentBlock();
    Block then = packet.appendBlock(from.name() + ".atomic");
    Block next = packet.appendBlock(from.name() + ".after");
    then.moveAfter(from);
    next.moveAfter(then);
    b.condBr(masks.any(mask, "any.atomic"), then, next);
    b.atEnd(then);
    Value r = body.get();
    Block thenEnd = b.currentBlock();
    b.br(next);
    b.atEnd(next);
    if (t == null) return null;
    Value phi = b.phi(t, "");
    phi.addIncoming(r, thenEnd);
    phi.addIncoming(b.poison(t), from);
    return phi;
  }

  /** Something emitted for lane k: its scalar results. */
  @FunctionalInterface
  interface LaneBody {
    List<Value> emit(int lane);
  }

  /**
   * The thesis' if-cascade with several results: lane k's body runs only when its mask bit is set,
   * lanes in order; each result is assembled into a {@code <W x T>} (poison in inactive lanes).
   */
  private List<Value> perLane(Value mask, List<Type> resultTypes, LaneBody body) {
    List<Value> acc = new ArrayList<>();
    for (Type t : resultTypes) acc.add(b.poison(t.vectorOf(w)));
    for (int k = 0; k < w; k++) {
      Block from = b.currentBlock();
      Block lane = packet.appendBlock(from.name() + ".l" + k);
      Block next = packet.appendBlock(from.name() + ".n" + k);
      lane.moveAfter(from);
      next.moveAfter(lane);
      Value bit = MaskOps.isAllTrue(mask) ? b.i1(true) : b.extractElement(mask, k, "");
      b.condBr(bit, lane, next);
      b.atEnd(lane);
      List<Value> rs = body.emit(k);
      List<Value> ins = new ArrayList<>();
      for (int i = 0; i < rs.size(); i++) ins.add(b.insertElement(acc.get(i), rs.get(i), k, ""));
      Block laneEnd = b.currentBlock();
      b.br(next);
      b.atEnd(next);
      for (int i = 0; i < acc.size(); i++) {
        Value phi = b.phi(acc.get(i).type(), "");
        phi.addIncoming(ins.get(i), laneEnd);
        phi.addIncoming(acc.get(i), from);
        acc.set(i, phi);
      }
    }
    return acc;
  }
}
