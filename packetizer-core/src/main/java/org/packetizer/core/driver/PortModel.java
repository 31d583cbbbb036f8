package org.packetizer.core.driver;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.packetizer.core.ir.Block;
import org.packetizer.core.ir.Function;
import org.packetizer.core.ir.Opcode;
import org.packetizer.core.ir.Type;
import org.packetizer.core.ir.Value;

/**
 * The port model of a loop-free PACKET function on x86 (issue 16, fifteenth round; knob
 * {@code -Dpacketizer.interleave.straightLine=ports}): a cycle-stepped schedule of consecutive driver steps, in the
 * manner of llvm-mca but over the IR, with the target's dispatch width, reorder window, execution ports and latencies
 * from a fact table ({@link Machine}). The facts are LLVM's own scheduling models as the bundled {@code llvm-mca}
 * prints them ({@code -mcpu=x86-64-v2}: the Sandy Bridge model; {@code haswell}; {@code znver4}), per operation class
 * (ports, micro-operations, latency), with one deviation: a hardware gather is charged one load per lane (LLVM's
 * znver4 model lists a gather as one load, which the hardware does not do).
 *
 * <p>What it models, generically (nothing fitted to a kernel): the packet's operations along its costliest path
 * (helpers inlined at their calls) are dispatched in program order at the machine's width into a window of the
 * machine's size that retires in order; each operation waits for its operands (latency chains) and for a free port of
 * its class (port pressure: loads, stores, floating-point add and multiply pipes, integer ALUs, the shuffle port,
 * the lane moves between vector and general registers), and 512-bit operations occupy a 256-bit pipe twice on a
 * double-pumped core. k chains per step are the packet's vector and per-lane operations k times, each next to its
 * twin (as the code generator splits a k·W-lane operation), while scalar operations common to the lanes stay single.
 * An operation waits in the scheduler from its dispatch until it issues, and a full scheduler stalls dispatch, so the
 * core sees fewer operations ahead than its reorder window holds; and a step's operations retire only after its last
 * one. Both limit how far one chain's consecutive steps overlap, while k chains of one step finish together: a body
 * whose critical path is long against its issue time gains from a second chain unless its ports are the bound (the
 * window estimate, {@link PacketEstimate}, sees neither the ports nor the scheduler).
 * The cycles per packet are measured over the second half of a run of steps long enough to fill the window; the gain
 * of two chains is one chain's cycles over two chains'.
 */
public final class PortModel {
  private PortModel() {}

  /** An operation class: the ports it may use (a bit per port), its micro-operations, latency and port occupancy. */
  record Fact(int ports, int uops, double latency, int occupancy) {}

  /** The operation classes. */
  enum Kind { FADD, FMUL, FMA, FCMP, FCVT, FROUND, FDIV, VALU, VLOGIC, VSHIFT, VIMUL, SHUF, BLEND, EXTRACT, INSERT, VLOAD,
    SLOAD, STORE, SALU, SIMUL, BRANCH }

  /**
   * A target: dispatch width, reorder-buffer size, scheduler entries (operations dispatched and waiting for their
   * operands or a port; a full scheduler stalls dispatch), whether 512-bit operations are double-pumped, and the facts
   * per class. Port numbers are the machine's own ports (bit i = port i in the order of the llvm-mca resource list).
   */
  record Machine(String name, int dispatch, int window, int scheduler, boolean doublePumped512, Map<Kind, Fact> facts) {
    Fact fact(Kind k) { return facts.get(k); }
  }

  private static int p(int... ports) {
    int m = 0;
    for (int x : ports) m |= 1 << x;
    return m;
  }

