package org.packetizer.core.widen;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.packetizer.analysis.divergence.Shape;
import org.packetizer.core.api.PacketizationException;
import org.packetizer.core.api.Rejection;
import org.packetizer.core.adapt.LlvmSsaFunction;
import org.packetizer.core.ir.Block;
import org.packetizer.core.ir.Function;
import org.packetizer.core.ir.IrBuilder;
import org.packetizer.core.ir.Opcode;
import org.packetizer.core.ir.Type;
import org.packetizer.core.ir.Value;
import org.packetizer.core.mask.MaskOps;
import org.packetizer.core.pipeline.PacketizationState;
import org.packetizer.core.pipeline.SlotSsa;

/**
 * What every emission phase sees: the one {@link PacketizationState} of this packetization (value →
 * shape, mask, packet), the builders, and the accessors of packet values ({@link #get},
 * {@link #vec}, {@link #scal}), shapes and packet types. Phases reach each other through the
 * {@link PacketEmitter} ({@code e.memory}, {@code e.calls}, ...); they keep no state of their own
 * beyond caches of their own decisions.
 */
abstract class EmissionPhase {
  final PacketizationState st;
  /** The driver, through which phases reach each other. */
  final PacketEmitter e;
  final IrBuilder b;
  final IrBuilder entryB;
  final MaskOps masks;
  final int w;
  final Function packet;
  /** Packets of vectors and aggregates (see {@link CompositePackets}). */
  final CompositePackets comp;

  // value -> packet, in the shared state
  final Map<Block, Block> head;
  final Map<Block, Block> enter;
  final org.packetizer.core.ir.AddressMap<SlotSsa.Var> maskSlot;
  final org.packetizer.core.ir.AddressMap<SlotSsa.Var> phiSlot;
  final org.packetizer.core.ir.AddressMap<SlotSsa.Var> valueSlot;
  final Map<Block, Block> initAnchor;
  final Map<Value, Value> params;
  final Map<Value, Boolean> lanesComputed;
  /** Packet values of the current scalar block's instructions, and loads/splats cached in it. */
  final Map<Value, Value> local;
  final Map<Value, Value> splats;
  final Map<Value, Value> paramSplats;
  /**
   * Whether the values and blocks this packetization makes get names ({@code PacketizerOptions.valueNames}).
   * When not, the context drops every name given to them, so the emitters do not build one: no scalar
   * name read through LLVM, no string concatenated and encoded ({@link #nameOf}).
   */
  final boolean names;

  EmissionPhase(PacketizationState st, PacketEmitter driver) {
    this.st = st;
    this.e = driver == null ? (PacketEmitter) this : driver;
    this.b = st.builder();
    this.entryB = st.entryBuilder();
    this.packet = st.packetFunction();
    this.w = st.width();
    this.masks = new MaskOps(st.module(), b, w, MaskOps.bitTestEnabled());
    this.comp = new CompositePackets(b, st.module(), w);
    this.head = st.heads();
    this.enter = st.loopEnters();
    this.maskSlot = st.maskSlots();
    this.phiSlot = st.phiSlots();
    this.valueSlot = st.valueSlots();
    this.initAnchor = st.initAnchors();
    this.params = st.packetParams();
    this.lanesComputed = st.lanesComputed();
    this.local = st.localPackets();
    this.splats = st.splats();
    this.paramSplats = st.paramSplats();
    this.names = st.options().valueNames();
  }

  // ---- names of what is made (built only when they are kept: see names) ----

  /** v's name, or "" when names are off. */
  String nameOf(Value v) { return names ? v.name() : ""; }
  /** v's name followed by suffix, or "" when names are off. */
  String nameOf(Value v, String suffix) { return names ? v.name() + suffix : ""; }
  /** prefix followed by v's name, or "" when names are off. */
  String nameOf(String prefix, Value v) { return names ? prefix + v.name() : ""; }
  /** prefix followed by bb's name, or "" when names are off. */
  String nameOf(String prefix, Block bb) { return names ? prefix + bb.name() : ""; }
  /** bb's name followed by suffix, or "" when names are off. */
  String nameOf(Block bb, String suffix) { return names ? bb.name() + suffix : ""; }
  /** prefix, bb's name, then suffix, or "" when names are off. */
  String nameOf(String prefix, Block bb, String suffix) { return names ? prefix + bb.name() + suffix : ""; }

