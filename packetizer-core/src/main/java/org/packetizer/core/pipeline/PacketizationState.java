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
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.ir.Value;
import org.packetizer.core.linearize.Schedule;
import org.packetizer.core.mapping.UserMappings;

/**
 * Everything one packetization knows, in one place (RV's VectorizationInfo): the prepared scalar
 * function, its analyses (shapes, masks' partiality, loops), the schedule, options, statistics and
 * remarks. Phases read it; none reaches into another phase's internals.
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
    Map<Long, String> texts = new HashMap<>();
    Set<Long> printed = new HashSet<>();
    for (Pending p : batch) {
      if (p.inst() == null || texts.containsKey(p.inst().ref().address())) continue;
      Optional<Function> fn = p.inst().isInstruction() ? p.inst().block().map(Block::parent) : Optional.empty();
      if (fn.isPresent() && printed.add(fn.get().ref().address())) texts.putAll(instructionTexts(fn.get()));
    }
    for (Pending p : batch) {
      String text = null;
      if (p.inst() != null) {
        text = texts.get(p.inst().ref().address());
        if (text == null) text = p.inst().print();
      }
      Remark r = new Remark(p.kind(), scalarName, p.block(), text, p.message());
      remarks.add(r);
      options.remarks().accept(r);
    }
  }

  /**
   * Every instruction's text, from one printout of the function (lines of the body in order, debug
   * records skipped); empty when the lines do not line up with the instructions.
   */
  static Map<Long, String> instructionTexts(Function fn) {
    List<Long> insts = new ArrayList<>();
    for (Block bl : fn.blocks()) {
      for (Value v = bl.firstInstruction(); v != null; v = v.nextInstruction()) insts.add(v.ref().address());
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
    Map<Long, String> out = new HashMap<>();
    for (int i = 0; i < insts.size(); i++) out.put(insts.get(i), body.get(i));
    return out;
  }
}
