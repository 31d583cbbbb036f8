package org.packetizer.core.widen;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.packetizer.analysis.cfg.LoopForest;
import org.packetizer.analysis.divergence.Shape;
import org.packetizer.core.api.MemoryStrategy;
import org.packetizer.core.api.PacketizationException;
import org.packetizer.core.api.ParamKind;
import org.packetizer.core.api.Remark;
import org.packetizer.core.ir.Block;
import org.packetizer.core.ir.Function;
import org.packetizer.core.ir.IrBuilder;
import org.packetizer.core.ir.Opcode;
import org.packetizer.core.ir.Type;
import org.packetizer.core.ir.Value;
import org.packetizer.core.mapping.MathMappings;
import org.packetizer.core.mapping.SpmdIntrinsics;
import org.packetizer.core.mask.MaskOps;
import org.packetizer.core.pipeline.PacketizationState;
import org.packetizer.core.pipeline.SoaPointers;
import org.packetizer.core.pipeline.UniformMemory;

/**
 * Emits the packet function from the prepared scalar function (thesis 4.2–4.5 in one pass over the
 * linearized order).
 *
 * <p>How the phases map onto the emitted code:
 *
 * <ul>
 *   <li><b>Masks (4.2).</b> Every scalar block B has a mask slot; an edge B→S ORs its edge mask
 *       ({@code blockMask(B)} and the branch condition, or its negation) into S's slot; B's head loads
 *       its slot (and clears it when B is in a loop, so the next iteration accumulates afresh). A loop
 *       header's slot thus holds the preheader's mask on entry and the latch edge's mask afterwards;
 *       an exit block's slot accumulates the lanes that left through it over all iterations (the
 *       thesis' exit masks).
 *   <li><b>Blends (4.3).</b> Every scalar phi has a slot; the edge B→S updates it with
 *       {@code select(edgeMask, incoming, slot)}. LCSSA phis at exits accumulate each lane's value
 *       at the iteration it left, which freezes the live values of lanes that left a loop (the
 *       thesis' latch selects and combined exit mask do this for non-LCSSA code); the back edge
 *       itself therefore writes the header's phis without a blend: only lanes that continue read
 *       them again, and dropping the blend takes a select off every loop-carried dependence chain
 *       (mandelbrot W8 2.2× → 4.3×). Uniform phis use a scalar select on "any lane took this edge".
 *   <li><b>Linearization (4.4), partial.</b> Blocks are emitted in the schedule's order. A block that
 *       can only hold all lanes or none (not in the region of a divergent branch) keeps a uniform
 *       branch as a real branch; every other branch falls through to the next block; a latch jumps
 *       back while any lane takes the back edge. Blocks may be skipped at run time when their mask is
 *       empty (guards), which is always safe because an empty block changes no slot.
 *   <li><b>Widening (4.5).</b> Uniform instructions stay scalar (cloned); varying ones become vector
 *       instructions; memory, calls and integer division follow the rules in the methods below.
 * </ul>
 *
 * Values crossing blocks (masks, blended phis, values used in other blocks, the return value) are
 * variables of {@link SlotSsa}, written and read like stack slots; at the end SlotSsa builds their
 * SSA form on the emitted graph (phis where needed). This keeps the emitter simple and correct under
 * any mix of real and linearized branches, in time linear in the live ranges (LLVM's mem2reg on
 * allocas was quadratic on large packet functions).
 */
public final class PacketEmitter {
  private final PacketizationState st;
  private final IrBuilder b;
  private final IrBuilder entryB;
  private final MaskOps masks;
  private final int w;
  private final Function packet;
  private final SpmdIntrinsics spmd;
  /** Packets of vectors and aggregates (see {@link CompositePackets}). */
  private final CompositePackets comp;
  private final AtomicEmitter atomics;

  private final Map<Block, Block> head = new HashMap<>();
  /** Loop headers: the block forward edges enter the loop through (the any-lane test before it). */
  private final Map<Block, Block> enter = new HashMap<>();
  private final Map<Block, SlotSsa.Var> maskSlot = new HashMap<>();
  private final Map<Value, SlotSsa.Var> phiSlot = new HashMap<>();
  private final Map<Value, SlotSsa.Var> valueSlot = new HashMap<>();
  private final Map<Block, Block> initAnchor = new HashMap<>();
  private SlotSsa vars;
  private final Map<Value, Value> params = new HashMap<>();
  private final Map<Value, Boolean> lanesComputed = new HashMap<>();
  private SlotSsa.Var retSlot;
  private Block exitBlock;
  private Block allocaBlock;
  private Value entryMask;

  /** Packet values of the current scalar block's instructions, and loads/splats cached in it. */
  private final Map<Value, Value> local = new HashMap<>();
  private final Map<Value, Value> splats = new HashMap<>();
  private final Map<Value, Value> paramSplats = new HashMap<>();
  private Block current;
  private Value mask;

  public PacketEmitter(PacketizationState state, Function packetFunction) {
    this.st = state;
    this.packet = packetFunction;
    this.w = state.width();
    this.b = new IrBuilder(state.context());
    this.entryB = new IrBuilder(state.context());
    this.masks = new MaskOps(state.module(), b, w);
    this.spmd = new SpmdIntrinsics(state.module(), w, state.scalarName());
    this.comp = new CompositePackets(b, state.module(), w);
    this.atomics = new AtomicEmitter(b, packetFunction, masks, w);
  }

  /** The packet values and the mask the atomic emitter works on. */
  private final AtomicEmitter.Lanes lanes = new AtomicEmitter.Lanes() {
    @Override public Value vec(Value v) { return PacketEmitter.this.vec(v); }
    @Override public Value scal(Value v) { return PacketEmitter.this.scal(v); }
    @Override public boolean uniform(Value v) { return PacketEmitter.this.uniform(v); }
    @Override public Value mask() { return mask; }
  };

  /** Emits the body of the packet function. Closes its builders. */
  public void emit() {
    try {
      emitAll();
    } finally {
      b.close();
      entryB.close();
    }
  }

  private void emitAll() {
    Function scalar = st.scalar();
    allocaBlock = packet.appendBlock("entry");
    entryB.atEnd(allocaBlock);
    vars = new SlotSsa(b, packet, b.constNull(st.context().ptrType()));
    List<Block> order = st.schedule().order();
    for (Block sb : order) {
      String name = sb.name().isEmpty() ? "bb" : sb.name();
      if (st.schedule().loopHeadedBy(sb).isPresent()) enter.put(sb, packet.appendBlock(name + ".enter"));
      head.put(sb, packet.appendBlock(name));
    }
    exitBlock = packet.appendBlock("packet.exit");

    // parameters and the entry mask
    setupParams(scalar);

    Type ret = packet.returnType();
    if (!ret.isVoid()) retSlot = vars.newVar(ret, "ret");
    reportSharedMemory();

    for (Block sb : order) emitBlock(sb);

    b.atEnd(exitBlock);
    writeBackOwnCopies();
    if (ret.isVoid()) b.retVoid();
    else b.ret(vars.read(retSlot, "ret"));

    entryB.atEnd(allocaBlock);
    entryB.br(entryOf(order.getFirst()));
    vars.resolve();
  }

  private void setupParams(Function scalar) {
    List<ParamKind> kinds = st.paramKinds();
    for (int i = 0; i < scalar.paramCount(); i++) {
      Value sp = scalar.param(i);
      Value pp = packet.param(i);
      pp.setName(sp.name());
      ParamKind k = kinds.get(i);
      Value v = switch (k) {
        case ParamKind.Linear lin -> {
          Type t = sp.type();
          if (t.isPointer()) {
            Value offs = linearOffsets(entryB, st.context().i64(), lin.step());
            yield entryB.gep(st.context().i8(), pp, List.of(offs), false, sp.name() + ".lanes");
          }
          Value base = entryB.splat(pp, w, sp.name() + ".splat");
          yield entryB.add(base, linearOffsets(entryB, t, lin.step()), sp.name() + ".lanes");
        }
        default -> pp;
      };
      params.put(sp, v);
    }
    if (st.options().masked()) {
      entryMask = packet.param(packet.paramCount() - 1);
      entryMask.setName("mask");
    } else {
      entryMask = masks.allTrue();
    }
  }

  private Value linearOffsets(IrBuilder bb, Type intType, long step) {
    List<Value> es = new ArrayList<>();
    for (int k = 0; k < w; k++) es.add(bb.constInt(intType, k * step));
    return bb.constVector(es);
  }

  // ------------------------------------------------------------------------------------------
  // blocks

  private boolean isEntry(Block sb) { return sb.equals(st.scalar().entry()); }

  private boolean inLoop(Block sb) { return st.cfg().loops().loopOf(sb).isPresent(); }

  private SlotSsa.Var maskSlot(Block sb) {
    return maskSlot.computeIfAbsent(sb, k -> {
      SlotSsa.Var slot = vars.newVar(masks.maskType(), "m." + k.name());
      // no lane has arrived yet: at the function's entry and (to keep the live range short) again at
      // the head of the block that decides about every way into sb
      vars.init(slot, allocaBlock, masks.allFalse());
      vars.init(slot, head.get(initAnchor(sb)), masks.allFalse());
      return slot;
    });
  }

  /**
   * Where state flowing into scalar block {@code sb} (its mask, its phis' blends) may be reset: the
   * head of sb's immediate dominator, moved out of every loop that does not contain sb (a reset
   * inside such a loop would drop lanes that arrived in earlier iterations). Every path into sb
   * passes there before any edge contributes, and no contribution is ever needed across it.
   */
  private Block initAnchor(Block sb) {
    return initAnchor.computeIfAbsent(sb, s -> {
      var dom = st.cfg().dom();
      var loops = st.cfg().loops();
      Block d = dom.idom(s).orElse(s);
      var l = loops.loopOf(d);
      while (l.isPresent() && !l.get().contains(s)) {
        d = dom.idom(l.get().header()).orElse(d);
        l = loops.loopOf(d);
      }
      return d;
    });
  }

  private void emitBlock(Block sb) {
    current = sb;
    local.clear();
    splats.clear();
    Block h = head.get(sb);
    // a block every lane reaches once holds exactly the entry's lanes, divergence or not
    boolean partial = st.divergence().mayBePartial(sb) && !reachedByAll(sb);
    Block loopEnter = enter.get(sb);
    if (loopEnter != null) {
      // a loop is skipped when no lane arrives; the test is made once on entry, not in every iteration
      // (the latch takes the back edge only when some lane continues)
      b.atEnd(loopEnter);
      Value arriving = vars.read(maskSlot(sb), "m." + sb.name() + ".enter");
      Optional<Block> skip = enterSkipTarget(sb);
      b.condBr(masks.any(arriving, "any." + sb.name()), h, skip.map(this::entryOf).orElse(exitBlock));
    }
    b.atEnd(h);
    Value m;
    Value slotMask;
    if (isEntry(sb)) {
      slotMask = entryMask;
    } else {
      SlotSsa.Var slot = maskSlot(sb);
      slotMask = vars.read(slot, "m." + sb.name());
      if (inLoop(sb)) vars.write(slot, masks.allFalse());
    }
    m = partial ? slotMask : entryMask;
    boolean guard = loopEnter == null && needsGuard(sb, partial);
    if (guard) {
      Block body = packet.appendBlock(h.name() + ".body");
      body.moveAfter(h);
      // a masked function called with no lane active does nothing at all: straight to the exit (this
      // also ends the recursion of recursive packet versions)
      Optional<Block> skip = isEntry(sb) ? Optional.empty() : st.schedule().skipTarget(sb);
      b.condBr(masks.any(slotMask, "any." + sb.name()), body, skip.map(this::entryOf).orElse(exitBlock));
      b.atEnd(body);
      if (!isEntry(sb) && st.cfg().loops().loopOf(sb).map(l -> !l.header().equals(sb)).orElse(true)
          && instructionCount(sb) >= st.options().skipThreshold()) {
        st.remark(Remark.Kind.SKIP_IF_EMPTY, sb, null, "block is skipped when no lane is active");
      }
    }
    mask = m;
    st.stats().blocks++;

    for (Value inst : st.ssa().instructions(sb)) {
      Opcode op = st.ssa().opcode(inst);
      if (op == Opcode.PHI) {
        Value pv = vars.read(phiSlot(inst), inst.name());
        local.put(inst, pv);
        if (needsValueSlot(inst)) vars.write(valueSlot(inst), pv);
        continue;
      }
      if (op.isTerminator()) {
        emitTerminator(sb, inst, partial);
        break;
      }
      Value pv = emitInstruction(inst);
      if (pv != null) {
        local.put(inst, pv);
        if (needsValueSlot(inst)) vars.write(valueSlot(inst), pv);
      }
    }
  }

  private int instructionCount(Block sb) { return st.ssa().instructions(sb).size(); }

  /**
   * A block needs a run-time "any lane active" test when it keeps a real branch or does scalar
   * (uniform) work with side effects, when it is a loop header (skipping the whole loop), or when
   * it is big enough to be worth skipping.
   */
  private boolean needsGuard(Block sb, boolean partial) {
    if (isEntry(sb)) return st.options().masked();
    // (the entry's own test, in a masked function, covers it)
    if (reachedByAll(sb)) return false;
    if (!partial && exitOfEnteredLoop(sb)) return false;
    if (!partial) return true;
    if (st.schedule().loopHeadedBy(sb).isPresent()) return true;
    if (instructionCount(sb) >= st.options().skipThreshold() && !onEveryIteration(sb)) return true;
    for (Value inst : st.ssa().instructions(sb)) if (hasScalarSideEffect(inst)) return true;
    return false;
  }

  private final Map<Block, Boolean> reachedByAll = new HashMap<>();