  /** The variables crossing packet blocks. */
  SlotSsa vars() { return st.slots(); }
  /** The scalar block being emitted. */
  Block current() { return st.currentBlock(); }
  /** The current block's mask. */
  Value mask() { return st.currentMask(); }
  Block exitBlock() { return st.exitBlock(); }
  Block allocaBlock() { return st.allocaBlock(); }
  Value entryMask() { return st.entryMask(); }
  SlotSsa.Var retSlot() { return st.retSlot(); }

  Value linearOffsets(IrBuilder bb, Type intType, long step) {
    return bb.laneNumbers(st.module(), intType, w, step, st.options().lanesMayBeRetyped());
  }

  boolean isEntry(Block sb) { return sb.equals(st.scalar().entry()); }

  boolean inLoop(Block sb) { return st.cfg().loops().loopOf(sb).isPresent(); }

  Type slotType(Value v) {
    return uniform(v) ? v.type() : packetType(v, v.type());
  }

  SlotSsa.Var valueSlot(Value v) {
    return valueSlot.computeIfAbsent(v.id(), a -> {
      Value p = v;
      SlotSsa.Var var = vars().newVar(slotType(p), nameOf(p));
      // the definition's block head: every use is dominated by it (phi uses through their edges)
      st.ssa().blockOf(p).ifPresent(db -> vars().init(var, head.get(db), b.poison(slotType(p))));
      return var;
    });
  }

  boolean needsValueSlot(Value inst) {
    Block def = current();
    LlvmSsaFunction ssa = st.ssa();
    for (Value u : inst.users()) {
      // (one lookup in the scalar function's numbering instead of two LLVM calls and a map lookup)
      int i = ssa.index(u);
      if (i < 0) {
        if (u.isInstruction()) return true;  // not an instruction of the scalar function
        continue;
      }
      if (ssa.opcodeAt(i) == Opcode.PHI || !ssa.blockAt(i).equals(def)) return true;
    }
    return false;
  }

  boolean uniform(Value v) {
    if (v.isConstant() || v.isBasicBlockValue() || v.isMetadataAsValue()) return true;
    return st.divergence().isUniform(v);
  }

  Shape shape(Value v) {
    if (v.isConstant()) return Shape.UNIFORM;
    return st.divergence().shape(v);
  }

  /** The packet type of a varying scalar type: {@code <W x T>}. */
  Type packetType(Value where, Type t) {
    if (CompositePackets.isComposite(t)) {
      try {
        return CompositePackets.packetType(t, w);
      } catch (IllegalArgumentException e) {
        throw unsupported(Rejection.UNSUPPORTED_TYPE, where, "a varying value of type " + t + ": " + e.getMessage());
      }
    }
    if (!t.isVectorElement()) {
      throw unsupported(Rejection.UNSUPPORTED_TYPE, where, "a varying value of type " + t + " (only integers, floating point and pointers can be packetized)");
    }
    if (t.isFloatingPoint() && !t.isPacketFloat()) {
      throw unsupported(Rejection.UNSUPPORTED_TYPE, where, "floating-point type " + t + " cannot be packetized");
    }
    return t.vectorOf(w);
  }

  /**
   * Whether {@link #get} can give v's packet value here: a constant, a parameter, a value emitted in
   * this block, or one with a slot. (A value whose scalar users are all in its own block has no slot:
   * an emitter that reaches past an instruction's operands to their operands must ask first.)
   */
  boolean available(Value v) {
    return v.isConstant() || params.containsKey(v) || local.containsKey(v) || valueSlot.get(v.id()) != null;
  }

  /** The packet value of a scalar value: a scalar when uniform, else a vector. */
  Value get(Value v) {
    if (v.isConstant()) return v;
    Value p = params.get(v);
    if (p != null) return p;
    Value l = local.get(v);
    if (l != null) return l;
    SlotSsa.Var slot = valueSlot.get(v.id());
    if (slot == null) {
      throw new PacketizationException(PacketizationException.Kind.INTERNAL,
          "internal error: " + v.describe() + " is used in block " + current().name() + " before its definition was emitted",
          st.scalarName(), current().name(), null);
    }
    Value loaded = vars().read(slot, nameOf(v));
    local.put(v, loaded);
    return loaded;
  }