  /**
   * {@code -mcpu=x86-64-v2}: LLVM schedules it with the Sandy Bridge model (SBPort0/1/5 for ALU and vector work,
   * SBPort23 two loads, SBPort4 store data; dispatch 4, micro-op buffer 168; a unified scheduler of 54 entries). Ports here: 0, 1, 5, 2, 3 (loads), 4
   * (store data); 6 the divider.
   */
  static final Machine SANDY_BRIDGE = new Machine("x86-64-v2 (LLVM's Sandy Bridge model)", 4, 168, 54, false, Map.ofEntries(
      Map.entry(Kind.FADD, new Fact(p(1), 1, 3, 1)), Map.entry(Kind.FMUL, new Fact(p(0), 1, 5, 1)),
      Map.entry(Kind.FMA, new Fact(p(0), 1, 8, 1)), // no FMA: a multiply and an add
      Map.entry(Kind.FCMP, new Fact(p(1), 1, 3, 1)), Map.entry(Kind.FCVT, new Fact(p(1), 1, 3, 1)),
      Map.entry(Kind.FROUND, new Fact(p(1), 1, 3, 1)), Map.entry(Kind.FDIV, new Fact(p(6), 1, 14, 14)),
      Map.entry(Kind.VALU, new Fact(p(1, 5), 1, 1, 1)), Map.entry(Kind.VLOGIC, new Fact(p(0, 1, 5), 1, 1, 1)),
      Map.entry(Kind.VSHIFT, new Fact(p(0), 1, 1, 1)), Map.entry(Kind.VIMUL, new Fact(p(0), 1, 5, 1)),
      Map.entry(Kind.SHUF, new Fact(p(5), 1, 1, 1)), Map.entry(Kind.BLEND, new Fact(p(0), 2, 2, 1)),
      Map.entry(Kind.EXTRACT, new Fact(p(0, 5), 2, 3, 1)), Map.entry(Kind.INSERT, new Fact(p(1, 5), 2, 2, 1)),
      Map.entry(Kind.VLOAD, new Fact(p(2, 3), 1, 6, 1)), Map.entry(Kind.SLOAD, new Fact(p(2, 3), 1, 5, 1)),
      Map.entry(Kind.STORE, new Fact(p(4), 1, 1, 1)), Map.entry(Kind.SALU, new Fact(p(0, 1, 5), 1, 1, 1)),
      Map.entry(Kind.SIMUL, new Fact(p(1), 1, 3, 1)), Map.entry(Kind.BRANCH, new Fact(p(5), 1, 1, 1))));

  /**
   * {@code -mcpu=haswell} (HWPort0-7; dispatch 4, micro-op buffer 192, a unified scheduler of 60 entries): FP add on port 1 only, multiply and FMA on 0
   * and 1, shuffles and blends on 5, two loads (2, 3), store data 4; the gather (34 micro-operations, latency 22) is
   * charged per lane. Ports here: 0, 1, 5, 6, 2, 3, 4; 7 the divider.
   */
  static final Machine HASWELL = new Machine("haswell", 4, 192, 60, false, Map.ofEntries(
      Map.entry(Kind.FADD, new Fact(p(1), 1, 3, 1)), Map.entry(Kind.FMUL, new Fact(p(0, 1), 1, 5, 1)),
      Map.entry(Kind.FMA, new Fact(p(0, 1), 1, 5, 1)), Map.entry(Kind.FCMP, new Fact(p(1), 1, 3, 1)),
      Map.entry(Kind.FCVT, new Fact(p(1), 1, 3, 1)), Map.entry(Kind.FROUND, new Fact(p(1), 2, 6, 1)),
      Map.entry(Kind.FDIV, new Fact(p(7), 1, 21, 14)), Map.entry(Kind.VALU, new Fact(p(1, 5), 1, 1, 1)),
      Map.entry(Kind.VLOGIC, new Fact(p(0, 1, 5), 1, 1, 1)), Map.entry(Kind.VSHIFT, new Fact(p(0), 1, 1, 1)),
      Map.entry(Kind.VIMUL, new Fact(p(0), 2, 10, 1)), Map.entry(Kind.SHUF, new Fact(p(5), 1, 3, 1)),
      Map.entry(Kind.BLEND, new Fact(p(5), 2, 2, 1)), Map.entry(Kind.EXTRACT, new Fact(p(0, 5), 2, 2, 1)),
      Map.entry(Kind.INSERT, new Fact(p(5), 2, 2, 1)), Map.entry(Kind.VLOAD, new Fact(p(4, 5), 1, 7, 1)),
      Map.entry(Kind.SLOAD, new Fact(p(4, 5), 1, 5, 1)), Map.entry(Kind.STORE, new Fact(p(6), 1, 1, 1)),
      Map.entry(Kind.SALU, new Fact(p(0, 1, 2, 3), 1, 1, 1)), Map.entry(Kind.SIMUL, new Fact(p(1), 1, 3, 1)),
      Map.entry(Kind.BRANCH, new Fact(p(0, 3), 1, 1, 1))));