  /**
   * Whether every lane active at the function's entry reaches {@code sb}, once: it post-dominates the
   * entry and is in no loop. Its mask is the entry mask.
   */
  private boolean reachedByAll(Block sb) {
    return reachedByAll.computeIfAbsent(sb, s -> !inLoop(s) && st.cfg().pdt().postDominates(s, st.scalar().entry()));
  }

  /**
   * Where the entry test of the loop headed by {@code header} goes when no lane arrives: past the
   * loop and past the blocks right after it that the header dominates (lanes reach those only
   * through the loop).
   */
  private Optional<Block> enterSkipTarget(Block header) {
    int end = dominatedAfterLoop(header)[1];
    List<Block> order = st.schedule().order();
    return end < order.size() ? Optional.of(order.get(end)) : Optional.empty();
  }

  /**
   * The blocks right after the loop headed by {@code header} that the header dominates: schedule
   * positions [start, end). (The packet function is mostly a chain, so this stretch is often the rest of
   * the function: it is found by a search over dominator-tree intervals, not by walking it per loop.)
   */
  private int[] dominatedAfterLoop(Block header) {
    return dominatedAfterLoop.computeIfAbsent(header, h -> {
      if (stretches == null) stretches = new DominatedStretches<>(st.schedule().order(), st.cfg().dom());
      int start = st.schedule().afterLoop(h).map(st.schedule()::position).orElse(st.schedule().order().size());
      return new int[] {start, stretches.end(h, start)};
    });
  }

  private final Map<Block, int[]> dominatedAfterLoop = new HashMap<>();
  private DominatedStretches<Block> stretches;

  /**
   * Whether {@code sb} is the only exit block of a loop whose header dominates it and is skipped with
   * that loop when no lane arrives: every lane that entered the loop (at least one) arrives in sb,
   * so sb never runs empty and needs no test of its own.
   */
  private boolean exitOfEnteredLoop(Block sb) {
    for (Block p : st.cfg().cfg().predecessors(sb)) {
      var l = st.cfg().loops().loopOf(p);
      if (l.isEmpty()) return false;
      var loop = l.get();
      // the outermost loop p is in that sb is not in
      while (loop.parent().isPresent() && !loop.parent().get().contains(sb)) loop = loop.parent().get();
      if (loop.contains(sb) || !loop.exitBlocks().equals(java.util.Set.of(sb))) return false;
      Block h = loop.header();
      if (!st.cfg().dom().dominates(h, sb) || !enter.containsKey(h)) return false;
      // sb lies in the stretch the entry test skips
      int[] stretch = dominatedAfterLoop(h);
      int at = st.schedule().position(sb);
      if (at < stretch[0] || at >= stretch[1]) return false;
    }
    return !st.cfg().cfg().predecessors(sb).isEmpty();
  }

  /** The predecessor of {@code sb} emitted last, when its branch reaches sb by one edge only. */
  private Optional<Block> lastPredecessor(Block sb) {
    return lastPredecessor.computeIfAbsent(sb, this::findLastPredecessor);
  }

  private final Map<Block, Optional<Block>> lastPredecessor = new HashMap<>();

  private Optional<Block> findLastPredecessor(Block sb) {
    Block last = null;
    for (Block p : st.cfg().cfg().predecessors(sb)) {
      if (!st.schedule().isScheduled(p)) continue;
      if (last == null || st.schedule().position(p) > st.schedule().position(last)) last = p;
    }
    if (last == null) return Optional.empty();
    int edges = 0;
    for (Block s2 : last.successors()) if (s2.equals(sb)) edges++;
    return edges == 1 ? Optional.of(last) : Optional.empty();
  }

  /**
   * Whether {@code sb} dominates the latch of its innermost loop: every iteration that continues runs
   * it, so it is empty only when the loop is about to end and a skip test would be paid in every
   * iteration for nothing.
   */
  private boolean onEveryIteration(Block sb) {
    return st.cfg().loops().loopOf(sb)
        .map(l -> l.latches().stream().allMatch(latch -> st.cfg().dom().dominates(sb, latch)))
        .orElse(false);
  }

  /** Whether emitting this instruction executes a scalar operation that must not run with no lane. */
  private boolean hasScalarSideEffect(Value inst) {
    Opcode op = st.ssa().opcode(inst);
    return switch (op) {
      case LOAD -> uniform(inst.operand(0));
      case STORE -> uniform(inst.operand(1));
      case CALL -> uniform(inst) && !isPureCall(inst);
      case UDIV, SDIV, UREM, SREM -> uniform(inst) && !(inst.operand(1).isConstantInt() && inst.operand(1).constIntSExt() != 0
          && inst.operand(1).constIntSExt() != -1);
      default -> false;
    };
  }

  // ------------------------------------------------------------------------------------------
  // slots

  private Type slotType(Value v) {
    return uniform(v) ? v.type() : packetType(v, v.type());
  }

  private SlotSsa.Var phiSlot(Value phi) {
    return phiSlot.computeIfAbsent(phi, p -> {
      SlotSsa.Var v = vars.newVar(slotType(p), p.name());
      // (undefined before the first edge blends into it, as at the function's entry)
      st.ssa().blockOf(p).ifPresent(pb -> vars.init(v, head.get(initAnchor(pb)), b.poison(slotType(p))));
      return v;
    });
  }

  private SlotSsa.Var valueSlot(Value v) {
    return valueSlot.computeIfAbsent(v, p -> {
      SlotSsa.Var var = vars.newVar(slotType(p), p.name());
      // the definition's block head: every use is dominated by it (phi uses through their edges)
      st.ssa().blockOf(p).ifPresent(db -> vars.init(var, head.get(db), b.poison(slotType(p))));
      return var;
    });
  }

  private boolean needsValueSlot(Value inst) {
    Block def = current;
    for (Value u : inst.users()) {
      if (!u.isInstruction()) continue;
      if (u.opcode() == Opcode.PHI) return true;
      Optional<Block> ub = st.ssa().blockOf(u);
      if (ub.isEmpty() || !ub.get().equals(def)) return true;
    }
    return false;
  }

  // ------------------------------------------------------------------------------------------
  // values

  private boolean uniform(Value v) {
    if (v.isConstant() || v.isBasicBlockValue() || v.isMetadataAsValue()) return true;
    return st.divergence().isUniform(v);
  }

  private Shape shape(Value v) {
    if (v.isConstant()) return Shape.UNIFORM;
    return st.divergence().shape(v);
  }

  /** The packet type of a varying scalar type: {@code <W x T>}. */
  private Type packetType(Value where, Type t) {
    if (CompositePackets.isComposite(t)) {
      try {
        return CompositePackets.packetType(t, w);
      } catch (IllegalArgumentException e) {
        throw unsupported(where, "a varying value of type " + t + ": " + e.getMessage());
      }
    }
    if (!t.isVectorElement()) {
      throw unsupported(where, "a varying value of type " + t + " (only integers, floating point and pointers can be packetized)");
    }
    if (t.isFloatingPoint() && !t.isPacketFloat()) {
      throw unsupported(where, "floating-point type " + t + " cannot be packetized");
    }
    return t.vectorOf(w);
  }

  /** The packet value of a scalar value: a scalar when uniform, else a vector. */
  private Value get(Value v) {
    if (v.isConstant()) return v;
    Value p = params.get(v);
    if (p != null) return p;
    Value l = local.get(v);
    if (l != null) return l;
    SlotSsa.Var slot = valueSlot.get(v);
    if (slot == null) {
      throw new PacketizationException(PacketizationException.Kind.INTERNAL,
          "internal error: " + v.describe() + " is used in block " + current.name() + " before its definition was emitted",
          st.scalarName(), current.name(), null);
    }
    Value loaded = vars.read(slot, v.name());
    local.put(v, loaded);
    return loaded;
  }

  /** The packet value as a vector (broadcast when uniform). */
  private Value vec(Value v) {
    Value p = get(v);
    if (isPacket(v, p)) return p;
    if (CompositePackets.isComposite(v.type())) {
      Value s = splats.get(p);
      if (s == null) {
        s = comp.broadcast(p, p.isConstant() ? "" : v.name() + ".splat");
        splats.put(p, s);
      }
      return s;
    }
    if (v.isArgument()) {
      // a uniform parameter is broadcast once, in the entry block, not in every block (and loop
      // iteration) that needs it as a vector
      Value s = paramSplats.get(p);
      if (s == null) {
        s = entryB.splat(p, w, v.name() + ".splat");
        paramSplats.put(p, s);
      }
      return s;
    }
    Value s = splats.get(p);
    if (s == null) {
      s = b.splat(p, w, p.isConstant() ? "" : v.name() + ".splat");
      splats.put(p, s);
    }
    return s;
  }

  /** Whether p, the packet value of v, is a packet (varying), not v's uniform scalar value. */
  private static boolean isPacket(Value v, Value p) {
    return CompositePackets.isComposite(v.type()) ? !p.type().equals(v.type()) : p.type().isVector();
  }

  /** The packet value of a uniform scalar value. */
  private Value scal(Value v) {
    Value p = get(v);
    if (isPacket(v, p)) {
      throw new PacketizationException(PacketizationException.Kind.INTERNAL,
          "internal: value " + v.describe() + " used as uniform but it is varying", st.scalarName(),
          current == null ? null : current.name(), null);
    }
    return p;
  }

  // ------------------------------------------------------------------------------------------
  // instructions

  private Value emitInstruction(Value inst) {
    Opcode op = st.ssa().opcode(inst);
    if (op == Opcode.CALL) {
      Optional<Function> callee = inst.calledFunction();
      if (callee.isPresent() && MathMappings.isDroppable(callee.get().name())) return null;
      if (callee.isPresent() && SoaPointers.isMemIntrinsic(callee.get().name())
          && (st.soa().isDerived(inst.operand(0)) || st.soa().isDerived(inst.operand(1)))) {
        emitSoaMemIntrinsic(inst, callee.get());
        return null;
      }
      // SPMD intrinsics act on the whole packet, the uniform ones too: before cloneUniform
      Optional<Value> spmdValue = spmd.emit(b, inst, mask, uniform(inst), this::get);
      if (spmdValue.isPresent()) return spmdValue.get();
    }
    if (op == Opcode.LOAD && shared() != null) {
      Optional<UniformMemory.Location> own = shared().privateLoad(inst);
      if (own.isPresent()) return vars.read(ownCopy(own.get())[0], inst.name());
    }
    if (op == Opcode.STORE && shared() != null) {
      Optional<UniformMemory.Location> own = shared().privateStore(inst);
      if (own.isPresent()) {
        emitOwnCopyStore(inst, own.get());
        return null;
      }
      Optional<UniformMemory.Counter> counter = shared().counterStore(inst);
      if (counter.isPresent()) {
        emitCounterUpdate(inst, counter.get());
        return null;
      }
    }
    Optional<Value> atomic = emitAtomic(inst, op);
    if (atomic != null) return atomic.orElse(null);
    if (op == Opcode.STORE) {
      if (st.soa().isDerived(inst.operand(1))) emitSoaStore(inst);
      else emitStore(inst);
      return null;
    }
    if (op == Opcode.GEP && st.soa().isDerived(inst)) return emitSoaGep(inst);
    // select c, v, v is v: the analysis gives it v's shape even when c is varying, so it must not be
    // cloned as a uniform instruction (that would need c as a scalar)
    if (op == Opcode.SELECT && inst.operand(1).equals(inst.operand(2))) return get(inst.operand(1));
    if (op == Opcode.LOAD && st.soa().isDerived(inst.operand(0))) return emitSoaLoad(inst);
    if (uniform(inst) && op != Opcode.ALLOCA) return cloneUniform(inst);
    return switch (op) {
      case FNEG -> b.fneg(vec(inst.operand(0)), inst.name());
      case ADD, SUB, MUL, FADD, FSUB, FMUL, FDIV, FREM, SHL, LSHR, ASHR, AND, OR, XOR -> copyFlags(inst,
          b.binop(op, vec(inst.operand(0)), vec(inst.operand(1)), inst.name()));
      case UDIV, SDIV, UREM, SREM -> emitIntDiv(inst, op);
      case ICMP -> b.icmp(inst.icmpPredicate(), vec(inst.operand(0)), vec(inst.operand(1)), inst.name());
      case FCMP -> copyFlags(inst, b.fcmp(inst.fcmpPredicate(), vec(inst.operand(0)), vec(inst.operand(1)), inst.name()));
      case BITCAST -> emitBitcast(inst);
      case TRUNC, ZEXT, SEXT, FPTOUI, FPTOSI, UITOFP, SITOFP, FPTRUNC, FPEXT, PTRTOINT, INTTOPTR, ADDRSPACECAST ->
          copyFlags(inst, b.cast(op, vec(inst.operand(0)), packetType(inst, inst.type()), inst.name()));
      case EXTRACTELEMENT -> {
        Value idx = inst.operand(1);
        yield comp.extractElement(vec(inst.operand(0)), inst.operand(0).type().vectorSize(), uniform(idx) ? scal(idx) : vec(idx),
            inst.name());
      }
      case INSERTELEMENT -> {
        Value idx = inst.operand(2);
        packetType(inst, inst.type());
        yield comp.insertElement(vec(inst.operand(0)), inst.type().vectorSize(), vec(inst.operand(1)),
            uniform(idx) ? scal(idx) : vec(idx), inst.name());
      }
      case SHUFFLEVECTOR -> {
        packetType(inst, inst.type());
        yield comp.shuffleVector(inst, vec(inst.operand(0)), vec(inst.operand(1)), inst.name());
      }
      case EXTRACTVALUE -> {
        Value agg = vec(inst.operand(0));
        for (int i : aggregateIndices(inst)) agg = b.extractValue(agg, i, "");
        if (!inst.name().isEmpty() && agg.isInstruction()) agg.setName(inst.name());
        yield agg;
      }
      case INSERTVALUE -> insertValue(vec(inst.operand(0)), vec(inst.operand(1)), aggregateIndices(inst), 0, inst.name());
      case FREEZE -> b.freeze(vec(inst.operand(0)), inst.name());
      case SELECT -> emitSelect(inst);
      case GEP -> emitGep(inst);
      case LOAD -> emitLoad(inst);
      case ALLOCA -> emitAlloca(inst);
      case CALL -> emitCall(inst);
      default -> throw unsupported(inst, "the instruction '" + op.mnemonic() + "' on varying values");
    };
  }

