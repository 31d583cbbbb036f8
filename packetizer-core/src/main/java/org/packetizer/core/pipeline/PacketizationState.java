package org.packetizer.core.pipeline;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.packetizer.analysis.cfg.CfgAnalyses;
import org.packetizer.analysis.divergence.DivergenceInfo;
import org.packetizer.core.adapt.LlvmSsaFunction;
import org.packetizer.core.api.PacketizerOptions;
import org.packetizer.core.api.ParamKind;
import org.packetizer.core.api.Remark;
import org.packetizer.core.ir.Block;
import org.packetizer.core.ir.Function;
import org.packetizer.core.ir.IrBuilder;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.ir.Value;
import org.packetizer.core.linearize.Schedule;
import org.packetizer.core.mapping.UserMappings;

/**
 * Everything one packetization knows, in one place (RV's VectorizationInfo): the prepared scalar
 * function, its analyses (shapes, masks' partiality, loops), the schedule, options, statistics and
 * remarks; and, while the packet function is emitted, value → packet: each scalar value's packet
 * value, each block's mask and phi variables ({@link SlotSsa}), the packet blocks of each scalar
 * block, the block being emitted and its mask. The emission phases (widen's MaskGenerator,
 * BlendGenerator, Linearizer, ArithmeticWidener, MemoryWidener, CallWidener, ...) share this state
 * and nothing else; none reaches into another phase's internals.
 */
public final class PacketizationState {
  private final LlvmModule module;
  private final PacketizerOptions options;
  private final String scalarName;
  private final Function scalar;
  private final LlvmSsaFunction ssa;
  private final CfgAnalyses<Block> cfg;
  private final DivergenceInfo<Block, Value> divergence;
  private final Schedule<Block> schedule;
  private final List<ParamKind> paramKinds;
  private final UserMappings mappings;
  private final PureCalls pureCalls;
  private final org.packetizer.core.pipeline.SoaPointers soa;
  private final CalleePacketizer callees;
  private final Stats stats = new Stats();
  private final List<Remark> remarks = new ArrayList<>();

  public PacketizationState(LlvmModule module, PacketizerOptions options, String scalarName, Function scalar,
      LlvmSsaFunction ssa, CfgAnalyses<Block> cfg, DivergenceInfo<Block, Value> divergence, Schedule<Block> schedule,
      List<ParamKind> paramKinds, UserMappings mappings, PureCalls pureCalls, org.packetizer.core.pipeline.SoaPointers soa,
      CalleePacketizer callees) {
    this.soa = soa;
    this.callees = callees;
    this.module = module;
    this.options = options;
    this.scalarName = scalarName;
    this.scalar = scalar;
    this.ssa = ssa;
    this.cfg = cfg;
    this.divergence = divergence;
    this.schedule = schedule;
    this.paramKinds = paramKinds;
    this.mappings = mappings;
    this.pureCalls = pureCalls;
  }

  public LlvmModule module() { return module; }
  public LlvmContext context() { return module.context(); }
  public PacketizerOptions options() { return options; }
  public int width() { return options.width(); }
  /** The user's name of the scalar function (the prepared copy has another name). */
  public String scalarName() { return scalarName; }
  /** The prepared copy of the scalar function. */
  public Function scalar() { return scalar; }
  public LlvmSsaFunction ssa() { return ssa; }
  public CfgAnalyses<Block> cfg() { return cfg; }
  public DivergenceInfo<Block, Value> divergence() { return divergence; }
  public Schedule<Block> schedule() { return schedule; }
  public List<ParamKind> paramKinds() { return paramKinds; }
  public UserMappings mappings() { return mappings; }
  public Stats stats() { return stats; }
  /** Makes packet versions of called functions (recursive packetization). */
  public CalleePacketizer callees() { return callees; }

  /** Values derived from struct-of-arrays pointer parameters. */
  public org.packetizer.core.pipeline.SoaPointers soa() { return soa; }
  public List<Remark> remarks() { return remarks; }

  public boolean isPureCall(Value call) { return pureCalls.test(call); }

  private org.packetizer.core.pipeline.UniformMemory sharedMemory;

  /** Memory at uniform addresses the lanes share (globals, fixed offsets from uniform pointers). */
  public org.packetizer.core.pipeline.UniformMemory sharedMemory() { return sharedMemory; }