  /**
   * {@code -mcpu=znver4} (Zn4FP0-3, FP45, ALU0-3, three loads, two stores; dispatch 6, micro-op buffer 320; the FP
   * scheduler's 64 entries behind a 64-entry non-scheduling queue, taken as 128; 512-bit operations occupy a pipe
   * twice): FP multiply/FMA on FP0-1, FP add on FP2-3, integer vector ALU on FP0-3,
   * shuffles on FP1-2, lane moves to and from general registers on FP45. Ports here: 0-3 FP0-3, 4-5 FP45, 6-8 loads,
   * 9-10 stores, 11-14 ALU0-3; 15 the divider.
   */
  static final Machine ZNVER4 = new Machine("znver4", 6, 320, 128, true, Map.ofEntries(
      Map.entry(Kind.FADD, new Fact(p(2, 3), 1, 3, 1)), Map.entry(Kind.FMUL, new Fact(p(0, 1), 1, 3, 1)),
      Map.entry(Kind.FMA, new Fact(p(0, 1), 1, 4, 1)), Map.entry(Kind.FCMP, new Fact(p(0, 1), 1, 2, 1)),
      Map.entry(Kind.FCVT, new Fact(p(2, 3), 1, 3, 1)), Map.entry(Kind.FROUND, new Fact(p(2, 3), 1, 3, 1)),
      Map.entry(Kind.FDIV, new Fact(p(15), 1, 11, 3)), Map.entry(Kind.VALU, new Fact(p(0, 1, 2, 3), 1, 1, 1)),
      Map.entry(Kind.VLOGIC, new Fact(p(0, 1, 2, 3), 1, 1, 1)), Map.entry(Kind.VSHIFT, new Fact(p(1, 2), 1, 1, 1)),
      Map.entry(Kind.VIMUL, new Fact(p(0, 3), 1, 3, 1)), Map.entry(Kind.SHUF, new Fact(p(1, 2), 1, 2, 1)),
      Map.entry(Kind.BLEND, new Fact(p(0, 1), 1, 1, 1)), Map.entry(Kind.EXTRACT, new Fact(p(4, 5), 2, 1, 1)),
      Map.entry(Kind.INSERT, new Fact(p(4, 5), 2, 2, 1)), Map.entry(Kind.VLOAD, new Fact(p(6, 7, 8), 1, 8, 1)),
      Map.entry(Kind.SLOAD, new Fact(p(6, 7, 8), 1, 5, 1)), Map.entry(Kind.STORE, new Fact(p(9, 10), 1, 1, 1)),
      Map.entry(Kind.SALU, new Fact(p(11, 12, 13, 14), 1, 1, 1)), Map.entry(Kind.SIMUL, new Fact(p(12), 1, 3, 1)),
      Map.entry(Kind.BRANCH, new Fact(p(11, 14), 1, 1, 1))));

  /** The knob naming the machine the port model judges for. */
  static final String MACHINE_KNOB = "packetizer.interleave.portsMachine";

  /**
   * The machine of an x86 target CPU name ({@code null} for a target the table does not cover: not x86), as the knob
   * {@code -Dpacketizer.interleave.portsMachine=auto|target|host|CPU} says: {@code auto} (the default) the table of
   * the function's {@code target-cpu} when it names a microarchitecture, and for a generic ISA level (x86-64,
   * x86-64-v2/v3/v4, none) the table of the CPU this process runs on when it is an x86 CPU (the level says which
   * instructions, not which core will run them); {@code target} always the {@code target-cpu}'s table (a generic level
   * gets the model LLVM schedules it with: x86-64-v2 Sandy Bridge, v3 Haswell); {@code host} the host's; a CPU name
   * that CPU's.
   */
  static Machine machineOf(String cpu, boolean arm) {
    if (arm) return null;
    String knob = System.getProperty(MACHINE_KNOB, "auto").strip();
    String target = cpu == null ? "" : cpu.strip();
    String c = switch (knob) {
      case "auto" -> generic(target) && !crossHost() ? org.packetizer.core.ir.Llvm.hostCpuName() : target;
      case "target" -> target;
      case "host" -> org.packetizer.core.ir.Llvm.hostCpuName();
      case "" -> throw new IllegalArgumentException(MACHINE_KNOB + ": expected auto, target, host or a CPU name");
      default -> knob;
    };
    return table(c == null ? "" : c);
  }