  /** A bit cast; one that changes a vector's element count goes through the lane-major order. */
  private Value emitBitcast(Value inst) {
    Type from = inst.operand(0).type();
    Type to = inst.type();
    Value x = vec(inst.operand(0));
    if (CompositePackets.isComposite(from) || CompositePackets.isComposite(to)) {
      packetType(inst, to);
      packetType(inst, from);
      return comp.bitcast(x, from, to, inst.name());
    }
    return b.cast(Opcode.BITCAST, x, packetType(inst, to), inst.name());
  }

  private static int[] aggregateIndices(Value inst) { return inst.aggregateIndices(); }

  /** {@code insertvalue} along an index path on packets (the packet aggregate mirrors the scalar one). */
  private Value insertValue(Value agg, Value elt, int[] path, int depth, String name) {
    int i = path[depth];
    if (depth == path.length - 1) return b.insertValue(agg, elt, i, name);
    Value inner = insertValue(b.extractValue(agg, i, ""), elt, path, depth + 1, "");
    return b.insertValue(agg, inner, i, name);
  }

  /**
   * Atomics ({@link AtomicEmitter}): the result, {@code Optional.empty()} when the instruction has
   * none, null when {@code inst} is not an atomic operation handled there.
   */
  private Optional<Value> emitAtomic(Value inst, Opcode op) {
    switch (op) {
      case ATOMICRMW -> {
        st.remark(Remark.Kind.MEMORY, current, inst, "atomicrmw: " + (uniform(inst.operand(0)) && AtomicEmitter.combinable(inst)
            ? "one combined atomic for the active lanes, each lane's old value from a prefix in lane order"
            : "one atomic per active lane, in lane order"));
        return Optional.of(atomics.rmw(inst, lanes));
      }
      case ATOMICCMPXCHG -> {
        st.remark(Remark.Kind.MEMORY, current, inst, "cmpxchg: one per active lane, in lane order");
        return Optional.of(atomics.cmpxchg(inst, lanes));
      }
      case FENCE -> {
        atomics.fence(inst, lanes);
        return Optional.empty();
      }
      case CALL -> {
        return emitStackSaveRestore(inst);
      }
      case EXTRACTVALUE -> {
        // a cmpxchg's packet value is { <W x T>, <W x i1> }
        Value agg = inst.operand(0);
        if (agg.isInstruction() && agg.opcode() == Opcode.ATOMICCMPXCHG && !uniform(agg)) {
          return Optional.of(b.extractValue(get(agg), inst.indices()[0], inst.name()));
        }
        return null;
      }
      case LOAD -> {
        if (!inst.isAtomic() || inst.isVolatile() || uniform(inst.operand(0)) || st.soa().isDerived(inst.operand(0))) return null;
        st.remark(Remark.Kind.MEMORY, current, inst, "atomic load through varying addresses: one per active lane, in lane order");
        return Optional.of(atomics.load(inst, lanes));
      }
      case STORE -> {
        if (!inst.isAtomic() || inst.isVolatile() || st.soa().isDerived(inst.operand(1))
            || uniform(inst.operand(0)) && uniform(inst.operand(1)) && !st.divergence().mayBePartial(current)) {
          return null;
        }
        st.remark(Remark.Kind.MEMORY, current, inst, "atomic store: one per active lane, in lane order");
        atomics.store(inst, lanes);
        return Optional.empty();
      }
      default -> {
        return null;
      }
    }
  }

  private Value copyFlags(Value scalar, Value packetInst) {
    if (!packetInst.isInstruction()) return packetInst;
    Opcode op = scalar.opcode();
    if (scalar.canUseFastMathFlags() && packetInst.canUseFastMathFlags()) {
      packetInst.setFastMathFlags(scalar.fastMathFlags());
    }
    if (op == Opcode.ADD || op == Opcode.SUB || op == Opcode.MUL || op == Opcode.SHL) {
      if (scalar.nsw()) packetInst.setNsw(true);
      if (scalar.nuw()) packetInst.setNuw(true);
    }
    if ((op == Opcode.LSHR || op == Opcode.ASHR) && scalar.isExact()) packetInst.setExact(true);
    if (op == Opcode.OR && scalar.isDisjoint()) packetInst.setDisjoint(true);
    if ((op == Opcode.ZEXT || op == Opcode.UITOFP) && scalar.nneg()) packetInst.setNneg(true);
    return packetInst;
  }

  /** A uniform instruction: a copy of the scalar one on the scalar operands. */
  private Value cloneUniform(Value inst) {
    // materialize the operands first: loading them emits instructions that must precede the copy
    int n = inst.numOperands();
    Value[] mapped = new Value[n];
    for (int i = 0; i < n; i++) {
      Value o = inst.operand(i);
      if (o == null || o.isConstant() || o.isBasicBlockValue() || o.isMetadataAsValue() || o.isInlineAsm()) continue;
      mapped[i] = scal(o);
    }
    Value copy = b.insertClone(inst, inst.name());
    for (int i = 0; i < n; i++) if (mapped[i] != null) copy.setOperand(i, mapped[i]);
    return copy;
  }

  /**
   * Integer division by a varying divisor: inactive lanes divide by 1 so they cannot trap (DESIGN §4).
   */
  private Value emitIntDiv(Value inst, Opcode op) {
    Value divisor = vec(inst.operand(1));
    if (!MaskOps.isAllTrue(mask) || !inst.operand(1).isConstant()) {
      Value one = b.splat(b.constInt(divisor.type().elementType(), 1), divisor.type().vectorSize(), "");
      divisor = comp.select(mask, divisor, one, inst.name() + ".safediv");
    }
    return copyFlags(inst, b.binop(op, vec(inst.operand(0)), divisor, inst.name()));
  }

  private Value emitSelect(Value inst) {
    Value c = inst.operand(0);
    if (st.soa().lanePointerFieldSize(inst).isPresent()) {
      Value t = lanePointers(inst, inst.operand(1)), f = lanePointers(inst, inst.operand(2));
      return uniform(c) ? b.select(scal(c), t, f, inst.name()) : b.select(vec(c), t, f, inst.name());
    }
    if (uniform(c) && !c.type().isVector()) return b.select(scal(c), vec(inst.operand(1)), vec(inst.operand(2)), inst.name());
    // (a uniform vector condition is broadcast like any operand; a varying i1 selecting between vectors or aggregates applies to each element and field)
    return copyFlags(inst, comp.select(vec(c), vec(inst.operand(1)), vec(inst.operand(2)), inst.name()));
  }

  private Value emitGep(Value inst) {
    if (inst.type().isVector()) throw unsupported(inst, "a vector of pointers computed by a GEP with vector operands");
    List<Value> idx = new ArrayList<>();
    Type t = inst.gepSourceElementType();
    int n = inst.numOperands();
    for (int i = 1; i < n; i++) {
      Value o = inst.operand(i);
      // struct field indices must stay scalar constants
      idx.add(uniform(o) ? scal(o) : vec(o));
    }
    Value base = inst.operand(0);
    Value pb = uniform(base) ? scal(base) : vec(base);
    boolean anyVector = pb.type().isVector();
    for (Value v : idx) anyVector |= v.type().isVector();
    if (!anyVector) pb = vec(base);
    return b.gep(t, pb, idx, inst.isInBounds(), inst.name());
  }

  // ------------------------------------------------------------------------------------------
  // memory (thesis 4.5.3, 4.5.4)

  private Value emitAlloca(Value inst) {
    Type t = inst.allocatedType();
    Value count = inst.operand(0);
    if (!count.isConstantInt()) return emitDynamicAlloca(inst);
    long n = count.constIntZExt();
    Type one = n == 1 ? t : t.arrayOf(n);
    // one private slot per lane: lane k's object at base + k * size(one)
    Value base = entryB.alloca(one.arrayOf(w), inst.name() + ".lanes");
    int align = Math.max(inst.alignment(), 16);
    base.setAlignment(align);
    Value iota = linearOffsets(b, st.context().i64(), 1);
    return b.gep(one.arrayOf(w), base, List.of(b.i64(0), iota), true, inst.name());
  }

  /**
   * A dynamic allocation (C99 variable-length array, {@code alloca T, %n}): one allocation per lane,
   * in lane order, of that lane's own size (0 for inactive lanes: they allocate nothing); the packet
   * value is the vector of the lanes' addresses. Each sits on the packet function's stack until the
   * function returns or a {@code llvm.stackrestore} frees it, as in the scalar function.
   */
  private Value emitDynamicAlloca(Value inst) {
    Value count = inst.operand(0);
    Value counts = vec(count);
    Value zero = b.constNull(count.type());
    Value addrs = b.poison(st.context().ptrType().vectorOf(w));
    for (int k = 0; k < w; k++) {
      Value n = b.extractElement(counts, k, "");
      if (!MaskOps.isAllTrue(mask)) n = b.select(b.extractElement(mask, k, ""), n, zero, inst.name() + ".n" + k);
      Value a = b.arrayAlloca(inst.allocatedType(), n, inst.name() + "." + k);
      a.setAlignment(Math.max(1, inst.alignment()));
      addrs = b.insertElement(addrs, a, k, "");
    }
    st.remark(Remark.Kind.MEMORY, current, inst, "dynamic allocation: one per lane, each of its own size");
    return addrs;
  }

  /**
   * {@code llvm.stacksave}/{@code llvm.stackrestore} (scopes of variable-length arrays): the stack is
   * saved once (all lanes see the same pointer) and restored once when some lane is active, which
   * frees the allocations every lane made since the save. Null for other calls.
   */
  private Optional<Value> emitStackSaveRestore(Value inst) {
    Optional<Function> callee = inst.calledFunction();
    if (callee.isEmpty()) return null;
    String name = callee.get().name();
    if (name.startsWith("llvm.stacksave")) {
      Value s = b.insertClone(inst, inst.name());
      return Optional.of(uniform(inst) ? s : b.splat(s, w, inst.name() + ".lanes"));
    }
    if (name.startsWith("llvm.stackrestore")) {
      Value p = inst.operand(0);
      if (uniform(p)) {
        Value sp = scal(p);
        b.insertClone(inst, "").setOperand(0, sp);
        return Optional.empty();
      }
      // every active lane holds the pointer of the same save; inactive lanes may hold stale ones
      Value pv = vec(p);
      Value lane = MaskOps.isAllTrue(mask) ? b.i32(0) : firstActiveLane();
      Block from = b.currentBlock();
      Block then = packet.appendBlock(from.name() + ".restore");
      Block next = packet.appendBlock(from.name() + ".restored");
      then.moveAfter(from);
      next.moveAfter(then);
      b.condBr(masks.any(mask, "any.restore"), then, next);
      b.atEnd(then);
      Value sp = b.extractElement(pv, lane, "");
      b.insertClone(inst, "").setOperand(0, sp);
      b.br(next);
      b.atEnd(next);
      return Optional.empty();
    }
    return null;
  }

  /** The index (i32) of the lowest active lane of the current mask (W-1 when none is). */
  private Value firstActiveLane() {
    Type iw = st.context().intType(w);
    Value bits = b.cast(Opcode.BITCAST, mask, iw, "");
    Value f = b.call(st.module().intrinsic("llvm.cttz", iw), List.of(bits, b.i1(false)), "");
    f = b.and(f, b.constInt(iw, w - 1), "first.active");
    return w < 32 ? b.cast(Opcode.ZEXT, f, st.context().i32(), "") : w == 32 ? f : b.cast(Opcode.TRUNC, f, st.context().i32(), "");
  }

  private Value emitLoad(Value inst) {
    if (inst.isVolatile() || inst.isAtomic()) throw unsupported(inst, "a volatile or atomic load through a varying address");
    if (CompositePackets.isComposite(inst.type())) return emitCompositeLoad(inst);
    Type t = inst.type();
    Type vt = packetType(inst, t);
    Value ptr = inst.operand(0);
    int align = Math.max(1, inst.alignment());
    Shape s = shape(ptr);
    if (s.isLinear() && s.stride() == st.module().allocSize(t)) {
      st.stats().vectorLoads++;
      int valign = vectorAlignment(align, s);
      Value p0 = laneZero(ptr, s.stride());
      if (MaskOps.isAllTrue(mask)) return b.load(vt, p0, valign, inst.name());
      // (overloaded on the pointer's own type: it may be in another address space)
      Function f = st.module().intrinsic("llvm.masked.load", vt, p0.type());
      return b.call(f, List.of(p0, b.i32(valign), mask, b.poison(vt)), inst.name());
    }
    if (st.options().memoryStrategy() == MemoryStrategy.CASCADE) {
      st.stats().cascades++;
      st.remark(Remark.Kind.MEMORY, current, inst, "load from varying addresses became a guarded if-cascade of " + w + " scalar loads");
      return cascadeLoad(inst, t, vt, vec(ptr), align);
    }
    st.stats().gathers++;
    st.remark(Remark.Kind.MEMORY, current, inst, "load from " + s + " addresses became a gather");
    Value ptrs = vec(ptr);
    Function f = st.module().intrinsic("llvm.masked.gather", vt, ptrs.type());
    return b.call(f, List.of(ptrs, b.i32(align), mask, b.poison(vt)), inst.name());
  }