  /** The packet value as a vector (broadcast when uniform). */
  Value vec(Value v) {
    Value p = get(v);
    if (isPacket(v, p)) return p;
    if (CompositePackets.isComposite(v.type())) {
      Value s = splats.get(p);
      if (s == null) {
        s = comp.broadcast(p, p.isConstant() ? "" : nameOf(v, ".splat"));
        splats.put(p, s);
      }
      return s;
    }
    if (v.isArgument()) {
      // a uniform parameter is broadcast once, in the entry block, not in every block (and loop
      // iteration) that needs it as a vector
      Value s = paramSplats.get(p);
      if (s == null) {
        s = entryB.splat(p, w, nameOf(v, ".splat"));
        paramSplats.put(p, s);
      }
      return s;
    }
    Value s = splats.get(p);
    if (s == null) {
      s = b.splat(p, w, p.isConstant() ? "" : nameOf(v, ".splat"));
      splats.put(p, s);
    }
    return s;
  }

  /** Whether p, the packet value of v, is a packet (varying), not v's uniform scalar value. */
  static boolean isPacket(Value v, Value p) {
    return CompositePackets.isComposite(v.type()) ? !p.type().equals(v.type()) : p.type().isVector();
  }

  /** The packet value of a uniform scalar value. */
  Value scal(Value v) {
    Value p = get(v);
    if (isPacket(v, p)) {
      throw new PacketizationException(PacketizationException.Kind.INTERNAL,
          "internal: value " + v.describe() + " used as uniform but it is varying", st.scalarName(),
          current() == null ? null : current().name(), null);
    }
    return p;
  }

  /** The index (i32) of the lowest active lane of the current mask (W-1 when none is). */
  Value firstActiveLane() {
    Type iw = st.context().intType(w);
    Value bits = b.cast(Opcode.BITCAST, mask(), iw, "");
    Value f = b.call(st.module().intrinsic("llvm.cttz", iw), List.of(bits, b.i1(false)), "");
    f = b.and(f, b.constInt(iw, w - 1), "first.active");
    return w < 32 ? b.cast(Opcode.ZEXT, f, st.context().i32(), "") : w == 32 ? f : b.cast(Opcode.TRUNC, f, st.context().i32(), "");
  }

  /** The index (i32) of the highest active lane of the current mask. */
  Value lastActiveLane() { return lastActiveLane(mask()); }

  /** The index (i32) of the highest set lane of {@code mask}. */
  Value lastActiveLane(Value m) {
    if (MaskOps.isAllTrue(m)) return b.i32(w - 1);
    Type iw = st.context().intType(w);
    Value bits = b.cast(Opcode.BITCAST, m, iw, "mask.bits");
    Function ctlz = st.module().intrinsic("llvm.ctlz", iw);
    Value lz = b.call(ctlz, List.of(bits, b.i1(false)), "lz");
    Value idx = b.sub(b.constInt(iw, w - 1), lz, "last.lane");
    return w <= 32 ? (w == 32 ? idx : b.cast(Opcode.ZEXT, idx, st.context().i32(), "")) : b.cast(Opcode.TRUNC, idx, st.context().i32(), "");
  }

  /** Something emitted for one lane, given its number as an i32 value (may return a scalar result). */
  @FunctionalInterface
  interface LaneBody {
    Value emit(Value lane);
  }

  /**
   * The thesis' if-cascade: for each lane, run {@code body} only when the lane's mask bit is set.
   * Returns the lane results assembled into a vector of type {@code resultVec} (or null). When the
   * packet function will be re-typed to vscale × W lanes (scalable packets), a loop over the vscale × W
   * lanes instead ({@link #laneLoopGuarded}): W copies would leave lanes W and up out.
   */
  Value perLaneGuarded(LaneBody body, Type resultVec) {
    if (st.options().lanesMayBeRetyped()) return laneLoopGuarded(body, resultVec);
    Value acc = resultVec == null ? null : b.poison(resultVec);
    for (int k = 0; k < w; k++) {
      Block from = b.currentBlock();
      Block lane = packet.appendBlock(from.name() + ".l" + k);
      Block next = packet.appendBlock(from.name() + ".n" + k);
      lane.moveAfter(from);
      next.moveAfter(lane);
      Value bit = MaskOps.isAllTrue(mask()) ? b.i1(true) : b.extractElement(mask(), k, "");
      b.condBr(bit, lane, next);
      b.atEnd(lane);
      Value r = body.emit(b.i32(k));
      Value ins = acc == null ? null : insertLane(acc, r, k);
      Block laneEnd = b.currentBlock();
      b.br(next);
      b.atEnd(next);
      if (acc != null) {
        Value phi = b.phi(resultVec, "");
        phi.addIncoming(ins, laneEnd);
        phi.addIncoming(acc, from);
        acc = phi;
      }
    }
    return acc;
  }