  /** Whether {@code cpu} is a generic x86 ISA level rather than a microarchitecture. */
  static boolean generic(String cpu) {
    String c = cpu.toLowerCase(Locale.ROOT);
    return c.isEmpty() || c.equals("generic") || c.equals("x86-64") || c.startsWith("x86-64-v");
  }

  /** Whether this process does not run on x86 (its host CPU then says nothing about an x86 target). */
  private static boolean crossHost() {
    String a = System.getProperty("os.arch", "");
    return !(a.equals("amd64") || a.equals("x86_64"));
  }

  /** The table of a CPU name. */
  static Machine table(String cpu) {
    String c = cpu.toLowerCase(Locale.ROOT);
    if (c.startsWith("znver")) return ZNVER4; // Zen 1-3: the same pipes at 128/256 bits
    if (c.equals("haswell") || c.equals("broadwell") || c.startsWith("skylake") || c.equals("x86-64-v3")
        || c.startsWith("alderlake") || c.startsWith("cascadelake") || c.startsWith("icelake") || c.equals("x86-64-v4")
        || c.startsWith("sapphirerapids") || c.startsWith("tigerlake") || c.startsWith("cooperlake")) return HASWELL;
    return SANDY_BRIDGE;
  }

  /** The estimate: cycles per packet with one and two chains. */
  public record Estimate(String function, String machine, int ops, int laneOps, double one, double two) {
    public double gain() { return two <= 0 ? 1 : one / two; }

    /** The remark's text. */
    public String describe() {
      return String.format(Locale.ROOT, "the packet @%s's port model (%s): %d operations (%d per lane or vector), %.1f cycles"
          + " per packet with one chain, %.1f with two, gain %.2f", function, machine, ops, laneOps, one, two, gain());
    }
  }

  /** One IR operation of the trace: class, registers, operands (indices into the trace, -1: ready at the start). */
  record Op(Kind kind, int count, double latency, int[] deps, boolean perChain, int occupancy) {}

  /** A limit on the trace (operations after inlining) beyond which the schedule is not run. */
  static final int MAX_TRACE = 40_000;

  /** The estimate of {@code packet} with {@code regBits}-bit vector registers on {@code machine}. */
  static Estimate of(Function packet, int regBits, Machine machine) {
    Trace t = new Trace(regBits, machine);
    t.function(packet, new int[0], 0);
    int lane = 0;
    for (Op o : t.ops) if (o.perChain) lane++;
    if (t.ops.size() > MAX_TRACE) return new Estimate(packet.name(), machine.name(), t.ops.size(), lane, 1, 1);
    double one = schedule(t.ops, 1, machine);
    double two = schedule(t.ops, 2, machine);
    return new Estimate(packet.name(), machine.name(), t.ops.size(), lane, one, two);
  }

  /** The estimate of {@code packet} for its target CPU ({@code null}: not a target of the table). */
  public static Estimate of(Function packet, int regBits, String cpu, boolean arm) {
    Machine m = machineOf(cpu, arm);
    return m == null ? null : of(packet, regBits, m);
  }

  /** The trace: the packet's operations along its costliest path, helpers inlined. */
  private static final class Trace {
    final int regBits;
    final Machine machine;
    final List<Op> ops = new ArrayList<>();

    Trace(int regBits, Machine machine) {
      this.regBits = regBits;
      this.machine = machine;
    }