  /**
   * Whether every lane of v's packet value follows its shape, inactive lanes included: true unless a
   * varying phi (whose slot keeps old values in the lanes that did not take the edge) is on the way.
   */
  private boolean allLanesComputed(Value v) {
    if (v.isConstant() || v.isArgument() || !v.isInstruction() || uniform(v)) return true;
    Boolean known = lanesComputed.get(v);
    if (known != null) return known;
    Opcode op = st.ssa().opcode(v);
    boolean r;
    if (op == Opcode.PHI) {
      r = false;
    } else if (op == Opcode.CALL) {
      r = SpmdIntrinsics.op(v).filter(o -> o == SpmdIntrinsics.Op.LANE_INDEX).isPresent();
    } else {
      lanesComputed.put(v, false); // no cycles without phis in SSA; this only guards against surprises
      r = true;
      for (Value o : st.ssa().operands(v)) r &= allLanesComputed(o);
    }
    lanesComputed.put(v, r);
    return r;
  }

  /**
   * Lane 0's value {@code v0} of a linear value (lane k's is {@code v0 + k*stride}; bytes for
   * pointers): the base of a consecutive access or of a linear argument. Only the active lanes' values
   * are computed — a lane that left a loop keeps an old value, one that never entered has none — so
   * under a partial mask v0 is derived from the first active lane f: {@code v[f] - f*stride} (with no
   * lane active the value is not used and anything will do).
   */
  private Value laneZero(Value v, long stride) {
    Value pv = vec(v);
    if (MaskOps.isAllTrue(mask) || allLanesComputed(v)) return b.extractElement(pv, 0, v.name() + ".lane0");
    Type iw = st.context().intType(w);
    Value bits = b.cast(Opcode.BITCAST, mask, iw, "");
    Value f = b.call(st.module().intrinsic("llvm.cttz", iw), List.of(bits, b.i1(false)), "");
    f = b.and(f, b.constInt(iw, w - 1), "first.active");
    Value f64 = w < 64 ? b.cast(Opcode.ZEXT, f, st.context().i64(), "") : w == 64 ? f : b.cast(Opcode.TRUNC, f, st.context().i64(), "");
    Value vf = b.extractElement(pv, f64, v.name() + ".first");
    Type t = v.type();
    if (t.isPointer()) return b.gep(st.context().i8(), vf, List.of(b.mul(f64, b.i64(-stride), "")), false, v.name() + ".lane0");
    Value fk = t.intWidth() == 64 ? f64 : b.cast(Opcode.TRUNC, f64, t, "");
    return b.sub(vf, b.mul(fk, b.constInt(t, stride), ""), v.name() + ".lane0");
  }

  /**
   * The alignment of a vector access at lane 0's address: the scalar access's, or the larger one the
   * shape analysis proved for that address (from aligned parameters, OpenMP's {@code aligned}).
   */
  private static int vectorAlignment(int scalarAlign, Shape address) {
    return (int) Math.max(scalarAlign, Math.min(address.alignment(), 1L << 12));
  }

  /** The thesis' guarded if-cascade for a load: lane k loads only when its mask bit is set. */
  private Value cascadeLoad(Value inst, Type t, Type vt, Value ptrs, int align) {
    return perLaneGuarded((k, unused) -> b.load(t, b.extractElement(ptrs, k, ""), align, ""), vt);
  }

  /**
   * A load of a vector or aggregate through varying addresses. A vector whose lanes lie back to back
   * (consecutive address, no padding) is one wide (masked) load, transposed to element-major; else
   * every scalar element is loaded by its own gather (or if-cascade) at its offset.
   */
  private Value emitCompositeLoad(Value inst) {
    Type t = inst.type();
    Type pt = packetType(inst, t);
    Value ptr = inst.operand(0);
    int align = Math.max(1, inst.alignment());
    Shape s = shape(ptr);
    if (t.isVector() && s.isLinear() && s.stride() == st.module().allocSize(t) && denselyPacked(t)) {
      int n = t.vectorSize();
      Type flat = t.elementType().vectorOf(n * w);
      int valign = vectorAlignment(align, s);
      Value p0 = laneZero(ptr, s.stride());
      st.stats().vectorLoads++;
      Value lm = MaskOps.isAllTrue(mask) ? b.load(flat, p0, valign, "")
          : b.call(st.module().intrinsic("llvm.masked.load", flat, st.context().ptrType()),
              List.of(p0, b.i32(valign), comp.repeatLaneMajor(mask, n), b.poison(flat)), "");
      Value r = comp.fromLaneMajor(lm, n);
      if (r.isInstruction()) r.setName(inst.name());
      return r;
    }
    checkByteSized(inst, t);
    st.remark(Remark.Kind.MEMORY, current, inst, "load of " + t + " from " + s + " addresses became one gather per element");
    Value r = loadParts(inst, t, vec(ptr), 0, align);
    if (r.isInstruction() && !inst.name().isEmpty()) r.setName(inst.name());
    return r;
  }

  /** One scalar leaf of a composite value at its byte offset: loaded ({@link #loadLeaves}) or stored ({@link #storeLeaves}). */
  private interface LeafLoad {
    Value load(Type leaf, long offset);
  }

  private interface LeafStore {
    void store(Type leaf, Value packet, long offset);
  }

  /**
   * The packet of a value of type {@code t} at byte {@code offset}, built from one {@code leaf} access
   * per scalar leaf (struct fields and array elements at their layout offsets, vector elements back to
   * back), assembled into the packet type (aggregates of packets, element-major vectors).
   */
  private Value loadLeaves(Value inst, Type t, long offset, LeafLoad leaf) {
    if (t.isStruct() || t.isArray()) {
      Value acc = b.poison(packetType(inst, t));
      int n = t.isStruct() ? t.structElements().size() : Math.toIntExact(t.arrayLength());
      for (int i = 0; i < n; i++) {
        Type et = t.isStruct() ? t.structElements().get(i) : t.elementType();
        long off = offset + (t.isStruct() ? st.module().offsetOfElement(t, i) : i * st.module().allocSize(et));
        acc = b.insertValue(acc, loadLeaves(inst, et, off, leaf), i, "");
      }
      return acc;
    }
    if (t.isVector()) {
      Type et = t.elementType();
      List<Value> es = new ArrayList<>();
      for (int i = 0; i < t.vectorSize(); i++) es.add(loadLeaves(inst, et, offset + i * st.module().storeSize(et), leaf));
      return comp.concat(es);
    }
    return leaf.load(t, offset);
  }

  /** The inverse of {@link #loadLeaves}: the packet {@code pv} taken apart, one {@code leaf} access per scalar leaf. */
  private void storeLeaves(Type t, Value pv, long offset, LeafStore leaf) {
    if (t.isStruct() || t.isArray()) {
      int n = t.isStruct() ? t.structElements().size() : Math.toIntExact(t.arrayLength());
      for (int i = 0; i < n; i++) {
        Type et = t.isStruct() ? t.structElements().get(i) : t.elementType();
        long off = offset + (t.isStruct() ? st.module().offsetOfElement(t, i) : i * st.module().allocSize(et));
        storeLeaves(et, b.extractValue(pv, i, ""), off, leaf);
      }
      return;
    }
    if (t.isVector()) {
      Type et = t.elementType();
      for (int i = 0; i < t.vectorSize(); i++) storeLeaves(et, comp.element(pv, i), offset + i * st.module().storeSize(et), leaf);
      return;
    }
    leaf.store(t, pv, offset);
  }

  private Value loadParts(Value inst, Type t, Value ptrs, long offset, int align) {
    return loadLeaves(inst, t, offset, (lt, off) -> gatherLeaf(inst, lt, ptrs, off, align));
  }

  private Value gatherLeaf(Value inst, Type t, Value ptrs, long offset, int align) {
    Value at = offset == 0 ? ptrs : b.gep(st.context().i8(), ptrs, List.of(b.i64(offset)), false, "");
    int a = partAlignment(align, offset);
    Type vt = t.vectorOf(w);
    if (st.options().memoryStrategy() == MemoryStrategy.CASCADE) {
      st.stats().cascades++;
      return cascadeLoad(inst, t, vt, at, a);
    }
    st.stats().gathers++;
    Function f = st.module().intrinsic("llvm.masked.gather", vt, st.context().ptrType().vectorOf(w));
    return b.call(f, List.of(at, b.i32(a), mask, b.poison(vt)), "");
  }

  /** A store of a vector or aggregate value (the counterpart of {@link #emitCompositeLoad}). */
  private void emitCompositeStore(Value inst) {
    Value val = inst.operand(0);
    Value ptr = inst.operand(1);
    Type t = val.type();
    packetType(inst, t);
    int align = Math.max(1, inst.alignment());
    Shape s = shape(ptr);
    if (s.isUniform()) {
      if (uniform(val)) {
        cloneUniform(inst);
      } else {
        // sequential lane order: the last active lane's value stays in memory
        b.store(comp.extractLane(vec(val), t, lastActiveLane()), scal(ptr), align);
      }
      st.stats().scalarStores++;
      return;
    }
    Value pv = vec(val);
    if (t.isVector() && s.isLinear() && s.stride() == st.module().allocSize(t) && denselyPacked(t)) {
      int n = t.vectorSize();
      Type flat = t.elementType().vectorOf(n * w);
      int valign = vectorAlignment(align, s);
      Value p0 = laneZero(ptr, s.stride());
      Value lm = comp.toLaneMajor(pv, n);
      st.stats().vectorStores++;
      if (MaskOps.isAllTrue(mask)) b.store(lm, p0, valign);
      else b.call(st.module().intrinsic("llvm.masked.store", flat, st.context().ptrType()),
          List.of(lm, p0, b.i32(valign), comp.repeatLaneMajor(mask, n)), "");
      return;
    }
    checkByteSized(inst, t);
    st.remark(Remark.Kind.MEMORY, current, inst, "store of " + t + " to " + s + " addresses became one scatter per element");
    storeParts(inst, t, pv, vec(ptr), 0, align);
  }

  private void storeParts(Value inst, Type t, Value pv, Value ptrs, long offset, int align) {
    storeLeaves(t, pv, offset, (lt, lv, off) -> scatterLeaf(lt, lv, ptrs, off, align));
  }

  private void scatterLeaf(Type t, Value pv, Value ptrs, long offset, int align) {
    Value at = offset == 0 ? ptrs : b.gep(st.context().i8(), ptrs, List.of(b.i64(offset)), false, "");
    int a = partAlignment(align, offset);
    if (st.options().memoryStrategy() == MemoryStrategy.CASCADE) {
      st.stats().cascades++;
      perLaneGuarded((k, unused) -> {
        b.store(b.extractElement(pv, k, ""), b.extractElement(at, k, ""), a);
        return null;
      }, null);
      return;
    }
    st.stats().scatters++;
    Function f = st.module().intrinsic("llvm.masked.scatter", t.vectorOf(w), st.context().ptrType().vectorOf(w));
    b.call(f, List.of(pv, at, b.i32(a), mask), "");
  }

  /** Whether a vector's elements lie back to back in memory and fill its allocation (no padding). */
  private boolean denselyPacked(Type vector) {
    Type e = vector.elementType();
    return (!e.isInteger() || e.intWidth() % 8 == 0)
        && st.module().allocSize(vector) == vector.vectorSize() * st.module().allocSize(e);
  }

  /** Vectors of elements smaller than a byte are bit-packed in memory: no per-element addresses. */
  private void checkByteSized(Value inst, Type t) {
    if (t.isVector() && t.elementType().isInteger() && t.elementType().intWidth() % 8 != 0) {
      throw unsupported(inst, "a load or store of the bit-packed vector type " + t + " through varying addresses");
    }
    if (t.isStruct()) for (Type e : t.structElements()) checkByteSized(inst, e);
    if (t.isArray()) checkByteSized(inst, t.elementType());
  }

  /** The alignment known at {@code offset} bytes past an address aligned to {@code align}. */
  private static int partAlignment(int align, long offset) {
    if (offset == 0) return align;
    return (int) Math.min(align, Long.lowestOneBit(offset));
  }

  private void emitStore(Value inst) {
    if (inst.isVolatile() || inst.isAtomic()) {
      if (uniform(inst.operand(0)) && uniform(inst.operand(1)) && !st.divergence().mayBePartial(current)) {
        cloneUniform(inst);
        return;
      }
      throw unsupported(inst, "a volatile or atomic store in packet code");
    }
    Value val = inst.operand(0);
    Value ptr = inst.operand(1);
    Type t = val.type();
    if (CompositePackets.isComposite(t)) {
      emitCompositeStore(inst);
      return;
    }
    int align = Math.max(1, inst.alignment());
    Shape s = shape(ptr);
    if (s.isUniform()) {
      if (uniform(val)) {
        cloneUniform(inst);
      } else {
        // sequential lane order: the last active lane's value stays in memory
        Value lane = lastActiveLane();
        Value v = b.extractElement(vec(val), lane, val.name() + ".last");
        b.store(v, scal(ptr), align);
      }
      st.stats().scalarStores++;
      return;
    }
    Type vt = packetType(inst, t);
    if (s.isLinear() && s.stride() == st.module().allocSize(t)) {
      st.stats().vectorStores++;
      int valign = vectorAlignment(align, s);
      Value p0 = laneZero(ptr, s.stride());
      if (MaskOps.isAllTrue(mask)) {
        b.store(vec(val), p0, valign);
      } else {
        Function f = st.module().intrinsic("llvm.masked.store", vt, p0.type());
        b.call(f, List.of(vec(val), p0, b.i32(valign), mask), "");
      }
      return;
    }
    if (st.options().memoryStrategy() == MemoryStrategy.CASCADE) {
      st.stats().cascades++;
      st.remark(Remark.Kind.MEMORY, current, inst, "store to varying addresses became a guarded if-cascade of " + w + " scalar stores");
      Value vv = vec(val);
      Value pv = vec(ptr);
      perLaneGuarded((k, unused) -> {
        b.store(b.extractElement(vv, k, ""), b.extractElement(pv, k, ""), align);
        return null;
      }, null);
      return;
    }
    st.stats().scatters++;
    st.remark(Remark.Kind.MEMORY, current, inst, "store to " + s + " addresses became a scatter");
    Value ptrs = vec(ptr);
    Function f = st.module().intrinsic("llvm.masked.scatter", vt, ptrs.type());
    b.call(f, List.of(vec(val), ptrs, b.i32(align), mask), "");
  }