  /**
   * New blocks named {@code pre}'s name plus each suffix, created in that order and laid out right after
   * {@code pre} in that order.
   */
  Block[] blocksAfter(Block pre, String... suffixes) {
    Block[] out = new Block[suffixes.length];
    for (int k = 0; k < suffixes.length; k++) out[k] = packet.appendBlock(pre.name() + suffixes[k]);
    Block last = pre;
    for (Block x : out) {
      x.moveAfter(last);
      last = x;
    }
    return out;
  }

  /**
   * {@link #perLaneGuarded} as a loop over lane numbers 0 .. vscale × W - 1 ({@code llvm.vscale}
   * survives the re-typing): lane i runs {@code body} when bit i of the mask is set, its result goes
   * into lane i ({@code extractelement}/{@code insertelement} at the variable lane, which have scalable
   * forms). Composite (aggregate) results are refused, as scalable packets hold none.
   */
  Value laneLoopGuarded(LaneBody body, Type resultVec) {
    Type i32 = st.context().i32();
    Value n = b.mul(b.call(st.module().intrinsic("llvm.vscale", i32), List.of(), "vscale"), b.i32(w), "lanes.n");
    Block pre = b.currentBlock();
    Block[] bs = blocksAfter(pre, ".lane", ".lane.on", ".lane.next", ".lanes.done");
    Block head = bs[0], on = bs[1], next = bs[2], done = bs[3];
    b.br(head);
    b.atEnd(head);
    Value i = b.phi(i32, "lane");
    Value acc = resultVec == null ? null : b.phi(resultVec, "lanes.acc");
    Value bit = MaskOps.isAllTrue(mask()) ? b.i1(true) : b.extractElement(mask(), i, "lane.on");
    b.condBr(bit, on, next);
    b.atEnd(on);
    Value r = body.emit(i);
    if (acc != null && CompositePackets.isComposite(r.type())) {
      throw PacketizationException.unsupported("scalable packets: a per-lane result of type " + r.type()
          + " (an aggregate of packets)", st.scalarName(), current() == null ? null : current().name(), null);
    }
    Value ins = acc == null ? null : b.insertElement(acc, r, i, "");
    Block laneEnd = b.currentBlock();
    b.br(next);
    b.atEnd(next);
    Value accNext = null;
    if (acc != null) {
      accNext = b.phi(resultVec, "lanes.acc.next");
      accNext.addIncoming(ins, laneEnd);
      accNext.addIncoming(acc, head);
    }
    Value iNext = b.add(i, b.i32(1), "lane.next");
    b.condBr(b.icmpUlt(iNext, n, "more.lanes"), head, done);
    i.addIncoming(b.i32(0), pre);
    i.addIncoming(iNext, next);
    if (acc != null) {
      acc.addIncoming(b.poison(resultVec), pre);
      acc.addIncoming(accNext, next);
    }
    b.atEnd(done);
    return accNext;
  }

  /** The body of {@link #activeLanesLoop}: emits lane {@code lane}'s (an i32 value) scalar result. */
  interface VariableLaneBody {
    Value emit(Value lane);
  }