    /** Appends {@code f}'s operations with its parameters produced by {@code args}; returns the ops its returns read. */
    int[] function(Function f, int[] args, int depth) {
      Map<Long, int[]> def = new HashMap<>(); // value -> trace indices it depends on (an op's own index, or its inputs)
      Map<Long, Boolean> lane = new HashMap<>();
      for (int i = 0; i < f.paramCount(); i++) {
        def.put(f.param(i).id(), i < args.length && args[i] >= 0 ? new int[] {args[i]} : new int[0]);
        lane.put(f.param(i).id(), f.param(i).type().isVector() || i < args.length && args[i] >= 0 && ops.get(args[i]).perChain);
      }
      List<Integer> rets = new ArrayList<>();
      for (Block b : hotPath(f)) {
        for (Value v : b.instructions()) {
          if (ops.size() > MAX_TRACE) return new int[0];
          List<Integer> in = new ArrayList<>();
          boolean perLane = v.type().isVector();
          for (Value o : v.operands()) {
            if (o == null) continue;
            int[] d = def.get(o.id());
            if (d == null) continue;
            for (int x : d) in.add(x);
            if (Boolean.TRUE.equals(lane.get(o.id()))) perLane = true;
          }
          int[] deps = in.stream().mapToInt(Integer::intValue).distinct().toArray();
          Opcode op = v.opcode();
          if (op == Opcode.RET) {
            for (int x : deps) rets.add(x);
            continue;
          }
          Function callee = op == Opcode.CALL ? v.calledFunction().orElse(null) : null;
          int idx;
          if (callee != null && !callee.isDeclaration() && depth < PacketEstimate.MAX_DEPTH) {
            // a helper inlined at its call: each parameter reads its operand (a join of no cost), two slots of call
            int[] a = new int[callee.paramCount()];
            for (int i = 0; i < a.length; i++) {
              a[i] = -1;
              if (i >= v.numOperands() - 1) continue;
              Value o = v.operand(i);
              int[] d = def.getOrDefault(o.id(), new int[0]);
              a[i] = add(Kind.SALU, 0, d, Boolean.TRUE.equals(lane.get(o.id())) || o.type().isVector());
            }
            add(Kind.SALU, 2, new int[0], false);
            int[] r = function(callee, a, depth + 1);
            idx = add(Kind.SALU, 0, r, perLane || v.type().isVector());
          } else {
            idx = emit(v, op, deps, perLane);
          }
          if (idx == -2) { // free: passes its operands on
            def.put(v.id(), deps);
          } else {
            def.put(v.id(), idx < 0 ? new int[0] : new int[] {idx});
          }
          lane.put(v.id(), perLane);
        }
      }
      return rets.stream().mapToInt(Integer::intValue).distinct().toArray();
    }