  // ------------------------------------------------------------------------------------------
  // struct-of-arrays memory (thesis Fig 4.4, 4.17): lane k's leaf at scalar offset o, size s, lies
  // at W*o + k*s from the packetized base

  /** A GEP from a struct-of-arrays pointer: the scalar byte offset, scaled by W. */
  private Value emitSoaGep(Value inst) {
    Type i64 = st.context().i64();
    Value offset = b.i64(0);
    Type t = inst.gepSourceElementType();
    int n = inst.numOperands();
    long constant = 0;
    for (int i = 1; i < n; i++) {
      Value idx = inst.operand(i);
      long scale;
      if (i == 1) {
        scale = st.module().allocSize(t);
      } else if (t.isStruct()) {
        int field = (int) idx.constIntSExt();
        constant += st.module().offsetOfElement(t, field);
        t = t.structElements().get(field);
        continue;
      } else if (t.isArray() || t.isVector()) {
        t = t.elementType();
        scale = st.module().allocSize(t);
      } else {
        throw unsupported(inst, "a GEP through a non-aggregate type on a struct-of-arrays pointer");
      }
      if (idx.isConstantInt()) {
        constant += idx.constIntSExt() * scale;
        continue;
      }
      Value iv = uniform(idx) ? scal(idx) : vec(idx);
      Type it = iv.type().isVector() ? i64.vectorOf(w) : i64;
      if (!iv.type().scalarType().isInteger(64)) iv = b.cast(Opcode.SEXT, iv, it, "");
      Value term = b.mul(iv, iv.type().isVector() ? b.splat(b.i64(scale * w), w, "") : b.i64(scale * w), "");
      offset = offset.type().isVector() || term.type().isVector()
          ? b.add(offset.type().isVector() ? offset : b.splat(offset, w, ""), term.type().isVector() ? term : b.splat(term, w, ""), "")
          : b.add(offset, term, "");
    }
    if (constant != 0) {
      Value c = b.i64(constant * w);
      offset = offset.type().isVector() ? b.add(offset, b.splat(c, w, ""), "") : b.add(offset, c, "");
    }
    Value base = get(inst.operand(0));
    if (offset.type().isVector() && !base.type().isVector()) base = b.splat(base, w, "");
    return b.gep(st.context().i8(), base, List.of(offset), false, inst.name());
  }

  /**
   * An operand of a phi/select that merges struct-of-arrays pointers with others, as per-lane
   * pointers: a struct-of-arrays pointer's lane k points at its field at packet address + k*size.
   */
  private Value lanePointers(Value merge, Value operand) {
    if (!st.soa().isDerived(operand)) return vec(operand);
    long size = st.soa().lanePointerFieldSize(merge).getAsLong();
    Value q = get(operand);
    if (!q.type().isVector()) q = b.splat(q, w, "");
    return soaLaneAddresses(q, size);
  }

  /** Lane addresses {@code p_k + k*size} for a varying struct-of-arrays pointer. */
  private Value soaLaneAddresses(Value scaled, long size) {
    return b.gep(st.context().i8(), scaled, List.of(linearOffsets(b, st.context().i64(), size)), false, "soa.lanes");
  }

  private Value emitSoaLoad(Value inst) {
    Type t = inst.type();
    if (CompositePackets.isComposite(t)) {
      packetType(inst, t);
      return soaLoadParts(inst, t, get(inst.operand(0)), 0, Math.max(1, inst.alignment()));
    }
    Type vt = packetType(inst, t);
    Value q = get(inst.operand(0));
    int align = Math.max(1, inst.alignment());
    if (!q.type().isVector()) {
      st.stats().vectorLoads++;
      int valign = vectorAlignment(align, shape(inst.operand(0)));
      if (MaskOps.isAllTrue(mask)) return b.load(vt, q, valign, inst.name());
      Function f = st.module().intrinsic("llvm.masked.load", vt, q.type());
      return b.call(f, List.of(q, b.i32(valign), mask, b.poison(vt)), inst.name());
    }
    Value lanes = soaLaneAddresses(q, st.module().allocSize(t));
    if (st.options().memoryStrategy() == MemoryStrategy.CASCADE) {
      st.stats().cascades++;
      st.remark(Remark.Kind.MEMORY, current, inst, "load through a struct-of-arrays pointer with a varying index became an if-cascade");
      return cascadeLoad(inst, t, vt, lanes, align);
    }
    st.stats().gathers++;
    st.remark(Remark.Kind.MEMORY, current, inst, "load through a struct-of-arrays pointer with a varying index became a gather");
    Function f = st.module().intrinsic("llvm.masked.gather", vt, lanes.type());
    return b.call(f, List.of(lanes, b.i32(align), mask, b.poison(vt)), inst.name());
  }

  /**
   * A vector or aggregate through a struct-of-arrays pointer q: each scalar leaf at scalar offset r
   * lies at {@code q + W*r} (lane k's copy k elements further), so it is one vector access (q
   * uniform) or one gather (q varying) per leaf.
   */
  private Value soaLoadParts(Value inst, Type t, Value q, long r, int align) {
    return loadLeaves(inst, t, r, (lt, off) -> soaLoadLeaf(inst, lt, q, off, align));
  }

  private Value soaLoadLeaf(Value inst, Type t, Value q, long r, int align) {
    Type vt = t.vectorOf(w);
    Value at = r == 0 ? q : b.gep(st.context().i8(), q, List.of(b.i64(r * w)), false, "");
    int a = partAlignment(align, r);
    if (!at.type().isVector()) {
      st.stats().vectorLoads++;
      if (MaskOps.isAllTrue(mask)) return b.load(vt, at, a, "");
      Function f = st.module().intrinsic("llvm.masked.load", vt, st.context().ptrType());
      return b.call(f, List.of(at, b.i32(a), mask, b.poison(vt)), "");
    }
    Value lanes = soaLaneAddresses(at, st.module().allocSize(t));
    if (st.options().memoryStrategy() == MemoryStrategy.CASCADE) {
      st.stats().cascades++;
      return cascadeLoad(inst, t, vt, lanes, a);
    }
    st.stats().gathers++;
    Function f = st.module().intrinsic("llvm.masked.gather", vt, st.context().ptrType().vectorOf(w));
    return b.call(f, List.of(lanes, b.i32(a), mask, b.poison(vt)), "");
  }

  private void soaStoreParts(Value inst, Type t, Value pv, Value q, long r, int align) {
    storeLeaves(t, pv, r, (lt, lv, off) -> soaStoreLeaf(lt, lv, q, off, align));
  }

  private void soaStoreLeaf(Type t, Value pv, Value q, long r, int align) {
    Type vt = t.vectorOf(w);
    Value at = r == 0 ? q : b.gep(st.context().i8(), q, List.of(b.i64(r * w)), false, "");
    int a = partAlignment(align, r);
    if (!at.type().isVector()) {
      st.stats().vectorStores++;
      if (MaskOps.isAllTrue(mask)) b.store(pv, at, a);
      else b.call(st.module().intrinsic("llvm.masked.store", vt, st.context().ptrType()), List.of(pv, at, b.i32(a), mask), "");
      return;
    }
    Value lanes = soaLaneAddresses(at, st.module().allocSize(t));
    if (st.options().memoryStrategy() == MemoryStrategy.CASCADE) {
      st.stats().cascades++;
      perLaneGuarded((k, unused) -> {
        b.store(b.extractElement(pv, k, ""), b.extractElement(lanes, k, ""), a);
        return null;
      }, null);
      return;
    }
    st.stats().scatters++;
    Function f = st.module().intrinsic("llvm.masked.scatter", vt, st.context().ptrType().vectorOf(w));
    b.call(f, List.of(pv, lanes, b.i32(a), mask), "");
  }

  private void emitSoaStore(Value inst) {
    Value val = inst.operand(0);
    Type t = val.type();
    if (CompositePackets.isComposite(t)) {
      packetType(inst, t);
      soaStoreParts(inst, t, vec(val), get(inst.operand(1)), 0, Math.max(1, inst.alignment()));
      return;
    }
    Type vt = packetType(inst, t);
    Value q = get(inst.operand(1));
    int align = Math.max(1, inst.alignment());
    Value vv = vec(val);
    if (!q.type().isVector()) {
      st.stats().vectorStores++;
      int valign = vectorAlignment(align, shape(inst.operand(1)));
      if (MaskOps.isAllTrue(mask)) {
        b.store(vv, q, valign);
      } else {
        Function f = st.module().intrinsic("llvm.masked.store", vt, q.type());
        b.call(f, List.of(vv, q, b.i32(valign), mask), "");
      }
      return;
    }
    Value lanes = soaLaneAddresses(q, st.module().allocSize(t));
    if (st.options().memoryStrategy() == MemoryStrategy.CASCADE) {
      st.stats().cascades++;
      st.remark(Remark.Kind.MEMORY, current, inst, "store through a struct-of-arrays pointer with a varying index became an if-cascade");
      perLaneGuarded((k, unused) -> {
        b.store(b.extractElement(vv, k, ""), b.extractElement(lanes, k, ""), align);
        return null;
      }, null);
      return;
    }
    st.stats().scatters++;
    st.remark(Remark.Kind.MEMORY, current, inst, "store through a struct-of-arrays pointer with a varying index became a scatter");
    Function f = st.module().intrinsic("llvm.masked.scatter", vt, lanes.type());
    b.call(f, List.of(vv, lanes, b.i32(align), mask), "");
  }

  /**
   * {@code llvm.memcpy/memmove/memset} on struct-of-arrays objects. Every lane's scalar byte range
   * [o, o+n) of whole leaves is the packet range [W*o, W*(o+n)): with all lanes active and
   * struct-of-arrays memory on both sides (or a memset) one call on W*n bytes does it. Otherwise the
   * range is copied leaf by leaf, each leaf a masked vector load/store or gather/scatter, which needs
   * the object's field layout: clang's {@code !tbaa.struct} on the call (struct assignments carry it).
   */
  private void emitSoaMemIntrinsic(Value inst, Function callee) {
    String name = callee.name();
    boolean set = name.startsWith("llvm.memset.");
    String what = "'" + name.replaceAll("^llvm\\.(mem[a-z]+).*", "$1") + "'";
    Value len = inst.operand(2);
    if (!len.isConstantInt()) throw unsupported(inst, what + " of struct-of-arrays memory with a length that is not a constant");
    long n = len.constIntZExt();
    Value dst = inst.operand(0), src = inst.operand(1);
    boolean dSoa = st.soa().isDerived(dst);
    boolean sSoa = !set && st.soa().isDerived(src);
    Value dq = dSoa ? get(dst) : null;
    Value sq = sSoa ? get(src) : null;
    boolean blocks = dSoa && !dq.type().isVector() && (set ? uniform(src) : sSoa && !sq.type().isVector());
    if (blocks && MaskOps.isAllTrue(mask)) {
      Value isVolatile = inst.operand(3);
      b.call(callee, List.of(dq, set ? scal(src) : sq, b.constInt(len.type(), n * w), isVolatile), "");
      st.stats().vectorStores++;
      st.remark(Remark.Kind.MEMORY, current, inst, what + " of struct-of-arrays memory became one " + what + " of " + (n * w) + " bytes");
      return;
    }
    List<long[]> leaves = tbaaStructLeaves(inst);
    if (leaves.isEmpty()) {
      throw unsupported(inst, what + " of struct-of-arrays memory " + (dSoa && (set || sSoa) ? "under a partial mask" : "to or from memory that is not struct-of-arrays")
          + " without the object's field layout (clang's !tbaa.struct metadata, which struct assignments carry)");
    }
    Type i64 = st.context().i64();
    for (long[] leaf : leaves) {
      long o = leaf[0], size = leaf[1];
      if (o + size > n) continue;
      if (size > 16 || Long.bitCount(size) != 1 || set && size > 8) {
        throw unsupported(inst, what + " of struct-of-arrays memory with a " + size + "-byte field");
      }
      Type t = st.context().intType((int) (size * 8));
      Type vt = t.vectorOf(w);
      int align = (int) Math.min(size, 16);
      Value values;
      if (set) {
        Value byteV = vec(src);
        Value wide = b.cast(Opcode.ZEXT, byteV, vt, "");
        long ones = 0;
        for (int i = 0; i < size; i++) ones = (ones << 8) | 1;
        values = size == 1 ? byteV : b.mul(wide, b.splat(b.constInt(t, ones), w, ""), "");
      } else if (sSoa) {
        values = soaLeafLoad(sq, o, size, vt, align);
      } else {
        Value p = uniform(src) ? b.splat(scal(src), w, "") : vec(src);
        Value lanes = b.gep(st.context().i8(), p, List.of(b.splat(b.constInt(i64, o), w, "")), false, "");
        Function g = st.module().intrinsic("llvm.masked.gather", vt, st.context().ptrType().vectorOf(w));
        values = b.call(g, List.of(lanes, b.i32(1), mask, b.poison(vt)), "");
      }
      if (dSoa) {
        soaLeafStore(dq, o, size, values, vt, align);
      } else {
        // a uniform destination gets every active lane's copy in lane order (the scatter writes
        // the lanes in order: the highest active lane's bytes stay)
        Value p = uniform(dst) ? b.splat(scal(dst), w, "") : vec(dst);
        Value lanes = b.gep(st.context().i8(), p, List.of(b.splat(b.constInt(i64, o), w, "")), false, "");
        Function sc = st.module().intrinsic("llvm.masked.scatter", vt, st.context().ptrType().vectorOf(w));
        b.call(sc, List.of(values, lanes, b.i32(1), mask), "");
      }
    }
    st.remark(Remark.Kind.MEMORY, current, inst, what + " of struct-of-arrays memory became " + leaves.size()
        + " per-field masked copies (layout from !tbaa.struct)");
  }

