package org.packetizer.core.widen;

import java.util.List;
import java.util.Optional;
import org.packetizer.core.api.ParamKind;
import org.packetizer.core.ir.Block;
import org.packetizer.core.ir.Function;
import org.packetizer.core.ir.IrBuilder;
import org.packetizer.core.ir.Opcode;
import org.packetizer.core.ir.Type;
import org.packetizer.core.ir.Value;
import org.packetizer.core.mapping.MathMappings;
import org.packetizer.core.mapping.SpmdIntrinsics;
import org.packetizer.core.pipeline.PacketizationState;
import org.packetizer.core.pipeline.SlotSsa;
import org.packetizer.core.pipeline.SoaPointers;
import org.packetizer.core.pipeline.UniformMemory;

/**
 * Emits the packet function from the prepared scalar function (thesis 4.2–4.5 over the linearized
 * block order): sets up the packet function's blocks, parameters and entry mask, lets the
 * {@link Linearizer} walk the scalar blocks in the schedule's order, and dispatches each instruction
 * to the phase that vectorizes it.
 *
 * <p>The phases, each one class named as in the thesis, share one {@link PacketizationState}
 * (value → shape, mask, packet) and the value accessors of {@link EmissionPhase}:
 *
 * <ul>
 *   <li>{@link MaskGenerator} — masks (4.2): block and edge masks, loop exit masks;
 *   <li>{@link BlendGenerator} — selects (4.3): phis at divergent joins, loop live values;
 *   <li>{@link Linearizer} — partial linearization (4.4): block order, kept uniform branches,
 *       guards, latches;
 *   <li>{@link ArithmeticWidener} — instruction vectorization of arithmetic (4.5.1);
 *   <li>{@link MemoryWidener} — loads, stores, gathers, scatters, allocas, atomics (4.5.3, 4.5.4);
 *       {@link SoaWidener} — struct-of-arrays memory (Fig 4.4); {@link UniformMemoryWidener} —
 *       memory the lanes share at uniform addresses;
 *   <li>{@link CallWidener} — calls (4.5.2).
 * </ul>
 *
 * Values crossing blocks (masks, blended phis, values used in other blocks, the return value) are
 * variables of {@link SlotSsa}, written and read like stack slots; at the end SlotSsa builds their
 * SSA form on the emitted graph (phis where needed). This keeps the phases simple and correct under
 * any mix of real and linearized branches, in time linear in the live ranges (LLVM's mem2reg on
 * allocas was quadratic on large packet functions).
 */
public final class PacketEmitter extends EmissionPhase {
  /**
   * Name of the module's private zero constant that inactive lanes of per-lane loads read
   * (MemoryWidener.perLane); removed again when a failed packetization leaves it unused.
   */
  public static final String INACTIVE_LANE_SLOT = "__packetizer.inactive.lane";
  private final SpmdIntrinsics spmd;
  final MaskGenerator maskGenerator;
  final BlendGenerator blends;
  final Linearizer linearizer;
  final ArithmeticWidener arithmetic;
  final MemoryWidener memory;
  final SoaWidener soa;
  final UniformMemoryWidener uniformMemory;
  final CallWidener calls;

  public PacketEmitter(PacketizationState state, Function packetFunction) {
    state.beginEmission(packetFunction, new IrBuilder(state.context()), new IrBuilder(state.context()));
    super(state, null);
    this.spmd = new SpmdIntrinsics(state.module(), w, state.scalarName(), state.options().lanesMayBeRetyped());
    this.maskGenerator = new MaskGenerator(this);
    this.blends = new BlendGenerator(this);
    this.linearizer = new Linearizer(this);
    this.arithmetic = new ArithmeticWidener(this);
    this.memory = new MemoryWidener(this);
    this.soa = new SoaWidener(this);
    this.uniformMemory = new UniformMemoryWidener(this);
    this.calls = new CallWidener(this);
  }

  PacketizationState state() { return st; }

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
    st.setAllocaBlock(packet.appendBlock("entry"));
    entryB.atEnd(allocaBlock());
    List<Block> order = st.schedule().order();
    st.setSlots(new SlotSsa(b, packet, b.constNull(st.context().ptrType()), 2 * order.size(), st.ssa().instructionCount()));
    for (Block sb : order) {
      String name = !names ? "" : sb.name().isEmpty() ? "bb" : sb.name();
      if (st.schedule().loopHeadedBy(sb).isPresent()) enter.put(sb, packet.appendBlock(names ? name + ".enter" : ""));
      head.put(sb, packet.appendBlock(name));
    }
    st.setExitBlock(packet.appendBlock("packet.exit"));

    // parameters and the entry mask
    setupParams(scalar);