    /** Appends the operation(s) of {@code v}; its result's index, or -2 when it is free (no operation). */
    int emit(Value v, Opcode op, int[] deps, boolean perLane) {
      Type t = v.type();
      boolean vec = t.isVector();
      int parts = parts(t);
      boolean fp = t.scalarType().isFloat() || t.scalarType().isDouble() || t.scalarType().isHalf();
      switch (op) {
        case PHI, BITCAST, FREEZE, BR, UNREACHABLE, SWITCH, ALLOCA, EXTRACTVALUE, INSERTVALUE, PTRTOINT, INTTOPTR:
          return -2;
        case GEP:
          return vec ? add(Kind.VALU, 2 * parts, deps, perLane) : add(Kind.SALU, 1, deps, perLane);
        case TRUNC, ZEXT, SEXT:
          return vec ? add(Kind.SHUF, parts, deps, perLane) : -2;
        case EXTRACTELEMENT: {
          // a lane above the low 128 bits: its 128-bit part extracted first (vextract*128 / 32x4)
          Value ix = v.operand(1);
          Type vt = v.operand(0).type();
          long elemBits = PacketEstimate.scalarBitsOf(vt.elementType());
          if (bits(vt) > 128 && (!ix.isConstantInt() || ix.constIntZExt() * elemBits >= 128)) {
            int sh = add(Kind.SHUF, 1, deps, true);
            return add(Kind.EXTRACT, 1, new int[] {sh}, true);
          }
          return add(Kind.EXTRACT, 1, deps, true);
        }
        case INSERTELEMENT: {
          // a loaded scalar is inserted straight from memory (pinsrd/vpinsrd with a memory operand: the load, counted
          // at the load, and one shuffle-port operation); a computed one moves from a general register (two operations)
          Value x = v.operand(1);
          boolean fromMemory = x.isInstruction() && x.opcode() == Opcode.LOAD;
          return add(fromMemory ? Kind.SHUF : Kind.INSERT, 1, deps, true);
        }
        case SHUFFLEVECTOR:
          return add(Kind.SHUF, parts, deps, perLane);
        case LOAD:
          return vec ? add(Kind.VLOAD, parts, deps, perLane) : add(Kind.SLOAD, 1, deps, perLane);
        case STORE:
          return add(Kind.STORE, parts(v.operand(0).type()), deps, perLane);
        case FADD, FSUB:
          return add(Kind.FADD, parts, deps, perLane);
        case FMUL:
          return add(Kind.FMUL, parts, deps, perLane);
        case FNEG:
          return add(Kind.VLOGIC, parts, deps, perLane);
        case FCMP:
          return add(Kind.FCMP, parts(v.operand(0).type()), deps, perLane);
        case SITOFP, UITOFP, FPTOSI, FPTOUI, FPEXT, FPTRUNC:
          return add(Kind.FCVT, Math.max(parts, parts(v.operand(0).type())), deps, perLane);
        case FDIV, FREM:
          return add(Kind.FDIV, parts, deps, perLane);
        case UDIV, SDIV, UREM, SREM:
          return add(Kind.FDIV, vec ? t.vectorSize() : 1, deps, perLane);
        case MUL:
          return vec ? add(Kind.VIMUL, parts, deps, perLane) : add(Kind.SIMUL, 1, deps, perLane);
        case SHL, LSHR, ASHR:
          return vec ? add(Kind.VSHIFT, parts, deps, perLane) : add(Kind.SALU, 1, deps, perLane);
        case AND, OR, XOR:
          return vec ? add(Kind.VLOGIC, parts, deps, perLane) : add(Kind.SALU, 1, deps, perLane);
        case ICMP:
          return vec ? add(Kind.VALU, parts(v.operand(0).type()), deps, perLane) : add(Kind.SALU, 1, deps, perLane);
        case SELECT:
          return vec ? add(Kind.BLEND, parts, deps, perLane) : add(Kind.SALU, 1, deps, perLane);
        case CALL:
          return call(v, deps, perLane, parts, fp);
        default:
          return vec ? add(fp ? Kind.FADD : Kind.VALU, parts, deps, perLane) : add(Kind.SALU, 1, deps, perLane);
      }
    }

    int call(Value v, int[] deps, boolean perLane, int parts, boolean fp) {
      Function callee = v.calledFunction().orElse(null);
      String name = callee == null ? "" : callee.name();
      if (name.startsWith("llvm.masked.gather")) {
        int lanes = v.type().isVector() ? v.type().vectorSize() : 1;
        return add(Kind.SLOAD, lanes, deps, true);
      }
      if (name.startsWith("llvm.masked.scatter")) {
        int lanes = v.operand(0).type().isVector() ? v.operand(0).type().vectorSize() : 1;
        return add(Kind.STORE, lanes, deps, true);
      }
      if (name.startsWith("llvm.masked.load")) return add(Kind.VLOAD, parts, deps, perLane);
      if (name.startsWith("llvm.masked.store")) return add(Kind.STORE, parts(v.operand(0).type()), deps, perLane);
      if (name.startsWith("llvm.sqrt")) return add(Kind.FDIV, parts, deps, perLane);
      if (name.startsWith("llvm.fma") || name.startsWith("llvm.fmuladd")) return add(Kind.FMA, parts, deps, perLane);
      if (name.startsWith("llvm.minnum") || name.startsWith("llvm.maxnum") || name.startsWith("llvm.minimum")
          || name.startsWith("llvm.maximum")) return add(Kind.FCMP, parts, deps, perLane);
      if (name.startsWith("llvm.floor") || name.startsWith("llvm.ceil") || name.startsWith("llvm.trunc")
          || name.startsWith("llvm.round") || name.startsWith("llvm.rint") || name.startsWith("llvm.nearbyint")) {
        return add(Kind.FROUND, parts, deps, perLane);
      }
      if (name.startsWith("llvm.fabs") || name.startsWith("llvm.copysign")) return add(Kind.VLOGIC, parts, deps, perLane);
      if (name.startsWith("llvm.lifetime") || name.startsWith("llvm.assume") || name.startsWith("llvm.experimental.noalias")
          || name.startsWith("llvm.dbg")) return -2;
      if (name.startsWith("llvm.")) return v.type().isVector() ? add(fp ? Kind.FADD : Kind.VALU, parts, deps, perLane)
          : add(Kind.SALU, 1, deps, perLane);
      // an unknown function: opaque; a call's overhead and a long latency, as PacketEstimate
      int i = add(Kind.SALU, 10, deps, perLane);
      return i;
    }