  /**
   * The (offset, size) of each field clang's {@code !tbaa.struct} lists on a memory intrinsic. Each
   * entry must be one scalar whose TBAA type has that size: clang lists an array field as one entry of
   * type {@code char}, which does not tell its elements' size (their struct-of-arrays layout).
   */
  private List<long[]> tbaaStructLeaves(Value inst) {
    List<long[]> out = new ArrayList<>();
    for (Value.TbaaField f : inst.tbaaStruct()) {
      String type = f.typeName();
      long expected = switch (type) {
        case "omnipotent char", "char", "signed char", "unsigned char", "_Bool", "bool" -> 1;
        case "short", "unsigned short" -> 2;
        case "int", "unsigned int", "float" -> 4;
        case "long", "unsigned long", "long long", "unsigned long long", "double", "any pointer" -> 8;
        default -> type.startsWith("p1 ") || type.startsWith("p2 ") || type.startsWith("p3 ") ? 8 : -1;
      };
      if (expected != f.size()) {
        throw unsupported(inst, "a copy of struct-of-arrays memory whose field at byte " + f.offset() + " (" + f.size()
            + " bytes, TBAA type '" + type + "') is not one scalar: an array or union field has no known struct-of-arrays layout");
      }
      out.add(new long[] {f.offset(), f.size()});
    }
    return out;
  }

  /** Lane k's leaf at scalar offset o (size s) of struct-of-arrays pointer q: consecutive when q is uniform. */
  private Value soaLeafLoad(Value q, long o, long size, Type vt, int align) {
    if (!q.type().isVector()) {
      Value base = b.gep(st.context().i8(), q, List.of(b.i64(o * w)), false, "");
      Function f = st.module().intrinsic("llvm.masked.load", vt, st.context().ptrType());
      return b.call(f, List.of(base, b.i32(align), mask, b.poison(vt)), "");
    }
    Value at = b.gep(st.context().i8(), q, List.of(b.splat(b.i64(o * w), w, "")), false, "");
    Function g = st.module().intrinsic("llvm.masked.gather", vt, st.context().ptrType().vectorOf(w));
    return b.call(g, List.of(soaLaneAddresses(at, size), b.i32(align), mask, b.poison(vt)), "");
  }

  private void soaLeafStore(Value q, long o, long size, Value values, Type vt, int align) {
    if (!q.type().isVector()) {
      Value base = b.gep(st.context().i8(), q, List.of(b.i64(o * w)), false, "");
      Function f = st.module().intrinsic("llvm.masked.store", vt, st.context().ptrType());
      b.call(f, List.of(values, base, b.i32(align), mask), "");
      return;
    }
    Value at = b.gep(st.context().i8(), q, List.of(b.splat(b.i64(o * w), w, "")), false, "");
    Function sc = st.module().intrinsic("llvm.masked.scatter", vt, st.context().ptrType().vectorOf(w));
    b.call(sc, List.of(values, soaLaneAddresses(at, size), b.i32(align), mask), "");
  }

  /** The index (i32) of the highest active lane of the current mask. */
  private Value lastActiveLane() { return lastActiveLane(mask); }

  /** The index (i32) of the highest set lane of {@code mask}. */
  private Value lastActiveLane(Value mask) {
    if (MaskOps.isAllTrue(mask)) return b.i32(w - 1);
    Type iw = st.context().intType(w);
    Value bits = b.cast(Opcode.BITCAST, mask, iw, "mask.bits");
    Function ctlz = st.module().intrinsic("llvm.ctlz", iw);
    Value lz = b.call(ctlz, List.of(bits, b.i1(false)), "lz");
    Value idx = b.sub(b.constInt(iw, w - 1), lz, "last.lane");
    return w <= 32 ? (w == 32 ? idx : b.cast(Opcode.ZEXT, idx, st.context().i32(), "")) : b.cast(Opcode.TRUNC, idx, st.context().i32(), "");
  }

  /** Something emitted for lane k (may return a scalar result). */
  @FunctionalInterface
  private interface LaneBody {
    Value emit(int lane, Void unused);
  }

