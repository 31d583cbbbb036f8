package org.packetizer.core.pipeline;

import java.util.ArrayList;
import java.util.List;
import org.packetizer.analysis.cfg.CfgAnalyses;
import org.packetizer.analysis.divergence.DivergenceInfo;
import org.packetizer.core.adapt.LlvmSsaFunction;
import org.packetizer.core.api.PacketizerOptions;
import org.packetizer.core.api.ParamKind;
import org.packetizer.core.api.Remark;
import org.packetizer.core.ir.Block;
import org.packetizer.core.ir.Function;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.Module;
import org.packetizer.core.ir.Value;
import org.packetizer.core.linearize.Schedule;
import org.packetizer.core.mapping.UserMappings;

/**
 * Everything one packetization knows, in one place (RV's VectorizationInfo): the prepared scalar
 * function, its analyses (shapes, masks' partiality, loops), the schedule, options, statistics and
 * remarks. Phases read it; none reaches into another phase's internals.
 */
public final class PacketizationState {
  private final Module module;
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
  private final org.packetizer.core.widen.SoaPointers soa;
  private final CalleePacketizer callees;
  private final Stats stats = new Stats();
  private final List<Remark> remarks = new ArrayList<>();

  public PacketizationState(Module module, PacketizerOptions options, String scalarName, Function scalar,
      LlvmSsaFunction ssa, CfgAnalyses<Block> cfg, DivergenceInfo<Block, Value> divergence, Schedule<Block> schedule,
      List<ParamKind> paramKinds, UserMappings mappings, PureCalls pureCalls, org.packetizer.core.widen.SoaPointers soa,
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

  public Module module() { return module; }
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
  public org.packetizer.core.widen.SoaPointers soa() { return soa; }
  public List<Remark> remarks() { return remarks; }

  public boolean isPureCall(Value call) { return pureCalls.test(call); }

  /** Records a remark and passes it to the user's sink. */
  public void remark(Remark.Kind kind, Block block, Value inst, String message) {
    Remark r = new Remark(kind, scalarName, block == null ? null : block.name(), inst == null ? null : inst.print(), message);
    remarks.add(r);
    options.remarks().accept(r);
  }
}