  /**
   * Runs {@code body} once for each active lane of the current mask, in lane order, as a loop over
   * the set bits of the mask ({@code cttz}, then clear the lowest bit): the work is proportional to
   * the number of active lanes, and the code does not grow with W. The body must stay in the block
   * it starts in. Inactive lanes of the result are poison. With an all-true mask use straight-line
   * code instead.
   */
  Value activeLanesLoop(VariableLaneBody body, Type resultVec, String name) {
    Type iw = st.context().intType(w);
    Value bits0 = b.cast(Opcode.BITCAST, mask(), iw, "");
    Block pre = b.currentBlock();
    Block[] bs = blocksAfter(pre, ".lanes", ".lanes.done");
    Block loop = bs[0], done = bs[1];
    b.condBr(b.icmpNe(bits0, b.constInt(iw, 0), "any.lane"), loop, done);
    b.atEnd(loop);
    Value bits = b.phi(iw, "lanes.left");
    Value acc = resultVec == null ? null : b.phi(resultVec, name + ".lanes");
    Value k = b.call(st.module().intrinsic("llvm.cttz", iw), List.of(bits, b.i1(true)), "");
    Value k32 = w < 32 ? b.cast(Opcode.ZEXT, k, st.context().i32(), "lane") : w == 32 ? k : b.cast(Opcode.TRUNC, k, st.context().i32(), "lane");
    Value r = body.emit(k32);
    Value accNext = acc == null ? null : b.insertElement(acc, r, k32, "");
    Value bitsNext = b.and(bits, b.sub(bits, b.constInt(iw, 1), ""), "");
    Block latch = b.currentBlock();
    b.condBr(b.icmpNe(bitsNext, b.constInt(iw, 0), ""), loop, done);
    bits.addIncoming(bits0, pre);
    bits.addIncoming(bitsNext, latch);
    if (acc != null) {
      acc.addIncoming(b.poison(resultVec), pre);
      acc.addIncoming(accNext, latch);
    }
    b.atEnd(done);
    if (acc == null) return null;
    Value out = b.phi(resultVec, name);
    out.addIncoming(b.poison(resultVec), pre);
    out.addIncoming(accNext, latch);
    return out;
  }

  /**
   * Emits {@code call} (a costly call on the whole packet: a vector library function, an exact math
   * helper) so that it is skipped when no lane of the current mask is active — a linearized branch
   * runs its block for every packet, most often with no lane in it when the branch is rarely taken.
   * Under an all-true mask the call is emitted as it is. The result's lanes are poison when skipped.
   */
  Value skipWhenNoLaneActive(java.util.function.Supplier<Value> call, String name) {
    if (MaskOps.isAllTrue(mask())) return call.get();
    return whenAnyLaneActive(".call", ".call.done", "any.call", call, name);
  }

  /**
   * Emits {@code body} in a block of its own (the current block's name plus {@code bodySuffix}) that
   * runs only when a lane of the current mask is active (the test named {@code anyName}), and goes on
   * in a join block (name plus {@code joinSuffix}). A non-void value the body returns comes out as a
   * phi named {@code phiName}, poison when the body was skipped.
   */
  Value whenAnyLaneActive(String bodySuffix, String joinSuffix, String anyName, java.util.function.Supplier<Value> body,
      String phiName) {
    Block pre = b.currentBlock();
    Block[] bs = blocksAfter(pre, bodySuffix, joinSuffix);
    Block then = bs[0], join = bs[1];
    b.condBr(masks.any(mask(), anyName), then, join);
    b.atEnd(then);
    Value r = body.get();
    Block end = b.currentBlock();
    b.br(join);
    join.moveAfter(end);
    b.atEnd(join);
    if (r == null || r.type().isVoid()) return r;
    Value phi = b.phi(r.type(), phiName);
    phi.addIncoming(b.poison(r.type()), pre);
    phi.addIncoming(r, end);
    return phi;
  }

  /** Packet acc with lane k set to the scalar value r. */
  Value insertLane(Value acc, Value r, int k) {
    return CompositePackets.isComposite(r.type()) ? comp.insertLane(acc, r, k) : b.insertElement(acc, r, k, "");
  }

  /** The index (i32) of the lowest set lane of {@code m} (0 when none is set). */
  Value firstActiveLane(Value m) {
    Type iw = st.context().intType(w);
    Value bits = b.cast(Opcode.BITCAST, m, iw, "");
    Value f = b.call(st.module().intrinsic("llvm.cttz", iw), List.of(bits, b.i1(false)), "");
    f = b.and(f, b.constInt(iw, w - 1), "first.lane");
    return w < 32 ? b.cast(Opcode.ZEXT, f, st.context().i32(), "") : w == 32 ? f : b.cast(Opcode.TRUNC, f, st.context().i32(), "");
  }

  PacketizationException unsupported(Rejection reason, Value inst, String what) {
    String blk = inst.isInstruction() ? st.ssa().blockOf(inst).map(Block::name).orElse(null) : null;
    return PacketizationException.unsupported(reason, "cannot packetize " + what, st.scalarName(), blk,
        inst.isInstruction() ? inst.print() : null);
  }
}