  /**
   * The thesis' if-cascade: for each lane, run {@code body} only when the lane's mask bit is set.
   * Returns the lane results assembled into a vector of type {@code resultVec} (or null).
   */
  private Value perLaneGuarded(LaneBody body, Type resultVec) {
    Value acc = resultVec == null ? null : b.poison(resultVec);
    for (int k = 0; k < w; k++) {
      Block from = b.currentBlock();
      Block lane = packet.appendBlock(from.name() + ".l" + k);
      Block next = packet.appendBlock(from.name() + ".n" + k);
      lane.moveAfter(from);
      next.moveAfter(lane);
      Value bit = MaskOps.isAllTrue(mask) ? b.i1(true) : b.extractElement(mask, k, "");
      b.condBr(bit, lane, next);
      b.atEnd(lane);
      Value r = body.emit(k, null);
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

  // ------------------------------------------------------------------------------------------
  // memory at uniform addresses shared by the lanes (UniformMemory): W calls in lane order

  private UniformMemory shared() { return st.sharedMemory(); }

  /** Each lane's copy of a private location and the lanes that wrote it: {values, written mask}. */
  private final Map<UniformMemory.Location, SlotSsa.Var[]> ownCopies = new java.util.LinkedHashMap<>();

  private SlotSsa.Var[] ownCopy(UniformMemory.Location loc) {
    return ownCopies.computeIfAbsent(loc, l -> {
      Type vt = l.type().vectorOf(w);
      SlotSsa.Var values = vars.newVar(vt, "own." + l.base().name());
      vars.init(values, allocaBlock, b.poison(vt));
      SlotSsa.Var written = vars.newVar(masks.maskType(), "own.written." + l.base().name());
      vars.init(written, allocaBlock, masks.allFalse());
      return new SlotSsa.Var[] {values, written};
    });
  }

  /** A store to a private location: the active lanes' copies take the value. */
  private void emitOwnCopyStore(Value inst, UniformMemory.Location loc) {
    SlotSsa.Var[] own = ownCopy(loc);
    Value v = vec(inst.operand(0));
    if (MaskOps.isAllTrue(mask)) {
      vars.write(own[0], v);
      vars.write(own[1], masks.allTrue());
      return;
    }
    Value old = vars.read(own[0], "");
    vars.write(own[0], b.select(mask, v, old, loc.base().name() + ".own"));
    vars.write(own[1], masks.or(vars.read(own[1], ""), mask, ""));
  }

  /** At the exit: the highest lane that wrote a private location has the last word (lane order). */
  private void writeBackOwnCopies() {
    for (var e : ownCopies.entrySet()) {
      UniformMemory.Location loc = e.getKey();
      Value written = vars.read(e.getValue()[1], "");
      Value values = vars.read(e.getValue()[0], "");
      Block from = b.currentBlock();
      Block wb = packet.appendBlock("writeback." + loc.base().name());
      Block cont = packet.appendBlock("writeback.done." + loc.base().name());
      wb.moveAfter(from);
      cont.moveAfter(wb);
      b.condBr(masks.any(written, ""), wb, cont);
      b.atEnd(wb);
      Value v = b.extractElement(values, lastActiveLane(written), loc.base().name() + ".last");
      b.store(v, sharedAddress(loc), loc.align());
      b.br(cont);
      b.atEnd(cont);
    }
  }

  private Value sharedAddress(UniformMemory.Location loc) {
    Value base = loc.base().isArgument() ? params.get(loc.base()) : loc.base();
    if (loc.offset() == 0) return base;
    return b.gep(st.context().i8(), base, List.of(b.i64(loc.offset())), true, loc.base().name() + ".at");
  }

  /**
   * {@code g = g OP x} by every active lane: one scalar read-modify-write with the reduction of the
   * active lanes' operands (integers: any order gives the same result; floats: an ordered reduction
   * in lane order, exactly the scalar calls' sequence).
   */
  private void emitCounterUpdate(Value inst, UniformMemory.Counter c) {
    Type t = inst.operand(0).type();
    Type vt = t.vectorOf(w);
    Value ptr = scal(inst.operand(1));
    int align = Math.max(1, inst.alignment());
    if (c.family() == Opcode.CALL) {
      // g = fmuladd(a, b, g) lane after lane: the same intrinsic, so the same rounding as the scalar calls
      Value a = vec(c.operands().get(0));
      Value m = vec(c.operands().get(1));
      Value acc = b.load(t, ptr, Math.max(1, c.load().alignment()), c.location().base().name() + ".old");
      Function f = Function.of(c.intrinsic().ref());
      for (int k = 0; k < w; k++) {
        Value r = b.call(f, List.of(b.extractElement(a, k, ""), b.extractElement(m, k, ""), acc), "");
        acc = MaskOps.isAllTrue(mask) ? r : b.select(b.extractElement(mask, k, ""), r, acc, "");
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
    Value cur = b.load(t, ptr, Math.max(1, c.load().alignment()), c.location().base().name() + ".old");
    Value updated;
    if (c.family() == Opcode.FADD) {
      if (!MaskOps.isAllTrue(mask)) x = b.select(mask, x, b.splat(b.constReal(t, -0.0), w, ""), "");
      updated = b.call(st.module().intrinsic("llvm.vector.reduce.fadd", vt), List.of(cur, x), c.location().base().name() + ".new");
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
      if (!MaskOps.isAllTrue(mask)) x = b.select(mask, x, b.splat(b.constInt(t, identity), w, ""), "");
      Value r = b.call(st.module().intrinsic(reduce, vt), List.of(x), "");
      updated = b.binop(c.family(), cur, r, c.location().base().name() + ".new");
    }
    b.store(updated, ptr, align);
    st.stats().scalarStores++;
  }

  private void reportSharedMemory() {
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

  // ------------------------------------------------------------------------------------------
  // calls (thesis 4.5.2, 4.5.3)

  private boolean isPureCall(Value call) { return st.isPureCall(call); }

  private Value emitCall(Value inst) {
    Value calleeV = inst.calledOperand();
    if (inst.isInlineAsm() || calleeV.isInlineAsm()) throw unsupported(inst, "inline assembly");
    Optional<Function> callee = inst.calledFunction();
    if (callee.isEmpty()) return emitIndirectCall(inst);
    if (hasCompositeOperand(inst)) {
      Optional<Value> v = compositeIntrinsic(inst, callee.get().name());
      if (v.isPresent()) return v.get();
      // anything else with vector or aggregate arguments or results: one call per lane
      return scalarizeCall(inst, callee.get());
    }
    Optional<Value> packetCall = packetCallOf(inst, callee.get());
    if (packetCall.isPresent()) return packetCall.get();
    // a variadic callee has no packet version: guarded scalar calls in lane order (scalarizeCall)
    return scalarizeCall(inst, callee.get());
  }

  private static boolean hasCompositeOperand(Value call) {
    if (CompositePackets.isComposite(call.type())) return true;
    for (int i = 0; i < call.numArgOperands(); i++) if (CompositePackets.isComposite(call.operand(i).type())) return true;
    return false;
  }

  /**
   * An intrinsic on vectors: element-wise ones (math, min/max, bit counts, ...) become the same
   * intrinsic on the packet type, {@code llvm.vector.reduce.*} a combination of the element packets.
   * Empty when the call needs per-lane calls (other intrinsics, or a scalar operand that varies).
   */
  private Optional<Value> compositeIntrinsic(Value inst, String name) {
    if (!name.startsWith("llvm.") || !inst.type().isVector() && !name.startsWith("llvm.vector.reduce.")) return Optional.empty();
    Optional<MathMappings.Mapping> mm = MathMappings.forCallee(name);
    boolean known = mm.isPresent() || CompositePackets.handlesIntrinsic(name);
    if (!known) return Optional.empty();
    List<Value> args = new ArrayList<>();
    for (int i = 0; i < inst.numArgOperands(); i++) {
      Value a = inst.operand(i);
      if (a.type().isVector() || name.startsWith("llvm.vector.reduce.")) {
        args.add(vec(a));
      } else {
        if (!uniform(a)) return Optional.empty();
        args.add(scal(a));
      }
    }
    Value r;
    if (name.startsWith("llvm.vector.reduce.")) {
      r = comp.reduction(inst, args, inst.name());
    } else if (mm.isPresent()) {
      Type vt = packetType(inst, inst.type());
      Function f = mm.get().scalarSecondArg() && mm.get().intrinsic().equals("llvm.powi")
          ? st.module().intrinsic(mm.get().intrinsic(), vt, inst.operand(1).type())
          : st.module().intrinsic(mm.get().intrinsic(), vt);
      r = copyFlags(inst, b.call(f, args, inst.name()));
    } else {
      packetType(inst, inst.type());
      r = comp.elementwiseIntrinsic(inst, args, inst.name());
    }
    st.stats().vectorCalls++;
    st.remark(Remark.Kind.VECTORIZED_CALL, current, inst, "call to " + name + " on vectors became one operation on their packets");
    return Optional.of(r);
  }

  /** Packet acc with lane k set to the scalar value r. */
  private Value insertLane(Value acc, Value r, int k) {
    return CompositePackets.isComposite(r.type()) ? comp.insertLane(acc, r, k) : b.insertElement(acc, r, k, "");
  }

  /**
   * A call of {@code callee} with {@code inst}'s arguments for the lanes of the current mask through
   * a packet version: a vector math intrinsic or libmvec, a user-registered mapping, or the masked
   * packet version of a function defined in the module (recursive packetization). Empty when there is
   * none.
   */
  private Optional<Value> packetCallOf(Value inst, Function callee) {
    int nargs = inst.numArgOperands();
    String name = callee.name();
    Optional<MathMappings.Mapping> mm = MathMappings.forCallee(name);
    Type rt = inst.type();
    if (mm.isPresent() && !rt.isVoid() && rt.isVectorElement() && (rt.isFloatingPoint() || rt.isInteger())) {
      Type vt = packetType(inst, rt);
      List<Value> args = new ArrayList<>();
      for (int i = 0; i < nargs; i++) {
        Value a = inst.operand(i);
        args.add(mm.get().scalarSecondArg() && i == 1 ? scal(a) : vec(a));
      }
      Optional<Value> viaLib = libmvecCall(inst, mm.get().intrinsic(), vt, args);
      if (viaLib.isPresent()) return viaLib;
      Function f = mm.get().scalarSecondArg() && mm.get().intrinsic().equals("llvm.powi")
          ? st.module().intrinsic(mm.get().intrinsic(), vt, inst.operand(1).type())
          : st.module().intrinsic(mm.get().intrinsic(), vt);
      st.stats().vectorCalls++;
      st.remark(Remark.Kind.VECTORIZED_CALL, current, inst, "call to " + name + " became " + mm.get().intrinsic() + " on " + vt);
      Value r = b.call(f, args, inst.name());
      return Optional.of(copyFlags(inst, r));
    }
    Optional<Value> mapped = st.mappings().emitMappedCall(b, inst, name, this::vec, this::scal, mask);
    if (mapped.isPresent()) {
      st.stats().vectorCalls++;
      st.remark(Remark.Kind.VECTORIZED_CALL, current, inst, "call to " + name + " uses its registered packet version");
      return mapped;
    }
    if (!callee.isVarArg() && !callee.isDeclaration() && !name.startsWith("llvm.")) return recursiveCall(inst, callee);
    return Optional.empty();
  }

  /**
   * An indirect call (thesis 4.5.2 extended to varying callees). Semantics: as W scalar calls, one
   * per active lane, each to the lane's own target. Emitted as a loop over the lanes still pending:
   * take the first pending lane's target t; if t is one of the functions the call may reach
   * ({@link IndirectTargets}: the entries of the constant table the callee is loaded from, else the
   * module's address-taken functions of this type) and has a packet version, call that once, masked to the
   * pending lanes whose target is t; else call t as a scalar for the first pending lane alone. So
   * the scalar calls happen one lane at a time in lane order, and a target with a packet version is
   * called once for all its lanes, when its first lane's turn comes. A uniform callee is the same
   * loop, left after one iteration when its target has a packet version.
   */
  private Value emitIndirectCall(Value inst) {
    Type fnType = inst.calledFunctionType();
    Type rt = inst.type();
    Type vt = rt.isVoid() ? null : packetType(inst, rt);
    int nargs = inst.numArgOperands();
    // the operands' packet values (and the broadcasts of uniform ones) are made here, before the
    // dispatch loop: values cached in the loop's blocks would not dominate later uses
    List<Value> packed = new ArrayList<>();
    for (int i = 0; i < nargs; i++) {
      Value a = inst.operand(i);
      if (uniform(a)) {
        packed.add(scal(a));
        Type t = a.type();
        if (t.isVectorElement() && (t.isInteger() || t.isPointer() || t.isFloat() || t.isDouble())) vec(a);
      } else {
        packed.add(vec(a));
      }
    }
    Value calleeV = inst.calledOperand();
    Value callees = uniform(calleeV) ? scal(calleeV) : vec(calleeV);
    boolean uniformCallee = !callees.type().isVector();
    Value calleeSlot = null;
    if (!uniformCallee) {
      // the lane's target is loaded from a stack copy: LLVM 20's x86 back end crashes on a call
      // through a pointer extracted at a variable index inside a loop
      calleeSlot = entryB.alloca(callees.type(), "icall.targets");
      b.store(callees, calleeSlot);
    }
    List<Function> candidates = IndirectTargets.candidates(st.module(), inst);

    Block pre = b.currentBlock();
    Block loop = packet.appendBlock(pre.name() + ".icall");
    Block next = packet.appendBlock(pre.name() + ".icall.next");
    Block done = packet.appendBlock(pre.name() + ".icall.done");
    loop.moveAfter(pre);
    Value entering = mask;
    if (MaskOps.isAllTrue(mask)) b.br(loop);
    else b.condBr(masks.any(mask, "any.icall"), loop, done);

    b.atEnd(loop);
    Value pending = b.phi(masks.maskType(), "icall.pending");
    pending.addIncoming(entering, pre);
    Value res = null;
    if (vt != null) {
      res = b.phi(vt, inst.name() + ".icall");
      res.addIncoming(b.poison(vt), pre);
    }
    Value first = firstActiveLane(pending);
    Value target = uniformCallee ? callees
        : b.load(st.context().ptrType(), b.gep(st.context().ptrType(), calleeSlot, List.of(first), true, ""), "icall.target");
    Value group = uniformCallee ? pending
        : masks.and(pending, b.icmpEq(callees, b.splat(target, w, ""), ""), "icall.group");
    record Join(Block from, Value result, Value left) { }
    List<Join> joins = new ArrayList<>();
    int tried = 0;
    for (Function c : candidates) {
      Block hit = packet.appendBlock(pre.name() + ".icall." + c.name());
      Block miss = packet.appendBlock(pre.name() + ".icall.not." + c.name());
      hit.moveAfter(b.currentBlock());
      miss.moveAfter(hit);
      b.condBr(b.icmpEq(target, c, ""), hit, miss);
      b.atEnd(hit);
      Value saved = mask;
      Optional<Value> r;
      mask = group;
      try {
        r = packetCallOf(inst, c);
      } finally {
        mask = saved;
      }
      if (r.isPresent()) {
        tried++;
        Value nr = vt == null ? null : b.select(group, r.get(), res, "");
        Value left = masks.andNot(pending, group, "");
        joins.add(new Join(b.currentBlock(), nr, left));
        b.br(next);
      } else {
        b.br(miss); // no packet version: the lane is called as a scalar below
      }
      b.atEnd(miss);
    }
    // a target without a packet version: one scalar call, for the first pending lane
    List<Value> args = new ArrayList<>();
    for (Value p : packed) args.add(p.type().isVector() ? b.extractElement(p, first, "") : p);
    Value call = b.call(fnType, target, args, rt.isVoid() ? "" : inst.name() + ".lane");
    copyCallSite(inst, call);
    Value nr = vt == null ? null : b.insertElement(res, call, first, "");
    Value onlyFirst = b.icmpEq(b.laneIndices(st.context().i32(), w), b.splat(first, w, ""), "");
    Value left = masks.andNot(pending, onlyFirst, "");
    joins.add(new Join(b.currentBlock(), nr, left));
    b.br(next);

    next.moveAfter(b.currentBlock());
    b.atEnd(next);
    Value pendingNext = b.phi(masks.maskType(), "icall.left");
    Value resNext = vt == null ? null : b.phi(vt, "");
    for (Join j : joins) {
      pendingNext.addIncoming(j.left(), j.from());
      if (resNext != null) resNext.addIncoming(j.result(), j.from());
    }
    pending.addIncoming(pendingNext, next);
    if (res != null) res.addIncoming(resNext, next);
    b.condBr(masks.any(pendingNext, "icall.more"), loop, done);
    done.moveAfter(next);
    b.atEnd(done);
    st.stats().scalarizedCalls++;
    st.remark(Remark.Kind.SCALARIZED_CALL, current, inst, "indirect call: each lane calls its own target"
        + (tried > 0 ? " (" + tried + " possible target(s) with a packet version, called once for all their lanes; others one lane at a time in lane order)"
            : ", one lane at a time in lane order (no possible target has a packet version)"));
    if (vt == null) return null;
    if (MaskOps.isAllTrue(entering)) return resNext;
    Value out = b.phi(vt, inst.name());
    out.addIncoming(b.poison(vt), pre);
    out.addIncoming(resNext, next);
    return out;
  }

  /** The index (i32) of the lowest set lane of {@code m} (0 when none is set). */
  private Value firstActiveLane(Value m) {
    Type iw = st.context().intType(w);
    Value bits = b.cast(Opcode.BITCAST, m, iw, "");
    Value f = b.call(st.module().intrinsic("llvm.cttz", iw), List.of(bits, b.i1(false)), "");
    f = b.and(f, b.constInt(iw, w - 1), "first.lane");
    return w < 32 ? b.cast(Opcode.ZEXT, f, st.context().i32(), "") : w == 32 ? f : b.cast(Opcode.TRUNC, f, st.context().i32(), "");
  }

  /** A scalar call made for one lane keeps the scalar call site's calling convention and attributes. */
  private static void copyCallSite(Value from, Value to) {
    // the lane's call is the scalar call: same calling convention, same call-site attributes
    // (zeroext/signext, byval, noundef, memory effects, ...)
    to.setInstructionCallConv(from.instructionCallConv());
    to.copyCallSiteAttributesFrom(from);
  }


  /**
   * A math intrinsic through glibc's libmvec when the options ask for it and a variant exists for
   * the target's features: one call per chunk of the variant's width, results concatenated.
   */
  private Optional<Value> libmvecCall(Value inst, String intrinsic, Type vt, List<Value> args) {
    if (st.options().vectorMath() != org.packetizer.core.api.PacketizerOptions.VectorMath.LIBMVEC) return Optional.empty();
    Type et = vt.elementType();
    if (!et.isFloat() && !et.isDouble()) return Optional.empty();
    String features = packet.stringAttribute("target-features").orElse("");
    Optional<org.packetizer.core.mapping.Libmvec.Variant> v =
        org.packetizer.core.mapping.Libmvec.variant(intrinsic, et.isDouble(), packet.module().targetTriple(), features, w);
    if (v.isEmpty() || v.get().arity() != args.size() || w % v.get().lanes() != 0) return Optional.empty();
    int lanes = v.get().lanes();
    if (!MaskOps.isAllTrue(mask)) {
      // inactive lanes hold whatever they hold (negative bases, NaNs, huge values): libmvec sends any
      // such lane of a call through its slow scalar fallback, so they get 1.0, inside every
      // function's fast domain
      Value one = b.splat(b.constReal(et, 1.0), w, "");
      List<Value> safe = new ArrayList<>();
      for (Value a : args) safe.add(b.select(mask, a, one, ""));
      args = safe;
    }
    Type ct = et.vectorOf(lanes);
    List<Type> ps = new ArrayList<>();
    for (int i = 0; i < args.size(); i++) ps.add(ct);
    Function f = st.module().getOrInsertFunction(v.get().symbol(), st.context().functionType(ct, ps, false));
    f.addEnumAttribute("nounwind");
    f.addEnumAttribute("willreturn");
    List<Value> parts = new ArrayList<>();
    for (int c = 0; c < w / lanes; c++) {
      List<Value> cargs = new ArrayList<>();
      for (Value a : args) cargs.add(lanes == w ? a : b.shuffle(a, b.poison(vt), rangeMask(c * lanes, lanes), ""));
      parts.add(b.call(f, cargs, inst.name() + (lanes == w ? "" : "." + c)));
    }
    st.stats().vectorCalls++;
    st.remark(Remark.Kind.VECTORIZED_CALL, current, inst, "call to " + intrinsic + " became " + (w / lanes) + " call(s) of libmvec "
        + v.get().symbol() + " (max " + org.packetizer.core.mapping.Libmvec.MAX_ULPS + " ULP)");
    return Optional.of(concat(parts));
  }

  private Value rangeMask(int start, int n) {
    List<Value> idx = new ArrayList<>();
    for (int i = 0; i < n; i++) idx.add(b.i32(start + i));
    return b.constVector(idx);
  }

  /** Concatenates equally wide vectors (a power-of-two count) into one. */
  private Value concat(List<Value> parts) {
    List<Value> cur = parts;
    while (cur.size() > 1) {
      List<Value> next = new ArrayList<>();
      for (int i = 0; i < cur.size(); i += 2) {
        int n = cur.get(i).type().vectorSize();
        next.add(b.shuffle(cur.get(i), cur.get(i + 1), rangeMask(0, 2 * n), ""));
      }
      cur = next;
    }
    return cur.getFirst();
  }

  /**
   * Recursive packetization (thesis 7.2): calls the masked packet version of a function defined in
   * the module, made for this call site's parameter kinds (a recursive call calls the version still
   * being emitted). Empty when the callee cannot be packetized and no argument forces one.
   */
  private Optional<Value> recursiveCall(Value inst, Function callee) {
    int nargs = inst.numArgOperands();
    List<ParamKind> kinds = new ArrayList<>();
    boolean needsPacket = false;
    for (int i = 0; i < nargs; i++) {
      Value a = inst.operand(i);
      if (st.soa().isDerived(a)) {
        if (get(a).type().isVector()) {
          throw unsupported(inst, "passing a struct-of-arrays pointer with a varying offset to @" + callee.name());
        }
        kinds.add(ParamKind.SOA);
        needsPacket = true;
      } else if (uniform(a)) {
        kinds.add(ParamKind.UNIFORM);
      } else if (shape(a).isLinear() && (a.type().isPointer() || a.type().isInteger() && a.type().intWidth() >= 8
          && a.type().intWidth() <= 64)) {
        // the callee learns that lane k gets base + k*stride: its consecutive accesses stay vector accesses
        kinds.add(ParamKind.linear(shape(a).stride()));
      } else {
        if (!a.type().isVectorElement()) return Optional.empty();
        kinds.add(ParamKind.VARYING);
      }
    }
    Optional<String> version = st.callees().packetVersion(callee.name(), kinds, w, n -> st.module().function(n).isPresent());
    if (version.isEmpty()) {
      if (needsPacket) {
        throw unsupported(inst, "a call to @" + callee.name() + " with a struct-of-arrays pointer, because @" + callee.name()
            + " cannot be packetized: " + st.callees().failure(callee.name(), kinds, w).orElse("unknown reason"));
      }
      return Optional.empty();
    }
    Function vf = st.module().function(version.get()).orElseThrow();
    List<Value> args = new ArrayList<>();
    for (int i = 0; i < nargs; i++) {
      Value a = inst.operand(i);
      ParamKind k = kinds.get(i);
      args.add(k instanceof ParamKind.Varying ? vec(a) : k instanceof ParamKind.Linear l ? laneZero(a, l.step()) : get(a));
    }
    args.add(mask);
    st.stats().vectorCalls++;
    st.remark(Remark.Kind.VECTORIZED_CALL, current, inst, "call to @" + callee.name() + " calls its packet version @"
        + vf.name() + " (recursive packetization, masked)");
    return Optional.of(b.call(vf, args, inst.type().isVoid() ? "" : inst.name()));
  }

  /** W scalar calls; guarded by each lane's mask bit unless the callee is free of side effects. */
  private Value scalarizeCall(Value inst, Function callee) {
    int nargs = inst.numArgOperands();
    boolean pure = isPureCall(inst);
    Type rt = inst.type();
    Type vt = rt.isVoid() ? null : packetType(inst, rt);
    st.stats().scalarizedCalls++;
    st.remark(Remark.Kind.SCALARIZED_CALL, current, inst, "call to @" + callee.name() + " was split into " + w
        + " scalar calls" + (pure ? " (no side effects: unguarded)" : " guarded by each lane's mask bit")
        + "; register a packet version to avoid this");
    List<Value> packed = new ArrayList<>();
    List<Boolean> varyingArg = new ArrayList<>();
    for (int i = 0; i < nargs; i++) {
      Value a = inst.operand(i);
      packed.add(uniform(a) ? scal(a) : vec(a));
      varyingArg.add(!uniform(a));
      if (!uniform(a)) packetType(inst, a.type());
    }
    LaneBody body = (k, unused) -> {
      List<Value> args = new ArrayList<>();
      for (int i = 0; i < packed.size(); i++) {
        Value p = packed.get(i);
        Value a = varyingArg.get(i) ? comp.extractLane(p, inst.operand(i).type(), b.i32(k)) : p;
        if (pure) a = b.freeze(a, "");
        args.add(a);
      }
      // the call site's function type (a variadic callee's includes the promoted variadic arguments)
      Value call = b.call(inst.calledFunctionType(), callee, args, rt.isVoid() ? "" : inst.name() + "." + k);
      copyCallSite(inst, call);
      return call;
    };
    if (pure) {
      Value acc = vt == null ? null : b.poison(vt);
      for (int k = 0; k < w; k++) {
        Value r = body.emit(k, null);
        if (acc != null) acc = insertLane(acc, r, k);
      }
      return acc;
    }
    return perLaneGuarded(body, vt);
  }

  // ------------------------------------------------------------------------------------------
  // terminators: masks (4.2), blends (4.3) and linearization (4.4)

  private void emitTerminator(Block sb, Value term, boolean partial) {
    Opcode op = st.ssa().opcode(term);
    switch (op) {
      case RET -> {
        if (term.numOperands() > 0 && retSlot != null) {
          Value rv = term.operand(0);
          Type rt = packet.returnType();
          Value v = rt.equals(rv.type()) ? scal(rv) : vec(rv);
          vars.write(retSlot, v);
        }
        b.br(chainNext(sb));
      }
      case UNREACHABLE -> b.br(chainNext(sb));
      case BR -> {
        if (!term.isConditional()) {
          Block s = term.successor(0);
          contribute(sb, s, mask);
          Optional<LoopForest.Loop<Block>> latched = st.schedule().loopLatchedBy(sb);
          if (latched.isPresent() && latched.get().header().equals(s)) {
            if (!partial) {
              b.br(head.get(s));
            } else {
              b.condBr(masks.any(mask, "continue." + sb.name()), head.get(s), afterLoop(s));
            }
          } else if (!partial && st.schedule().isScheduled(s)) {
            b.br(target(sb, s));
          } else {
            b.br(chainNext(sb));
          }
          return;
        }
        Value c = term.condition();
        Block s1 = term.successor(0);
        Block s2 = term.successor(1);
        boolean uniformCond = uniform(c);
        Optional<LoopForest.Loop<Block>> latchOf = st.schedule().loopLatchedBy(sb);
        if (uniformCond && partial && latchOf.isPresent() && s1.equals(latchOf.get().header()) != s2.equals(latchOf.get().header())
            && st.schedule().isScheduled(s1) && st.schedule().isScheduled(s2)) {
          emitUniformLatchExit(sb, term, latchOf.get().header());
          return;
        }
        if (uniformCond && !partial && !s1.equals(s2)) {
          // a kept uniform branch: each successor's masks and blends on its own edge, so the way not
          // taken costs nothing (before, both were computed under a mask that was empty for one)
          st.stats().keptBranches++;
          st.remark(Remark.Kind.UNIFORM_BRANCH, sb, term, "uniform branch kept");
          Block here = b.currentBlock();
          Block t1 = packet.appendBlock(sb.name() + ".then");
          Block t2 = packet.appendBlock(sb.name() + ".else");
          t1.moveAfter(here);
          t2.moveAfter(t1);
          b.condBr(scal(c), t1, t2);
          Caches before = saveCaches();
          b.atEnd(t1);
          contribute(sb, s1, mask);
          b.br(target(sb, s1));
          restoreCaches(before);
          b.atEnd(t2);
          contribute(sb, s2, mask);
          b.br(target(sb, s2));
          return;
        }
        Value e1;
        Value e2;
        if (uniformCond) {
          Value cs = scal(c);
          e1 = masks.and(mask, cs, "e." + sb.name() + "." + s1.name());
          e2 = masks.andNot(mask, cs, "e." + sb.name() + "." + s2.name());
        } else {
          Value cv = vec(c);
          e1 = masks.and(mask, cv, "e." + sb.name() + "." + s1.name());
          e2 = masks.andNot(mask, cv, "e." + sb.name() + "." + s2.name());
        }
        contribute(sb, s1, e1);
        contribute(sb, s2, e2);
        if (uniformCond && !partial) {
          st.stats().keptBranches++;
          st.remark(Remark.Kind.UNIFORM_BRANCH, sb, term, "uniform branch kept");
          b.condBr(scal(c), target(sb, s1), target(sb, s2));
          return;
        }
        st.stats().linearizedBranches++;
        if (!uniformCond) {
          st.remark(Remark.Kind.LINEARIZED, sb, term, "divergent branch linearized: " + st.divergence().reason(c));
        }
        Optional<LoopForest.Loop<Block>> latched = st.schedule().loopLatchedBy(sb);
        if (latched.isPresent()) {
          Block h = latched.get().header();
          Value back = s1.equals(h) ? e1 : s2.equals(h) ? e2 : null;
          if (back == null) throw new IllegalStateException("latch without back edge: " + sb);
          if (s1.equals(h) && s2.equals(h)) back = mask;
          b.condBr(masks.any(back, "continue." + sb.name()), head.get(h), afterLoop(h));
          return;
        }
        b.br(chainNext(sb));
      }
      default -> throw unsupported(term, "the terminator '" + op.mnemonic() + "'");
    }
  }

  /**
   * The latch of a divergent loop leaving it on a uniform condition: every lane still in the loop
   * passes the latch, so when the condition says "exit" all of them leave and the loop is over. The
   * branch stays a real branch; the exit's blends run only on the way out instead of in every
   * iteration under a mask that is empty until the last one.
   */
  private void emitUniformLatchExit(Block sb, Value term, Block header) {
    Block s1 = term.successor(0);
    boolean exitOnTrue = !s1.equals(header);
    Block exitSucc = exitOnTrue ? s1 : term.successor(1);
    Block here = b.currentBlock();
    Block leave = packet.appendBlock(sb.name() + ".leave");
    Block stay = packet.appendBlock(sb.name() + ".stay");
    leave.moveAfter(here);
    stay.moveAfter(leave);
    Value c = scal(term.condition());
    b.condBr(c, exitOnTrue ? leave : stay, exitOnTrue ? stay : leave);
    st.stats().keptBranches++;
    st.remark(Remark.Kind.UNIFORM_BRANCH, sb, term, "uniform exit of a divergent loop kept as a branch");
    Caches before = saveCaches();
    b.atEnd(leave);
    contribute(sb, exitSucc, mask);
    b.br(afterLoop(header));
    restoreCaches(before);
    b.atEnd(stay);
    contribute(sb, header, mask);
    b.condBr(masks.any(mask, "continue." + sb.name()), head.get(header), afterLoop(header));
  }

  /**
   * The block-local caches ({@link #local}'s slot reads, {@link #splats}) as they were before the
   * emission of one scalar block forks into sibling packet blocks (a kept uniform branch's two arms, a
   * uniform latch exit's leave and stay): what one arm caches (a uniform value's splat made for an
   * exit blend) does not dominate the other arm (the back edge's phi), so each arm starts from the
   * caches of the block that dominates both.
   */
  private record Caches(Map<Value, Value> local, Map<Value, Value> splats) {}

  private Caches saveCaches() { return new Caches(new HashMap<>(local), new HashMap<>(splats)); }

  private void restoreCaches(Caches c) {
    local.clear();
    local.putAll(c.local());
    splats.clear();
    splats.putAll(c.splats());
  }

  private Block chainNext(Block sb) {
    return st.schedule().next(sb).map(this::entryOf).orElse(exitBlock);
  }

  private Block afterLoop(Block header) {
    return st.schedule().afterLoop(header).map(this::entryOf).orElse(exitBlock);
  }

  /** Where a forward edge into scalar block {@code sb} goes: a loop's entry test, else its head. */
  private Block entryOf(Block sb) {
    Block e = enter.get(sb);
    return e != null ? e : head.get(sb);
  }

  /** The target of the real branch from {@code from} to {@code to}: back edges skip the entry test. */
  private Block target(Block from, Block to) {
    boolean back = st.cfg().loops().loopWithHeader(to).map(l -> l.contains(from)).orElse(false);
    return back ? head.get(to) : entryOf(to);
  }

  /** Edge B→S with edge mask e: OR it into S's mask and blend S's phis. */
  private void contribute(Block from, Block to, Value e) {
    if (!st.schedule().isScheduled(to)) return;
    if (MaskOps.isAllFalse(e)) return;
    SlotSsa.Var slot = maskSlot(to);
    Value old = vars.read(slot, "");
    vars.write(slot, masks.or(old, e, "m.acc." + to.name()));
    // the last edge into a block every lane reaches brings every lane the earlier edges did not: its
    // blends can test the earlier edges' mask, which is known sooner (and the edge's own mask, often
    // accumulated over a loop's iterations, is then needed by nobody)
    boolean complement = reachedByAll(to) && lastPredecessor(to).map(from::equals).orElse(false);
    // the back edge is taken only while some lane continues, and only those lanes read the header's
    // phis again: lanes that left were frozen by the exit blocks' (LCSSA) phis when they left, so the
    // thesis' latch blend that keeps their old values is not needed
    boolean backEdge = st.cfg().loops().loopWithHeader(to).map(l -> l.contains(from)).orElse(false);
    Value any = null;
    for (Value phi : st.ssa().instructions(to)) {
      if (st.ssa().opcode(phi) != Opcode.PHI) break;
      Value in = null;
      for (int i = 0; i < phi.incomingCount(); i++) {
        if (phi.incomingBlock(i).equals(from)) {
          in = phi.incomingValue(i);
          break;
        }
      }
      if (in == null) continue;
      SlotSsa.Var ps = phiSlot(phi);
      Value cur = vars.read(ps, "");
      Value nv;
      if (st.soa().lanePointerFieldSize(phi).isPresent()) {
        Value lanes = lanePointers(phi, in);
        nv = MaskOps.isAllTrue(e) || backEdge ? lanes : b.select(e, lanes, cur, phi.name() + ".blend");
      } else if (backEdge) {
        nv = uniform(phi) ? scal(in) : vec(in);
      } else if (uniform(phi)) {
        if (any == null) any = masks.any(e, "any.e." + to.name());
        nv = b.select(any, scal(in), cur, phi.name() + ".blend");
      } else {
        nv = MaskOps.isAllTrue(e) ? vec(in)
            : complement ? (MaskOps.isAllFalse(old) ? vec(in) : comp.select(old, cur, vec(in), phi.name() + ".blend"))
            : comp.select(e, vec(in), cur, phi.name() + ".blend");
        st.stats().selects++;
      }
      vars.write(ps, nv);
    }
  }

  private PacketizationException unsupported(Value inst, String what) {
    String blk = inst.isInstruction() ? st.ssa().blockOf(inst).map(Block::name).orElse(null) : null;
    return PacketizationException.unsupported("cannot packetize " + what, st.scalarName(), blk,
        inst.isInstruction() ? inst.print() : null);
  }
}