  public void setSharedMemory(org.packetizer.core.pipeline.UniformMemory m) { this.sharedMemory = m; }

  // ------------------------------------------------------------------------------------------
  // the packet function being emitted: value -> packet (set up by beginEmission)

  private Function packetFunction;
  private IrBuilder builder;
  private IrBuilder entryBuilder;
  private SlotSsa slots;
  private Block allocaBlock;
  private Block exitBlock;
  private Value entryMask;
  private SlotSsa.Var retSlot;
  private Block currentBlock;
  private Value currentMask;
  private final Map<Block, Block> heads = new HashMap<>();
  private final Map<Block, Block> loopEnters = new HashMap<>();
  // by native address (the emitter's hottest lookups; issue 16)
  private final org.packetizer.core.ir.AddressMap<SlotSsa.Var> maskSlots = new org.packetizer.core.ir.AddressMap<>(256);
  private final org.packetizer.core.ir.AddressMap<SlotSsa.Var> phiSlots = new org.packetizer.core.ir.AddressMap<>(256);
  private final org.packetizer.core.ir.AddressMap<SlotSsa.Var> valueSlots = new org.packetizer.core.ir.AddressMap<>(1024);
  private final Map<Block, Block> initAnchors = new HashMap<>();
  private final Map<Value, Value> packetParams = new HashMap<>();
  private final Map<Value, Boolean> lanesComputed = new HashMap<>();
  private final Map<Value, Value> localPackets = new HashMap<>();
  private final Map<Value, Value> splats = new HashMap<>();
  private final Map<Value, Value> paramSplats = new HashMap<>();

  /** Starts the emission of {@code packet} with the builders that emit its body and its entry block. */
  public void beginEmission(Function packet, IrBuilder body, IrBuilder entry) {
    this.packetFunction = packet;
    this.builder = body;
    this.entryBuilder = entry;
  }

  /** The packet function being emitted. */
  public Function packetFunction() { return packetFunction; }
  /** The builder at the current emission point. */
  public IrBuilder builder() { return builder; }
  /** The builder of the packet function's entry block (allocas, parameter broadcasts). */
  public IrBuilder entryBuilder() { return entryBuilder; }
  /** The variables crossing packet blocks (masks, blended phis, values used elsewhere). */
  public SlotSsa slots() { return slots; }
  public void setSlots(SlotSsa s) { this.slots = s; }
  /** The packet function's entry block (allocas). */
  public Block allocaBlock() { return allocaBlock; }
  public void setAllocaBlock(Block bl) { this.allocaBlock = bl; }
  /** The packet function's single exit block. */
  public Block exitBlock() { return exitBlock; }
  public void setExitBlock(Block bl) { this.exitBlock = bl; }
  /** The mask at the function's entry: all-true, or the mask parameter of a masked variant. */
  public Value entryMask() { return entryMask; }
  public void setEntryMask(Value m) { this.entryMask = m; }
  /** The variable holding the return value (null for void). */
  public SlotSsa.Var retSlot() { return retSlot; }
  public void setRetSlot(SlotSsa.Var v) { this.retSlot = v; }
  /** The scalar block being emitted. */
  public Block currentBlock() { return currentBlock; }
  public void setCurrentBlock(Block bl) { this.currentBlock = bl; }
  /** The mask of the scalar block being emitted (the lanes that execute it). */
  public Value currentMask() { return currentMask; }
  public void setCurrentMask(Value m) { this.currentMask = m; }
  /** Scalar block -> its packet block (head). */
  public Map<Block, Block> heads() { return heads; }
  /** Loop header -> the block forward edges enter the loop through (the any-lane test before it). */
  public Map<Block, Block> loopEnters() { return loopEnters; }
  /** Scalar block -> its mask variable (4.2). */
  /** Each scalar block's mask variable, by the block's address. */
  public org.packetizer.core.ir.AddressMap<SlotSsa.Var> maskSlots() { return maskSlots; }
  /** Scalar phi -> its blended variable (4.3). */
  /** Each scalar phi's variable, by the phi's address. */
  public org.packetizer.core.ir.AddressMap<SlotSsa.Var> phiSlots() { return phiSlots; }
  /** Scalar value used outside its block -> its variable. */
  /** The variables of scalar values used in other packet blocks, by the value's address. */
  public org.packetizer.core.ir.AddressMap<SlotSsa.Var> valueSlots() { return valueSlots; }
  /** Scalar block -> where its incoming state is reset (see the mask generator). */
  public Map<Block, Block> initAnchors() { return initAnchors; }
  /** Scalar parameter -> its packet value. */
  public Map<Value, Value> packetParams() { return packetParams; }
  /** Memory: whether every lane of a value was computed (see the memory widener). */
  public Map<Value, Boolean> lanesComputed() { return lanesComputed; }
  /** The current block's packet values (and slot reads cached in it). */
  public Map<Value, Value> localPackets() { return localPackets; }
  /** Broadcasts cached in the current block. */
  public Map<Value, Value> splats() { return splats; }
  /** Broadcasts of uniform parameters (in the entry block). */
  public Map<Value, Value> paramSplats() { return paramSplats; }