    int add(Kind k, int count, int[] deps, boolean perChain) {
      Fact f = machine.fact(k);
      double lat = count == 0 ? 0 : f.latency();
      // a 512-bit operation on a double-pumped core takes its 256-bit vector pipe twice
      boolean vectorPipe = k != Kind.SLOAD && k != Kind.SALU && k != Kind.SIMUL && k != Kind.BRANCH && k != Kind.EXTRACT
          && k != Kind.INSERT && k != Kind.STORE;
      int occ = f.occupancy() * (machine.doublePumped512() && regBits >= 512 && vectorPipe ? 2 : 1);
      ops.add(new Op(k, count, lat, deps, perChain, occ));
      return ops.size() - 1;
    }

    int parts(Type t) {
      if (!t.isVector()) return 1;
      return (int) Math.max(1, (bits(t) + regBits - 1) / regBits);
    }

    static long bits(Type t) {
      return t.isVector() ? (long) t.vectorSize() * PacketEstimate.scalarBitsOf(t.elementType()) : PacketEstimate.scalarBitsOf(t);
    }
  }

  /**
   * The blocks of the costliest path from the entry (most instructions), in order: an if-converted packet is mostly
   * one block; a rare path (a branch around a cold piece) is counted only where it is the longer way.
   */
  static List<Block> hotPath(Function f) {
    List<Block> rpo = PacketEstimate.reversePostorder(f);
    Map<Long, Integer> pos = new HashMap<>();
    for (int i = 0; i < rpo.size(); i++) pos.put(rpo.get(i).id(), i);
    int[] cost = new int[rpo.size()];
    int[] from = new int[rpo.size()];
    java.util.Arrays.fill(from, -1);
    java.util.Arrays.fill(cost, Integer.MIN_VALUE);
    cost[0] = 0;
    int best = -1;
    int bestCost = Integer.MIN_VALUE;
    for (int i = 0; i < rpo.size(); i++) {
      if (cost[i] == Integer.MIN_VALUE) continue;
      Block b = rpo.get(i);
      int c = cost[i] + b.instructions().size();
      boolean exit = true;
      for (Block s : b.successors()) {
        Integer sp = pos.get(s.id());
        if (sp == null || sp <= i) continue;
        exit = false;
        if (c > cost[sp]) {
          cost[sp] = c;
          from[sp] = i;
        }
      }
      if (exit && c > bestCost) {
        best = i;
        bestCost = c;
      }
    }
    List<Block> path = new ArrayList<>();
    Set<Integer> seen = new HashSet<>();
    for (int i = best; i >= 0 && seen.add(i); i = from[i]) path.add(0, rpo.get(i));
    return path;
  }