    Type ret = packet.returnType();
    if (!ret.isVoid()) st.setRetSlot(vars().newVar(ret, "ret"));
    uniformMemory.reportSharedMemory();

    for (Block sb : order) linearizer.emitBlock(sb);

    b.atEnd(exitBlock());
    uniformMemory.writeBackOwnCopies();
    if (ret.isVoid()) b.retVoid();
    else b.ret(vars().read(retSlot(), "ret"));

    entryB.atEnd(allocaBlock());
    entryB.br(linearizer.entryOf(order.getFirst()));
    vars().resolve();
  }

  private void setupParams(Function scalar) {
    List<ParamKind> kinds = st.paramKinds();
    for (int i = 0; i < scalar.paramCount(); i++) {
      Value sp = scalar.param(i);
      Value pp = packet.param(i);
      if (names) pp.setName(sp.name());
      ParamKind k = kinds.get(i);
      Value v = switch (k) {
        case ParamKind.Linear lin -> {
          Type t = sp.type();
          if (t.isPointer()) {
            Value offs = linearOffsets(entryB, st.context().i64(), lin.step());
            yield entryB.gep(st.context().i8(), pp, List.of(offs), false, nameOf(sp, ".lanes"));
          }
          Value base = entryB.splat(pp, w, nameOf(sp, ".splat"));
          yield entryB.add(base, linearOffsets(entryB, t, lin.step()), nameOf(sp, ".lanes"));
        }
        default -> pp;
      };
      params.put(sp, v);
    }
    if (st.options().masked()) {
      st.setEntryMask(packet.param(packet.paramCount() - 1));
      entryMask().setName("mask");
    } else {
      st.setEntryMask(masks.allTrue());
    }
  }

  Value emitInstruction(Value inst) {
    Opcode op = st.ssa().opcode(inst);
    if (op == Opcode.CALL) {
      Optional<Function> callee = inst.calledFunction();
      if (callee.isPresent() && MathMappings.isDroppable(callee.get().name())) return null;
      if (callee.isPresent() && SoaPointers.isMemIntrinsic(callee.get().name())
          && (st.soa().isDerived(inst.operand(0)) || st.soa().isDerived(inst.operand(1)))) {
        soa.emitSoaMemIntrinsic(inst, callee.get());
        return null;
      }
      // SPMD intrinsics act on the whole packet, the uniform ones too: before cloneUniform
      Optional<Value> spmdValue = spmd.emit(b, inst, mask(), uniform(inst), this::get);
      if (spmdValue.isPresent()) return spmdValue.get();
    }
    if (op == Opcode.LOAD && uniformMemory.shared() != null) {
      Optional<UniformMemory.Location> own = uniformMemory.shared().privateLoad(inst);
      if (own.isPresent()) return vars().read(uniformMemory.ownCopy(own.get())[0], nameOf(inst));
    }
    if (op == Opcode.STORE && uniformMemory.shared() != null) {
      Optional<UniformMemory.Location> own = uniformMemory.shared().privateStore(inst);
      if (own.isPresent()) {
        uniformMemory.emitOwnCopyStore(inst, own.get());
        return null;
      }
      Optional<UniformMemory.Counter> counter = uniformMemory.shared().counterStore(inst);
      if (counter.isPresent()) {
        uniformMemory.emitCounterUpdate(inst, counter.get());
        return null;
      }
    }
    Optional<Value> atomic = memory.emitAtomic(inst, op);
    if (atomic != null) return atomic.orElse(null);
    if (op == Opcode.STORE) {
      if (st.soa().isDerived(inst.operand(1))) soa.emitSoaStore(inst);
      else memory.emitStore(inst);
      return null;
    }
    if (op == Opcode.GEP && st.soa().isDerived(inst)) return soa.emitSoaGep(inst);
    if (op == Opcode.ALLOCA && st.soa().isDerived(inst)) return memory.emitAlloca(inst);
    // select c, v, v is v: the analysis gives it v's shape even when c is varying, so it must not be
    // cloned as a uniform instruction (that would need c as a scalar)
    if (op == Opcode.SELECT && inst.operand(1).equals(inst.operand(2))) return get(inst.operand(1));
    if (op == Opcode.LOAD && st.soa().isDerived(inst.operand(0))) return soa.emitSoaLoad(inst);
    if (uniform(inst) && op != Opcode.ALLOCA) return arithmetic.cloneUniform(inst);
    return switch (op) {
      case SELECT -> arithmetic.emitSelect(inst);
      case GEP -> arithmetic.emitGep(inst);
      case LOAD -> memory.emitLoad(inst);
      case ALLOCA -> memory.emitAlloca(inst);
      case CALL -> calls.emitCall(inst);
      default -> arithmetic.widen(inst, op);
    };
  }
}