  private record Pending(Remark.Kind kind, String block, Value inst, String message) {}

  private final List<Pending> pending = new ArrayList<>();

  /**
   * Records a remark and passes it to the user's sink. Remarks naming an instruction are held until
   * {@link #flushRemarks()}: the instruction's text comes from one printout of its function (LLVM's
   * printer numbers the whole function for every instruction printed alone, which made remarks
   * quadratic in the function's size).
   */
  public void remark(Remark.Kind kind, Block block, Value inst, String message) {
    pending.add(new Pending(kind, block == null ? null : block.name(), inst, message));
    if (inst == null && pending.size() == 1) flushRemarks();
  }

  /** Delivers the held remarks (call while their instructions still exist). */
  public void flushRemarks() {
    if (pending.isEmpty()) return;
    List<Pending> batch = List.copyOf(pending);
    pending.clear();
    Map<Value, String> texts = new HashMap<>();
    Set<Long> printed = new HashSet<>();
    for (Pending p : batch) {
      if (!wantsText(p) || texts.containsKey(p.inst())) continue;
      Optional<Function> fn = p.inst().isInstruction() ? p.inst().block().map(Block::parent) : Optional.empty();
      if (fn.isPresent() && printed.add(fn.get().ref().address())) texts.putAll(instructionTexts(fn.get()));
    }
    for (Pending p : batch) {
      String text = null;
      if (wantsText(p)) {
        text = texts.get(p.inst());
        if (text == null) text = p.inst().print();
      }
      Remark r = new Remark(p.kind(), scalarName, p.block(), text, p.message());
      remarks.add(r);
      options.remarks().accept(r);
    }
  }

  /**
   * Whether a held remark gets its instruction's text: when it names one and the options ask for the
   * texts; a cross-lane race always (a warning that names the instruction, see
   * {@link org.packetizer.core.api.PacketizerOptions#remarkInstructions()}).
   */
  private boolean wantsText(Pending p) {
    return p.inst() != null && (options.remarkInstructions() || p.kind() == Remark.Kind.CROSS_LANE_RACE);
  }

  /**
   * Every instruction's text, from one printout of the function (lines of the body in order, debug
   * records skipped); empty when the lines do not line up with the instructions.
   */
  static Map<Value, String> instructionTexts(Function fn) {
    List<Value> insts = new ArrayList<>();
    for (Block bl : fn.blocks()) {
      for (Value v = bl.firstInstruction(); v != null; v = v.nextInstruction()) insts.add(v);
    }
    String[] lines = fn.print().split("\n");
    List<String> body = new ArrayList<>();
    boolean in = false;
    for (String line : lines) {
      if (!in) {
        if (line.startsWith("define ")) in = true;
        continue;
      }
      if (line.startsWith("}")) break;
      if (!line.startsWith("  ")) continue;
      String t = line.strip();
      if (t.isEmpty() || t.startsWith("#dbg_") || t.startsWith(";")) continue;
      boolean continuation = line.startsWith("   ") || t.startsWith("]");
      if (continuation && !body.isEmpty()) {
        body.set(body.size() - 1, body.getLast() + "\n" + line);  // e.g. a switch's case list
      } else {
        body.add(line);
      }
    }
    if (body.size() != insts.size()) return Map.of();
    Map<Value, String> out = new HashMap<>(insts.size() * 2);
    for (int i = 0; i < insts.size(); i++) out.put(insts.get(i), body.get(i));
    return out;
  }
}