  /**
   * Cycles per packet of {@code trace} with {@code k} chains per step on {@code m}: in-order dispatch at the machine's
   * width into a window of its size, out-of-order execution on the ports of each class as soon as the operands are
   * ready, in-order retirement at the dispatch width.
   */
  static double schedule(List<Op> trace, int k, Machine m) {
    // expand to micro-operations: the per-chain operations k times (each next to its twin), the common ones once
    int perStep = 0;
    for (Op o : trace) perStep += (o.perChain ? k : 1) * Math.max(1, o.count * m.fact(o.kind).uops());
    int window = m.window();
    int steps = Math.max(6, (int) Math.ceil(4.0 * window / Math.max(1, perStep)) + 2);
    steps = Math.min(steps, Math.max(6, 100_000 / Math.max(1, perStep)));
    int n = trace.size();
    double[] done = new double[n * k];
    long portsBits = 0;
    for (Fact f : m.facts().values()) portsBits |= f.ports();
    int nPorts = 64 - Long.numberOfLeadingZeros(portsBits);
    final int ring = 1 << 16;
    int[][] busy = new int[nPorts][ring];
    for (int[] b : busy) java.util.Arrays.fill(b, -1);
    long[] used = new long[nPorts];
    int rs = m.scheduler();
    java.util.PriorityQueue<Long> waiting = new java.util.PriorityQueue<>(); // issue cycles of dispatched, unissued ops
    int width = m.dispatch();
    // retire times of the last `window` micro-operations (ring), for the window limit
    long[] retireRing = new long[window];
    long uopCount = 0;
    long cycle = 0;
    int inCycle = 0;
    long lastRetire = 0;
    int retiredInCycle = 0;
    long stepEnd = 0;
    long[] stepEnds = new long[steps];
    for (int s = 0; s < steps; s++) {
      for (int i = 0; i < n; i++) {
        Op o = trace.get(i);
        Fact f = m.fact(o.kind);
        int copies = o.perChain ? k : 1;
        for (int c = 0; c < copies; c++) {
          double ready = 0;
          for (int d : o.deps) {
            Op od = trace.get(d);
            double t = done[d * k + (od.perChain ? Math.min(c, k - 1) : 0)];
            if (t > ready) ready = t;
          }
          int uops = o.count * f.uops();
          if (uops == 0) {
            done[i * k + c] = ready;
            continue;
          }
          double finish = ready;
          for (int u = 0; u < uops; u++) {
            // dispatch: in order, `width` per cycle, not before the micro-op `window` places earlier retired
            if (uopCount >= window) {
              long r = retireRing[(int) (uopCount % window)];
              if (r > cycle) {
                cycle = r;
                inCycle = 0;
              }
            }
            if (inCycle == width) {
              cycle++;
              inCycle = 0;
            }
            // the scheduler: an operation waits in it from dispatch until it issues; a full scheduler stalls dispatch
            while (!waiting.isEmpty() && waiting.peek() <= cycle) waiting.poll();
            while (waiting.size() >= rs) {
              long free = waiting.poll();
              if (free > cycle) {
                cycle = free;
                inCycle = 0;
              }
              while (!waiting.isEmpty() && waiting.peek() <= cycle) waiting.poll();
            }
            inCycle++;
            long start = Math.max(cycle + 1, (long) Math.ceil(ready));
            int occ = o.occupancy;
            long at = issue(busy, used, f.ports(), start, occ, ring);
            waiting.add(at);
            double fin = at + f.latency();
            if (fin > finish) finish = fin;
            // in-order retirement, `width` per cycle
            long ret = Math.max((long) Math.ceil(fin), lastRetire);
            if (ret == lastRetire) {
              if (retiredInCycle == width) {
                ret++;
                retiredInCycle = 1;
              } else {
                retiredInCycle++;
              }
            } else {
              retiredInCycle = 1;
            }
            lastRetire = ret;
            retireRing[(int) (uopCount % window)] = ret;
            uopCount++;
          }
          done[i * k + c] = finish;
        }
      }
      stepEnds[s] = lastRetire;
    }
    int half = steps / 2;
    double cycles = (stepEnds[steps - 1] - stepEnds[half - 1]) / (double) (steps - half);
    return cycles / k;
  }

  /** The first cycle at or after {@code start} where a port of {@code ports} is free for {@code occ} cycles; taken. */
  private static long issue(int[][] busy, long[] used, int ports, long start, int occ, int ring) {
    for (long t = start; ; t++) {
      int pick = -1;
      for (int p = 0; p < busy.length; p++) {
        if ((ports & (1 << p)) == 0) continue;
        boolean free = true;
        for (int j = 0; j < occ && free; j++) free = busy[p][(int) ((t + j) & (ring - 1))] != (int) (t + j);
        // of the free ports the least used so far (the scheduler balances a class over its ports)
        if (free && (pick < 0 || used[p] < used[pick])) pick = p;
      }
      if (pick >= 0) {
        for (int j = 0; j < occ; j++) busy[pick][(int) ((t + j) & (ring - 1))] = (int) (t + j);
        used[pick] += occ;
        return t;
      }
    }
  }
}
