package org.packetizer.core.driver;

import org.packetizer.core.widen.MulShifts;
import org.packetizer.core.wrapper.Latency;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.packetizer.core.ir.Block;
import org.packetizer.core.ir.Function;
import org.packetizer.core.ir.Opcode;
import org.packetizer.core.ir.Type;
import org.packetizer.core.ir.Value;
import org.packetizer.core.wrapper.HardwareWidth;

/**
 * The interleave count of a driver loop (issue 16): how many independent W-lane packets one step of
 * the driver processes (IC × W elements per step, like the interleave count of LLVM's loop vectorizer).
 *
 * <p>Why: a packet call runs its loops for W lanes in one chain of dependent vector instructions. Where
 * an iteration of such a loop is bound by the LATENCY of its loop-carried recurrence (e.g. {@code z =
 * z*z + c}: a chain of fmul/fadd whose results feed the next iteration) rather than by the number of
 * instructions, the core idles; a second independent W-lane chain fills the idle slots. The driver gets
 * it by calling a packet function of IC × W lanes compiled for the same W-lane registers: LLVM's code
 * generator splits every IC·W-wide operation into IC independent W-wide ones.
 *
 * <p>The rule, per innermost loop of the scalar function (general, not tuned to any kernel):
 * <ul>
 *   <li>L, the recurrence latency: the longest chain of instruction latencies from a loop-header phi
 *       back to its own value on the back edge (per-target latency table: fadd/fmul 4 cycles on x86, 3
 *       on AArch64, fdiv and sqrt 13/11, integer ops 1, loads 5, ...; calls to unknown functions
 *       count as opaque and make the loop not latency-bound);</li>
 *   <li>T, the throughput-bound time of one iteration at W lanes: the larger of all instructions / 4
 *       issue slots, floating-point ones / 2 pipes and divisions or square roots × their reciprocal
 *       throughput, times the registers one W-lane value takes;</li>
 *   <li>the estimated gain of IC chains: time per element of one chain max(L, T) against
 *       max(L, IC·T + spills) / IC for IC interleaved chains; a loop whose exit depends on the data (not a
 *       counted loop) runs until the slowest of IC·W lanes, which we charge as a fixed
 *       {@value #DIVERGENCE_PENALTY} slowdown (a bound from an enclosing loop's counter is the same in every lane
 *       and not charged: {@link #outerCounterExits});</li>
 *   <li>register pressure: the loop's live values (header phis and values from outside the loop
 *       used inside; those computed from uniform parameters only are shared by the chains) × IC ×
 *       registers per value, against the target's vector registers (16 on SSE/AVX2, 32 on AVX-512
 *       and AArch64): each register beyond them that the loop-carried values need is a spill, a store
 *       and a reload per iteration, charged as {@value #SPILL_CYCLES} cycles to the IC chains'
 *       throughput (values from outside the loop are spilled first, once before it, and read back as
 *       memory operands: not charged, {@link #invariantSpillsFree}); more than twice the registers is
 *       never interleaved;</li>
 *   <li>IC = 2 where the gain is at least {@link #minGain} (1.0: two chains not estimated slower;
 *       {@value #MIN_GAIN} for the refill variant) and registers allow, else 1. The
 *       function's IC is the smallest over its innermost loops (no loop made slower); a function
 *       without loops gets 1 (independent driver steps already overlap in the out-of-order core),
 *       unless it calls a float exp/log/pow/sin/cos ({@link #MATH_CHAINS}), one packet value fits
 *       one register and 2W ≤ 16 lanes (measured at W4 and W8): those vector calls are long dependent chains, and a packet of them is more
 *       than the out-of-order window overlaps, so it gets 2 (knob {@code -Dpacketizer.interleaveMath}); any other
 *       function without loops is judged on its PACKET function when the caller passes it ({@link PacketEstimate}: a
 *       packet larger than the out-of-order window whose critical path is longer than its issue time gets 2 where the
 *       estimated gain is at least {@value #MIN_GAIN}; knob {@code -Dpacketizer.interleave.straightLine}).</li>
 * </ul>
 */
public final class Interleave {
  private Interleave() {}

  /** Slowdown charged to a data-dependent loop for running until the slowest of IC·W instead of W lanes. */
  public static final double DIVERGENCE_PENALTY = 1.15;
  /** The smallest estimated gain (after the divergence penalty) that makes interleaving worth its code. */
  public static final double MIN_GAIN = 1.2;

  /** Cycles a spilled register costs per iteration (a store and a reload on two load/store ports). */
  public static final double SPILL_CYCLES = 0.5;

  /** The estimate for one loop. */
  public record LoopEstimate(String header, double latency, double throughput, boolean dataDependentExit, int liveValues,
      int registersNeeded, int registers, int choice, boolean refill, boolean avx2Refill, int avx2Regs, boolean resultInCounter,
      Decomposed decomposed) {
    /** An estimate of a loop without a multiply that {@code widen.MulShifts} would rewrite. */
    public LoopEstimate(String header, double latency, double throughput, boolean dataDependentExit, int liveValues,
        int registersNeeded, int registers, int choice, boolean refill, boolean avx2Refill, int avx2Regs, boolean resultInCounter) {
      this(header, latency, throughput, dataDependentExit, liveValues, registersNeeded, registers, choice, refill, avx2Refill,
          avx2Regs, resultInCounter, null);
    }

    /** An estimate whose refill result, if any, is carried as one more live value. */
    public LoopEstimate(String header, double latency, double throughput, boolean dataDependentExit, int liveValues,
        int registersNeeded, int registers, int choice, boolean refill, boolean avx2Refill, int avx2Regs) {
      this(header, latency, throughput, dataDependentExit, liveValues, registersNeeded, registers, choice, refill, avx2Refill,
          avx2Regs, false);
    }

    /** The estimate of a plain driver's loop. */
    public LoopEstimate(String header, double latency, double throughput, boolean dataDependentExit, int liveValues,
        int registersNeeded, int registers, int choice) {
      this(header, latency, throughput, dataDependentExit, liveValues, registersNeeded, registers, choice, false, false, 0);
    }

    /** An estimate without the AVX2 refill rule's register cap ({@code avx2Regs} the cap when {@code avx2Refill}). */
    public LoopEstimate(String header, double latency, double throughput, boolean dataDependentExit, int liveValues,
        int registersNeeded, int registers, int choice, boolean refill, boolean avx2Refill) {
      this(header, latency, throughput, dataDependentExit, liveValues, registersNeeded, registers, choice, refill, avx2Refill,
          avx2Refill ? AVX2_REFILL_REGS : 0);
    }

    /** One line for a remark. */
    public String describe() {
      return String.format(Locale.ROOT, "loop at %%%s: recurrence latency %.1f cycles, throughput %.1f cycles per iteration%s,"
          + " %d live values%s (%d of %d vector registers at IC " + Math.max(2, choice) + ")%s -> IC %d", header, latency, throughput,
          !dataDependentExit ? "" : refill ? " (data-dependent exit; no charge: refill gives finished lanes new elements)"
              : " (data-dependent exit)", liveValues, !refill ? "" : resultInCounter ? " (the lane's result is the loop's counter,"
              + " one of them)" : " and the lane's result", registersNeeded, registers,
          avx2Refill ? "; AVX2 refill rule: spills not charged, at most " + avx2Regs + " registers per value over the states"
              + (avx2Regs == AVX2_WIDE_MASK_REFILL_REGS ? " (Intel, sign-extended active masks, 32-bit lanes;"
                  + " -Dpacketizer.refill.avx2WideIc=false: " + AVX2_REFILL_REGS + ")" : "")
              : "", choice) + (decomposed == null ? "" : "; " + decomposed.describe(choice));
    }
  }

  /**
   * The loop with its multiplies by constants on the recurrence as shifts and adds ({@code widen.MulShifts}, twenty-third
   * round): recurrence {@code latency} (each such multiply charged its plan's depth) and {@code throughput} (its plan's
   * operations), {@code multiplies} of them; {@code at[k]} whether the rewrite is taken at k chains (k = 1, 2, 4: the
   * packet function of k·W lanes, or the refill driver's k sets, where MulShifts' loop estimate decides it again).
   */
  public record Decomposed(double latency, double throughput, int multiplies, boolean[] at) {
    /** Whether the rewrite is taken at {@code ic} chains. */
    public boolean taken(int ic) { return at[Math.min(ic, 4)]; }

    /** The remark's part. */
    public String describe(int choice) {
      List<String> ics = new ArrayList<>();
      for (int k : new int[] {1, 2, 4}) if (at[k]) ics.add(Integer.toString(k));
      return String.format(Locale.ROOT, "%d multipl%s by constants on the recurrence as shifts and adds (-Dpacketizer.mulShifts)"
          + " at IC %s: recurrence latency %.1f cycles, throughput %.1f there", multiplies, multiplies == 1 ? "y" : "ies",
          ics.isEmpty() ? "none" : String.join(", ", ics), latency, throughput)
          + (taken(choice) ? "" : " (not at IC " + choice + ": the multiplies stay)");
    }
  }

  /** The choice for a function: {@code factor} and the per-loop estimates behind it. */
  public record Choice(int factor, boolean forced, List<LoopEstimate> loops, String straightLine) {
    /** A choice by the loop rule (or forced). */
    public Choice(int factor, boolean forced, List<LoopEstimate> loops) {
      this(factor, forced, loops, null);
    }

    /** The remark text (without the function name). */
    public String describe(int w) {
      StringBuilder sb = new StringBuilder("interleave count " + factor + " (" + factor * w + " elements per step as "
          + (factor == 1 ? "one chain" : factor + " chains") + " of " + w + " lanes)");
      if (forced) sb.append(", forced by the interleave option");
      if (loops.isEmpty()) {
        sb.append(forced ? "" : straightLine != null ? ": " + straightLine : ": no loops, so no loop-carried chain to hide");
      } else {
        sb.append(forced ? "; the automatic rule's estimates: " : ": ");
        sb.append(String.join("; ", loops.stream().map(LoopEstimate::describe).toList()));
      }
      return sb.toString();
    }
  }

  /**
   * The interleave count for the packet of {@code scalar} at {@code w} lanes: {@code forced} when it
   * is positive (1, 2 or 4), else the rule of the class comment.
   */
  public static Choice choose(Function scalar, int w, int forced) {
    return choose(scalar, w, forced, null);
  }

  /**
   * {@link #choose(Function, int, int)} knowing the parameters' kinds ({@code null}: all varying):
   * values computed from uniform parameters only are one register for all IC chains.
   */
  public static Choice choose(Function scalar, int w, int forced, List<org.packetizer.core.api.ParamKind> kinds) {
    return choose(scalar, w, forced, kinds, null);
  }

  /**
   * {@link #choose(Function, int, int, List)} with the W-lane packet function of {@code scalar} ({@code null}: not
   * known): a function without loops is then judged by {@link PacketEstimate} over the packet (knob {@link
   * #straightLineRule}).
   */
  public static Choice choose(Function scalar, int w, int forced, List<org.packetizer.core.api.ParamKind> kinds, Function packet) {
    return choose(scalar, w, forced, kinds, packet, null, null);
  }

  /**
   * {@link #choose(Function, int, int, List, Function)} for the code generated with {@code cpu} and {@code features}
   * (the options' {@code --target-cpu} / {@code --target-features}; null: the function's attributes, else the host's):
   * the register width and count and the latency table ({@link Latency}) follow that target, with the vector features
   * the CPU implies (a generic bitcode retargeted by a CPU name alone keeps its baseline features attribute).
   */
  public static Choice choose(Function scalar, int w, int forced, List<org.packetizer.core.api.ParamKind> kinds, Function packet,
      String cpu, String features) {
    Registers r = registers(scalar, cpu, features);
    return choose(scalar, w, forced, r.bits, r.count, r.arm, kinds, false, packet, r.cpu);
  }

  /** The target's vector registers as the rule sees them: width in bits, count, AArch64, CPU name for the latencies. */
  record Registers(int bits, int count, boolean arm, String cpu) {}

  /**
   * The vector registers of the target {@code cpu}/{@code features} (null: detected for {@code scalar}): AVX-512
   * (by the features or by what the CPU name implies, {@link HardwareWidth#of(String, String, String, long)}) and
   * AArch64 have 32, SSE/AVX 16; the width is the detected hardware width (a {@code prefer-vector-width} attribute
   * narrows it, not the count).
   */
  static Registers registers(Function scalar, String cpu, String features) {
    HardwareWidth.Target t = HardwareWidth.resolve(scalar, cpu, features);
    String triple = scalar.module().targetTriple();
    boolean arm = triple.startsWith("aarch64") || triple.startsWith("arm64");
    int lanes32 = Math.max(1, t.width());
    boolean avx512 = HardwareWidth.of(triple, t.cpu(), t.features(), HardwareWidth.vscaleMin(scalar)) >= HardwareWidth.AVX512;
    return new Registers(Math.max(128, lanes32 * 32), arm || avx512 ? 32 : 16, arm, t.cpu());
  }

  /** {@link #choose(Function, int, int)} with the target's register width and count given. */
  public static Choice choose(Function scalar, int w, int forced, int regBits, int registers, boolean arm) {
    return choose(scalar, w, forced, regBits, registers, arm, null);
  }

  /**
   * The rule for the refill driver's body ({@link RefillDriver}: IC independent refill states, one
   * iteration of each per step): the same estimates, but a loop whose exit depends on the data is not
   * charged {@link #DIVERGENCE_PENALTY} (a lane that finishes takes a new element instead of waiting for
   * the slowest of IC·W lanes), and each chain also carries the lane's result through the loop (one more
   * live value), unless the loop's counter holds it ({@link #resultInCounter}: the counter is a live value already).
   */
  public static Choice chooseForRefill(Function scalar, int w, int forced, List<org.packetizer.core.api.ParamKind> kinds) {
    return chooseForRefill(scalar, w, forced, kinds, null, null);
  }

  /** {@link #chooseForRefill(Function, int, int, List)} for the target {@code cpu}/{@code features} (null: detected). */
  public static Choice chooseForRefill(Function scalar, int w, int forced, List<org.packetizer.core.api.ParamKind> kinds,
      String cpu, String features) {
    Registers r = registers(scalar, cpu, features);
    return choose(scalar, w, forced, r.bits, r.count, r.arm, kinds, true, null, r.cpu);
  }

  /** The rule with everything given; {@code kinds} may be null (all parameters varying). */
  public static Choice choose(Function scalar, int w, int forced, int regBits, int registers, boolean arm,
      List<org.packetizer.core.api.ParamKind> kinds) {
    return choose(scalar, w, forced, regBits, registers, arm, kinds, false);
  }

  /** The rule with everything given; {@code refill}: the refill body's variant ({@link #chooseForRefill}). */
  public static Choice choose(Function scalar, int w, int forced, int regBits, int registers, boolean arm,
      List<org.packetizer.core.api.ParamKind> kinds, boolean refill) {
    return choose(scalar, w, forced, regBits, registers, arm, kinds, refill, null);
  }

  /** The rule with everything given and the packet function ({@code null}: not known; {@link PacketEstimate}). */
  public static Choice choose(Function scalar, int w, int forced, int regBits, int registers, boolean arm,
      List<org.packetizer.core.api.ParamKind> kinds, boolean refill, Function packet) {
    return choose(scalar, w, forced, regBits, registers, arm, kinds, refill, packet,
        HardwareWidth.resolve(scalar, null, null).cpu());
  }

  /** The rule with everything given; {@code cpu} chooses the latency table ({@link Latency#family}). */
  public static Choice choose(Function scalar, int w, int forced, int regBits, int registers, boolean arm,
      List<org.packetizer.core.api.ParamKind> kinds, boolean refill, Function packet, String cpu) {
    Latency.Family family = Latency.family(cpu, arm);
    Set<Long> uniformArgs = new HashSet<>();
    if (kinds != null) {
      for (int i = 0; i < Math.min(kinds.size(), scalar.paramCount()); i++) {
        if (kinds.get(i) instanceof org.packetizer.core.api.ParamKind.Uniform) uniformArgs.add(scalar.param(i).id());
      }
    }
    List<LoopEstimate> loops = new ArrayList<>();
    // the plain rule's lower threshold (minGain) at every width; under sixteenLaneLimit (the twelfth round's rule) only
    // up to 16 lanes per step or for a function calling no more than the intrinsics that are one instruction per
    // register (two chains of 16 lanes around the exact math helpers were then not timed; timed in the thirteenth
    // round: ao W16 21-22 % and binomial W16 1-7 % faster, docs/performance.md)
    boolean lowThreshold = 2 * w <= 16 || !sixteenLaneLimit() || onlyCheapCalls(scalar);
    boolean x86 = org.packetizer.core.ir.TargetArch.of(scalar.module().targetTriple()) == org.packetizer.core.ir.TargetArch.X86;
    for (Map.Entry<Block, Set<Block>> e : innermostLoops(scalar).entrySet()) {
      boolean inCounter = refill && resultInCounter(scalar, e.getKey(), family, x86 && !arm, uniformArgs);
      loops.add(estimate(e.getKey(), e.getValue(), w, regBits, registers, arm, family, uniformArgs, refill, lowThreshold,
          inCounter));
    }
    if (forced > 0) return new Choice(forced, true, loops);
    if (loops.isEmpty() && !refill && w * 32 <= regBits && 2 * w <= MAX_MATH_LANES && straightLineMathRule()) {
      Optional<String> math = mathChain(scalar);
      if (math.isPresent()) {
        return new Choice(2, false, loops, "no loops, but calls " + math.get() + " (a long dependent chain per packet, beyond"
            + " what the out-of-order window overlaps across steps): two packets per step");
      }
    }
    if (loops.isEmpty() && !refill && packet != null && !packet.isDeclaration() && straightLineRule()) {
      if (straightLinePorts()) {
        // the port model (PortModel): a schedule of driver steps on the target's ports, window and dispatch width
        PortModel.Estimate pm = PortModel.of(packet, regBits, cpu, arm);
        if (pm != null) {
          int ic = pm.gain() >= PORTS_MIN_GAIN ? 2 : 1;
          return new Choice(ic, false, loops, "no loops; " + pm.describe() + " -> IC " + ic);
        }
      }
      // no loops and no exact-math chain rule: the packet function's own estimate (emulated gathers, blends, the
      // helpers' bodies), two chains where it says they gain at least MIN_GAIN
      PacketEstimate est = PacketEstimate.of(packet, regBits, arm, family);
      int ic = est.gain() >= MIN_GAIN ? 2 : 1;
      return new Choice(ic, false, loops, "no loops; " + est.describe() + " -> IC " + ic);
    }
    int ic = loops.isEmpty() ? 1 : loops.stream().mapToInt(LoopEstimate::choice).min().orElse(1);
    return new Choice(ic, false, loops);
  }

  /**
   * Knob {@code -Dpacketizer.interleave.straightLine=packet|off} (read at each use; default {@code packet}): a function
   * without loops (where the exact-math rule does not apply) is judged by {@link PacketEstimate} over its packet
   * function; {@code off} keeps one chain (the rule before the fourteenth round). Measured (docs/performance.md,
   * fourteenth round): of the bench's straight-line rows it interleaves noise3 W4 and shade W16 (both 7-12 % faster in a
   * four-round forced sweep), keeps checker and stencil at one chain; on C kernels outside the bench every row it
   * interleaves was 20-38 % faster.
   */
  static boolean straightLineRule() {
    String v = straightLineMode();
    return !v.equals("off");
  }

  /** The knob's value, checked: {@code packet}, {@code ports} or {@code off}. */
  static String straightLineMode() {
    String v = System.getProperty("packetizer.interleave.straightLine", "packet").strip();
    if (v.equals("packet") || v.equals("ports") || v.equals("off")) return v;
    throw new IllegalArgumentException("packetizer.interleave.straightLine: expected packet, ports or off, not " + v);
  }

  /**
   * {@code -Dpacketizer.interleave.straightLine=ports}: a function without loops on an x86 target is judged by the port
   * model ({@link PortModel}: a schedule of driver steps on the target's ports, reorder window and dispatch width);
   * other targets keep {@link PacketEstimate}.
   */
  static boolean straightLinePorts() { return straightLineMode().equals("ports"); }

  /**
   * The port model's threshold: the smallest modelled gain of two chains that interleaves (lower than {@link
   * #MIN_GAIN}: the schedule counts what the window estimate cannot, ports and the scheduler's size, so a modelled
   * 10 % is not the window estimate's rounding).
   */
  public static final double PORTS_MIN_GAIN = 1.1;

  /** The widest interleaved packet the straight-line math rule makes (W4 and W8 measured; W16 × 2 not). */
  static final int MAX_MATH_LANES = 16;

  /** The float functions whose vector forms are long dependent chains (glibc-exact helpers, libmvec). */
  static final Set<String> MATH_CHAINS = Set.of("expf", "logf", "exp2f", "log2f", "powf", "sinf", "cosf", "llvm.exp.f32",
      "llvm.log.f32", "llvm.exp2.f32", "llvm.log2.f32", "llvm.pow.f32", "llvm.sin.f32", "llvm.cos.f32");

  /**
   * Knob {@code -Dpacketizer.interleaveMath=false}: a function without loops gets IC 1 even when it calls
   * the exp/log/pow/sin/cos family (the rule before the twelfth round); read at each use.
   */
  static boolean straightLineMathRule() { return !"false".equals(System.getProperty("packetizer.interleaveMath", "true").strip()); }

  /**
   * The first call of {@code scalar} to a function of {@link #MATH_CHAINS}, for the remark: a function
   * without loops that calls one gets IC 2. Measured (docs/performance.md, twelfth round): bs_call and
   * shade gain with two packets per step, straight-line kernels without such calls (intersect,
   * checker, noise3, stencil) lose, so those keep IC 1.
   */
  static Optional<String> mathChain(Function scalar) {
    return calleeNames(scalar).stream().filter(MATH_CHAINS::contains).findFirst();
  }

  /** The names of the functions {@code f} calls, in instruction order ("" for an indirect call). */
  private static List<String> calleeNames(Function f) {
    List<String> names = new ArrayList<>();
    for (Block b : f.blocks()) {
      for (Value v : b.instructions()) {
        if (v.opcode() == Opcode.CALL) names.add(v.calledFunction().map(Function::name).orElse(""));
      }
    }
    return names;
  }

  // ---- loops

  /** Innermost natural loops: header -> blocks (a header's loop contains no other header). */
  static Map<Block, Set<Block>> innermostLoops(Function f) {
    List<Block> blocks = f.blocks();
    Map<Long, Block> byId = new HashMap<>();
    for (Block b : blocks) byId.put(b.id(), b);
    Map<Long, List<Block>> preds = new HashMap<>();
    for (Block b : blocks) {
      for (Block s : b.successors()) preds.computeIfAbsent(s.id(), k -> new ArrayList<>()).add(b);
    }
    // back edges: edges to a block on the DFS stack
    Map<Long, List<Block>> latches = new LinkedHashMap<>();
    Set<Long> done = new HashSet<>();
    Set<Long> onStack = new HashSet<>();
    List<Block[]> stack = new ArrayList<>();
    List<Integer> next = new ArrayList<>();
    stack.add(new Block[] {f.entry()});
    next.add(0);
    onStack.add(f.entry().id());
    while (!stack.isEmpty()) {
      Block b = stack.get(stack.size() - 1)[0];
      int i = next.get(next.size() - 1);
      List<Block> succ = b.successors();
      if (i < succ.size()) {
        next.set(next.size() - 1, i + 1);
        Block s = succ.get(i);
        if (onStack.contains(s.id())) {
          latches.computeIfAbsent(s.id(), k -> new ArrayList<>()).add(b);
        } else if (!done.contains(s.id())) {
          stack.add(new Block[] {s});
          next.add(0);
          onStack.add(s.id());
        }
      } else {
        stack.remove(stack.size() - 1);
        next.remove(next.size() - 1);
        onStack.remove(b.id());
        done.add(b.id());
      }
    }
    Map<Block, Set<Block>> loops = new LinkedHashMap<>();
    for (var e : latches.entrySet()) {
      Block h = byId.get(e.getKey());
      Set<Long> body = new HashSet<>();
      body.add(h.id());
      List<Block> work = new ArrayList<>(e.getValue());
      while (!work.isEmpty()) {
        Block b = work.remove(work.size() - 1);
        if (!body.add(b.id())) continue;
        work.addAll(preds.getOrDefault(b.id(), List.of()));
      }
      Set<Block> bs = new java.util.LinkedHashSet<>();
      for (Block b : blocks) if (body.contains(b.id())) bs.add(b);
      loops.put(h, bs);
    }
    Map<Block, Set<Block>> inner = new LinkedHashMap<>();
    for (var e : loops.entrySet()) {
      boolean nested = false;
      for (Block other : loops.keySet()) {
        if (other.id() != e.getKey().id() && e.getValue().stream().anyMatch(b -> b.id() == other.id())) nested = true;
      }
      if (!nested) inner.put(e.getKey(), e.getValue());
    }
    return inner;
  }

  /**
   * Knob {@code -Dpacketizer.interleave.sixteenLaneLimit=true} (read when a driver is built; default {@code false}): above
   * 16 lanes per step the plain rule's lower threshold applies only to functions calling {@link #CHEAP_INTRINSICS}, as in
   * the twelfth round, when two chains of 16 lanes around the exact math helpers had not been timed. Timed in the
   * thirteenth round (docs/performance.md, "The interleave rule at 32 lanes and triangular loops"): ao W16 and binomial
   * W16 faster with two chains, so by default the limit is gone.
   */
  static boolean sixteenLaneLimit() {
    return "true".equals(System.getProperty("packetizer.interleave.sixteenLaneLimit", "false").strip());
  }

  /** Intrinsics that are one operation per register on every target the rule serves. */
  private static final List<String> CHEAP_INTRINSICS = List.of("llvm.sqrt.", "llvm.fabs.", "llvm.fma.", "llvm.fmuladd.",
      "llvm.minnum.", "llvm.maxnum.", "llvm.minimum.", "llvm.maximum.", "llvm.copysign.", "llvm.floor.", "llvm.ceil.",
      "llvm.trunc.", "llvm.rint.", "llvm.nearbyint.", "llvm.round.", "llvm.roundeven.", "llvm.smin.", "llvm.smax.",
      "llvm.umin.", "llvm.umax.", "llvm.abs.", "llvm.fshl.", "llvm.fshr.", "llvm.ctpop.", "llvm.lifetime.", "llvm.assume",
      "llvm.dbg.", "llvm.experimental.noalias.scope.decl");

  /** Whether every call in {@code f} is one of {@link #CHEAP_INTRINSICS}. */
  static boolean onlyCheapCalls(Function f) {
    return calleeNames(f).stream().allMatch(callee -> CHEAP_INTRINSICS.stream().anyMatch(callee::startsWith));
  }

  /**
   * Whether the refill driver keeps the lane's result in the counter of the loop at {@code header} ({@link
   * RefillDriver#counterResult} for the target, and {@link RefillSplit#counterSlot} finds the counter): then the hot loop
   * carries no result, and the refill rule counts no live value for it (the counter is one of the header's phis already).
   * {@code x86}: an x86 target; {@code uniformArgs}: the ids of the uniform parameters (a step from the counter to the
   * result may use them, as in the driver).
   */
  static boolean resultInCounter(Function scalar, Block header, Latency.Family family, boolean x86, Set<Long> uniformArgs) {
    Type rt = scalar.returnType();
    if (!rt.isInteger() || !RefillDriver.counterResult(x86, family)) return false;
    return RefillSplit.counterSlot(header.phis(), RefillSplit.reachableAvoiding(header, header), rt,
        v -> v.isConstantInt() || v.isArgument() && uniformArgs.contains(v.id())) >= 0;
  }

  private static LoopEstimate estimate(Block header, Set<Block> body, int w, int regBits, int registers, boolean arm,
      Latency.Family family,
      Set<Long> uniformArgs, boolean refill, boolean lowThreshold, boolean resultInCounter) {
    // the refill body carries the lane's result as one more value, unless the loop's counter holds it
    int result = refill && !resultInCounter ? 1 : 0;
    Set<Long> inLoop = new HashSet<>();
    for (Block b : body) inLoop.add(b.id());
    Map<Long, Value> instrs = new HashMap<>();
    double ops = 0, fpOps = 0, divCycles = 0;
    int perLaneAccesses = 0;
    boolean opaque = false;
    int maxBits = 32;
    for (Block b : body) for (Value v : b.instructions()) instrs.put(v.id(), v);
    Map<Long, Boolean> addressMemo = new HashMap<>();
    for (Block b : body) {
      for (Value v : b.instructions()) {
        Opcode op = v.opcode();
        // a load or store whose address differs between lanes is one access per lane (a gather, a
        // scatter or W scalar accesses): its cost grows with W, not with the registers a value takes
        if ((op == Opcode.LOAD || op == Opcode.STORE)
            && !sameInEveryLane(v.operand(op == Opcode.LOAD ? 0 : 1), instrs, header, uniformArgs, addressMemo, 0)) {
          perLaneAccesses++;
        }
        if (op == Opcode.PHI || op == Opcode.BR) continue;
        ops++;
        Type st = v.type().scalarType();
        if (st.isFloatingPoint()) maxBits = Math.max(maxBits, st.isDouble() ? 64 : 32);
        if (st.isFloatingPoint() || op == Opcode.FCMP) fpOps++;
        if (op == Opcode.FDIV) divCycles += arm ? 7 : 5;
        if (op == Opcode.CALL) {
          String callee = v.calledFunction().map(Function::name).orElse("");
          if (callee.startsWith("llvm.sqrt")) divCycles += arm ? 7 : 5;
          else if (!callee.startsWith("llvm.")) opaque = true;
        }
      }
    }
    int regsPerValue = Math.max(1, (w * maxBits + regBits - 1) / regBits);
    double throughput = Math.max((ops / 4) * regsPerValue + perLaneAccesses * w * Latency.PER_LANE_ACCESS_CYCLES,
        Math.max(fpOps / 2, divCycles) * regsPerValue);
    // the recurrence: longest latency chain from a header phi back to its incoming value on a back edge
    double latency = recurrence(header, inLoop, instrs, family, Map.of());
    if (opaque) latency = 0; // a call to an unknown function: its cost is not a latency we can see
    // multiplies by constants on the recurrence that widen.MulShifts rewrites as shifts and adds: the chain and the issue
    // slots as they will be where the rewrite is taken (MulShifts decides per packet function and per refill driver on
    // its own loop estimate, which the rule mirrors per interleave count)
    Map<Long, MulShifts.Plan> plans = opaque || !chargeDecomposed() ? Map.of() : decomposedMultiplies(body, family,
        registers == 32 && !arm, perLaneAccesses > 0);
    Decomposed decomposed = null;
    if (!plans.isEmpty()) {
      Map<Long, Double> depth = new HashMap<>();
      double extraOps = 0;
      for (var e : plans.entrySet()) {
        depth.put(e.getKey(), (double) e.getValue().depth());
        extraOps += e.getValue().ops() - 1;
      }
      double latency2 = recurrence(header, inLoop, instrs, family, depth);
      double throughput2 = Math.max(((ops + extraOps) / 4) * regsPerValue + perLaneAccesses * w * Latency.PER_LANE_ACCESS_CYCLES,
          Math.max(fpOps / 2, divCycles) * regsPerValue);
      // whether MulShifts takes the rewrite at k chains: its own loop estimate (the multiply at the vector instruction's
      // latency and uops for the target, emulated 64-bit without AVX-512; every operation one uop per register of k·W
      // lanes on 3 ports, 2 at 512 bits) over the loop, before and after, by MulShifts.worthwhile
      boolean force = MulShifts.knob().equals("true");
      boolean avx512 = registers == 32 && !arm;
      org.packetizer.core.ir.CpuFamily cf = org.packetizer.core.ir.CpuFamily.valueOf(family.name());
      Map<Long, Double> mulLatency = new HashMap<>(depth);
      for (Long id : plans.keySet()) {
        mulLatency.put(id, (double) MulShifts.multiplyLatency(cf, instrs.get(id).type().intWidth(), avx512));
      }
      double recBefore = recurrence(header, inLoop, instrs, family, mulLatency);
      boolean[] at = new boolean[5];
      for (int k : new int[] {1, 2, 4}) {
        // (the plain driver's k chains are one packet of k·W lanes; the refill driver's are k sets of W lanes, each also
        // keeping its state by a select per header phi and its active mask, about two more operations)
        double[] issue = refill ? rewriteIssue(body, plans, w, k, header.phis().size() + 2, regBits, cf, avx512)
            : rewriteIssue(body, plans, k * w, 1, 0, regBits, cf, avx512);
        at[k] = force || MulShifts.worthwhile(recBefore, issue[0], latency2, issue[1]);
      }
      decomposed = new Decomposed(latency2, throughput2, plans.size(), at);
    }
    // live values around the loop: header phis and values defined outside used inside; one computed
    // from uniform parameters and constants only is the same for both chains (one register)
    Set<Long> live = new HashSet<>();
    int shared = 0;
    for (Value phi : header.phis()) live.add(phi.id());
    Map<Long, Boolean> uniformMemo = new HashMap<>();
    for (Value v : instrs.values()) {
      if (v.opcode() == Opcode.BR) continue;
      for (Value o : v.operands()) {
        if (o == null || o.isConstant() || o.isBasicBlockValue() || o.isMetadataAsValue() || o.isFunction()) continue;
        if ((o.isInstruction() && !instrs.containsKey(o.id())) || o.isArgument()) {
          if (live.add(o.id()) && uniform(o, uniformArgs, uniformMemo, 0)) shared++;
        }
      }
    }
    int needed = (2 * (live.size() + result - shared) + shared) * regsPerValue;
    boolean dataExit = dataDependentExit(body, inLoop, instrs, uniformArgs);
    // registers beyond the target's are spilled: a store and a reload per iteration each, charged to
    // the two chains' throughput at SPILL_CYCLES per spilled register; beyond twice the registers, no.
    // The plain rule (not the refill variant) charges only what the loop-carried values cannot hold:
    // values from outside the loop are spilled first, once before the loop, and read back as memory
    // operands of the instructions that use them (invariantSpillsFree)
    int excess = Math.max(0, needed - registers);
    if (!refill && invariantSpillsFree()) {
      int invariantRegs = (2 * (live.size() - header.phis().size() - shared) + shared) * regsPerValue;
      excess = Math.max(0, excess - invariantRegs);
    }
    double spill = excess * SPILL_CYCLES;
    double one = Math.max(lat(latency, decomposed, 1), thr(throughput, decomposed, 1));
    double two = Math.max(lat(latency, decomposed, 2), 2 * thr(throughput, decomposed, 2) + spill) / 2;
    double gain = two <= 0 ? 1 : one / two;
    if (dataExit && !refill) gain /= DIVERGENCE_PENALTY;
    double threshold = refill ? MIN_GAIN : lowThreshold ? minGain() : Math.max(minGain(), MIN_GAIN);
    int choice = gain >= threshold && needed <= 2 * registers ? 2 : 1;
    if (refill && avx2RefillRule() && !arm && registers == 16 && regBits == 256 && latency > 0) {
      // AVX2 (16 registers of 256 bits): the refill states' spills are not charged and do not veto (a state's
      // values wait on the long recurrence, the reloads fit in its latency), but the states together hold at most
      // AVX2_REFILL_REGS registers per value; IC 2 or 4 where the recurrence latency over IC chains still beats the
      // throughput by MIN_GAIN against half as many chains (measured on bench-refill --march haswell:
      // docs/performance.md "AVX2 refill interleave count")
      int cap = avx2RefillRegs(family, maxBits);
      int best = 1;
      for (int ic = 2; ic <= 4 && ic * regsPerValue <= cap; ic *= 2) {
        // (against the best so far: with multiplies decomposed at some counts only, the costs are not monotone in IC;
        // without, the same as against ic / 2)
        double fewer = Math.max(lat(latency, decomposed, best) / best, thr(throughput, decomposed, best));
        double more = Math.max(lat(latency, decomposed, ic) / ic, thr(throughput, decomposed, ic));
        if (fewer / more >= MIN_GAIN) best = ic;
        else if (decomposed == null) break;
      }
      int neededAt = (Math.max(2, best) * (live.size() + result - shared) + shared) * regsPerValue;
      return new LoopEstimate(header.describe(), latency, throughput, dataExit, live.size(), neededAt, registers, best, true,
          true, cap, resultInCounter, decomposed);
    }
    if (refill && (choice == 2 || decomposed != null)) {
      // the refill body may take 4 chains: the same estimate at IC 4 against IC 2 (measured: docs/performance.md); with
      // multiplies decomposed at some counts only, against the count chosen so far
      int needed4 = (4 * (live.size() + result - shared) + shared) * regsPerValue;
      double four = Math.max(lat(latency, decomposed, 4), 4 * thr(throughput, decomposed, 4)
          + Math.max(0, needed4 - registers) * SPILL_CYCLES) / 4;
      double sofar = choice == 2 ? two : one;
      if (four > 0 && sofar / four >= MIN_GAIN && needed4 <= 2 * registers) {
        choice = 4;
        needed = needed4;
      }
    }
    return new LoopEstimate(header.describe(), latency, throughput, dataExit, live.size(),
        needed, registers, choice, refill, false, 0, resultInCounter, decomposed);
  }

  /**
   * Issue cycles of one iteration of the loop at {@code lanes} lanes ({@code copies} times, each with {@code overhead}
   * more operations), before and after the rewrite of {@code plans}, as {@code widen.MulShifts}' loop estimate counts them: every operation one uop per register its lanes span (the element's
   * bits × lanes over {@code regBits}), a multiply {@link MulShifts#multiplyUops} per register, a rewritten one its
   * plan's operations per register, on 3 vector ports (2 where a value spans 512 bits); phis and branches free.
   */
  static double[] rewriteIssue(Set<Block> body, Map<Long, MulShifts.Plan> plans, int lanes, int copies, int overhead, int regBits,
      org.packetizer.core.ir.CpuFamily cf, boolean avx512) {
    double before = overhead, after = overhead;
    int widest = 32;
    for (Block b : body) {
      for (Value v : b.instructions()) {
        Opcode op = v.opcode();
        if (op == Opcode.PHI || op == Opcode.BR) continue;
        Type t = v.type().scalarType();
        int bits = t.isInteger() ? Math.max(8, t.intWidth()) : t.isDouble() || t.isPointer() ? 64 : 32;
        if (t.isInteger() || t.isFloatingPoint()) widest = Math.max(widest, bits);
        int parts = Math.max(1, (bits * lanes + regBits - 1) / regBits);
        double u = op == Opcode.MUL && t.isInteger() ? parts * MulShifts.multiplyUops(cf, bits, avx512) : parts;
        before += u;
        MulShifts.Plan p = plans.get(v.id());
        after += p != null ? parts * p.ops() : u;
      }
    }
    double ports = Math.min(regBits, widest * lanes) >= 512 ? 2 : 3;
    return new double[] {copies * before / ports, copies * after / ports};
  }

  /**
   * Knob {@code -Dpacketizer.interleave.mulShifts=latency|depth} (read when a driver is built; a measuring switch, default
   * {@code latency}): {@code depth} charges a multiply by a constant on the recurrence what {@code widen.MulShifts} makes
   * of it at each interleave count ({@link Decomposed}: its plan's depth and operations where the rewrite is taken
   * there, the code the driver then gets, checked by InterleaveMulShiftsTest); {@code latency} charges every multiply its
   * latency, as before the twenty-third round. Measured there (docs/performance.md, "twenty-third round"): on FNV-1a 32
   * W8 and FNV-1a 64 W4 (haswell, clang -O2) {@code depth} takes IC 1 with shifts and adds where {@code latency} takes IC
   * 2 with the multiplies kept (MulShifts keeps them at 2·W lanes), and IC 2 was 30-45 % faster: the estimate puts one
   * chain of shifts against two of multiplies at 20 against 22 cycles per element, which the two independent chains beat
   * by far. So the default stays.
   */
  static boolean chargeDecomposed() {
    String v = System.getProperty("packetizer.interleave.mulShifts", "latency").strip();
    if (v.equals("latency")) return false;
    if (v.equals("depth")) return true;
    throw new IllegalArgumentException("packetizer.interleave.mulShifts: expected latency or depth, not " + v);
  }

  /** The recurrence latency at {@code ic} chains: the decomposed multiplies' where the rewrite is taken there. */
  private static double lat(double latency, Decomposed d, int ic) {
    return d != null && d.taken(ic) ? d.latency() : latency;
  }

  /** The throughput-bound time of one chain's iteration at {@code ic} chains (the plans' operations where taken). */
  private static double thr(double throughput, Decomposed d, int ic) {
    return d != null && d.taken(ic) ? d.throughput() : throughput;
  }

  /**
   * The longest latency chain from a header phi back to its incoming value on a back edge; {@code override}: latencies
   * by instruction id in place of the table's.
   */
  private static double recurrence(Block header, Set<Long> inLoop, Map<Long, Value> instrs, Latency.Family family,
      Map<Long, Double> override) {
    double latency = 0;
    for (Value phi : header.phis()) {
      for (int i = 0; i < phi.incomingCount(); i++) {
        if (!inLoop.contains(phi.incomingBlock(i).id())) continue;
        double l = chain(phi.incomingValue(i), phi, instrs, new HashMap<>(), new HashSet<>(), family, override);
        latency = Math.max(latency, l);
      }
    }
    return latency;
  }

  /**
   * The loop's scalar multiplies by a constant that {@code widen.MulShifts} would rewrite in the packet as shifts and adds
   * (twenty-third round), by id, with their plans: on a cycle through a phi (a recurrence), i32 or i64, a constant LLVM does
   * not lower itself, a plan within {@link MulShifts#maxOps} whose depth pays against the family's vector multiply
   * ({@link MulShifts#pays}; {@code vpmullq}: AVX-512, else the 64-bit emulation), on x86; none where the loop loads or
   * stores per lane ({@code perLane}: the packet's gathers or address selects, where auto keeps the multiply) or the
   * knob is false. With the knob true every such multiply (the rewrite's own rule: recurrence or not, on any CPU).
   */
  static Map<Long, MulShifts.Plan> decomposedMultiplies(Set<Block> body, Latency.Family family, boolean avx512, boolean perLane) {
    String knob = MulShifts.knob();
    boolean force = knob.equals("true");
    if (knob.equals("false") || family == Latency.Family.ARM || (!force && perLane)) return Map.of();
    org.packetizer.core.ir.CpuFamily cf = org.packetizer.core.ir.CpuFamily.valueOf(family.name());
    Map<Long, MulShifts.Plan> out = new java.util.LinkedHashMap<>();
    for (Block b : body) {
      for (Value v : b.instructions()) {
        if (v.opcode() != Opcode.MUL || v.type().isVector() || !v.type().isInteger()) continue;
        int bits = v.type().intWidth();
        if (bits != 32 && bits != 64) continue;
        Long c = null;
        for (int k = 0; k < 2 && c == null; k++) if (v.operand(k).isConstantInt()) c = v.operand(k).constIntZExt();
        if (c == null || MulShifts.llvmLowers(c, bits)) continue;
        MulShifts.Plan p = MulShifts.plan(c, bits);
        if (p == null || p.ops() > MulShifts.maxOps(bits)) continue;
        if (!force && !MulShifts.pays(p.depth(), MulShifts.multiplyLatency(cf, bits, avx512))) continue;
        if (!force && !MulShifts.onCycle(v)) continue;
        out.put(v.id(), p);
      }
    }
    return out;
  }

  /**
   * The smallest estimated gain that makes the plain driver interleave ({@code -Dpacketizer.interleave.minGain=G}, read
   * when a driver is built; default {@value #PLAIN_MIN_GAIN}: interleave unless the estimate says two chains are
   * slower). Measured on all 17 benchmark kernels (docs/performance.md, "Register pressure and the interleave count",
   * twelfth round): two chains were faster for every kernel whose loops the estimate puts at 1.0 to 1.2 (ao,
   * aobench, nbody even), the spills of the second chain included; the refill variant keeps {@link #MIN_GAIN}.
   */
  static double minGain() {
    String v = System.getProperty("packetizer.interleave.minGain");
    if (v == null || v.isBlank()) return PLAIN_MIN_GAIN;
    try {
      return Double.parseDouble(v.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("packetizer.interleave.minGain: not a number: " + v, e);
    }
  }

  /** The plain driver's default threshold ({@link #minGain}). */
  public static final double PLAIN_MIN_GAIN = 1.0;

  /**
   * {@code -Dpacketizer.interleave.invariantSpills=charged} (read when a driver is built; default {@code free}): the
   * plain rule charges every register beyond the target's as a store and a reload per iteration, as before the
   * twelfth round. By default the values from outside the loop are not charged: the register allocator spills them
   * first, once before the loop, and the loop reads them as memory operands (the dumped x2 loops of march, mandelbrot
   * and aobench: every invariant beyond the registers a folded reload, no store in the loop).
   */
  static boolean invariantSpillsFree() {
    return !"charged".equals(System.getProperty("packetizer.interleave.invariantSpills"));
  }

  /** The AVX2 refill states hold at most this many registers per value together (IC × registers per W-lane value). */
  public static final int AVX2_REFILL_REGS = 4;

  /**
   * The cap ({@link #AVX2_REFILL_REGS}) where the refill loop carries sign-extended active masks ({@link
   * RefillDriver#wideMask}: Intel) and the state's lanes are 32 bits: 4 states at W16 (two registers per value).
   */
  public static final int AVX2_WIDE_MASK_REFILL_REGS = 8;

  /**
   * The AVX2 refill rule's register cap for {@code family} and the state's widest lane ({@code maxBits}): {@link
   * #AVX2_WIDE_MASK_REFILL_REGS} where the refill loop carries its active masks as sign-extended lanes (Intel by
   * default) and the lanes are 32 bits, else {@link #AVX2_REFILL_REGS}. Measured on this project's Intel host with the
   * wide masks (docs/performance.md "AVX2 masks in the refill loop", twentieth round; nine alternated pairs of
   * {@code bench-refill --march haswell --refill-interleave 2|4}): four states at W16 were faster than two for
   * mandelbrot (−3.0 % median, 7 of 9 pairs) and julia (−3.5 %, 7 of 9) and about even for march (−1.9 %; the estimate
   * keeps march at 2); with the i1 masks on Zen (eleventh round) mandelbrot W16 lost 12 % at four states, so AMD keeps 4;
   * 64-bit lanes were not measured. {@code -Dpacketizer.refill.avx2WideIc=false} (read when a driver is built): 4
   * everywhere, the rule before.
   */
  static int avx2RefillRegs(Latency.Family family, int maxBits) {
    boolean on = !"false".equals(System.getProperty("packetizer.refill.avx2WideIc", "true").strip());
    return on && maxBits == 32 && RefillDriver.wideMask(true, family) ? AVX2_WIDE_MASK_REFILL_REGS : AVX2_REFILL_REGS;
  }

  /**
   * {@code -Dpacketizer.refill.avx2Ic=false} (read when a driver is built; a measuring switch): the refill body on AVX2
   * takes the general rule's interleave count (spills charged, vetoed beyond twice the registers), as before the AVX2
   * rule.
   */
  static boolean avx2RefillRule() { return !"false".equals(System.getProperty("packetizer.refill.avx2Ic")); }

  /**
   * Whether an address is the same in every lane in each iteration: computed from uniform parameters,
   * constants and the loop header's integer inductions that start from such values (a uniform
   * counter); anything loaded, or depending on a varying parameter, may differ between lanes.
   */
  private static boolean sameInEveryLane(Value v, Map<Long, Value> instrs, Block header, Set<Long> uniformArgs,
      Map<Long, Boolean> memo, int depth) {
    if (v.isConstant() || v.isFunction() || v.isGlobalVariable()) return true;
    if (v.isArgument()) return uniformArgs.contains(v.id());
    if (!v.isInstruction() || depth > 32) return false;
    if (!instrs.containsKey(v.id())) return uniform(v, uniformArgs, new HashMap<>(), 0);
    Boolean m = memo.get(v.id());
    if (m != null) return m;
    memo.put(v.id(), false); // cycles through phis other than a counted induction: not provably uniform
    Opcode op = v.opcode();
    boolean u;
    if (op == Opcode.PHI) {
      u = v.type().isInteger() && v.block().map(b -> b.id() == header.id()).orElse(false);
      for (int i = 0; u && i < v.incomingCount(); i++) {
        Value in = v.incomingValue(i);
        if (instrs.containsKey(in.id()) && in.isInstruction()) {
          u = counted(in, instrs) && (in.id() == v.id() || in.operand(0).id() == v.id() || in.operand(1).id() == v.id());
        } else {
          u = sameInEveryLane(in, instrs, header, uniformArgs, memo, depth + 1);
        }
      }
    } else {
      u = op != Opcode.LOAD && op != Opcode.CALL && op != Opcode.ALLOCA;
      for (Value o : v.operands()) {
        if (!u) break;
        if (o == null || o.isBasicBlockValue()) continue;
        u = sameInEveryLane(o, instrs, header, uniformArgs, memo, depth + 1);
      }
    }
    memo.put(v.id(), u);
    return u;
  }

  /** Whether {@code v} is computed outside the loop from uniform parameters and constants only. */
  private static boolean uniform(Value v, Set<Long> uniformArgs, Map<Long, Boolean> memo, int depth) {
    if (v.isConstant() || v.isFunction()) return true;
    if (v.isArgument()) return uniformArgs.contains(v.id());
    if (!v.isInstruction() || depth > 32) return false;
    Boolean m = memo.get(v.id());
    if (m != null) return m;
    Opcode op = v.opcode();
    boolean u = op != Opcode.PHI && op != Opcode.LOAD && op != Opcode.CALL && op != Opcode.ALLOCA;
    if (u) {
      for (Value o : v.operands()) {
        if (o == null || o.isBasicBlockValue()) continue;
        if (!uniform(o, uniformArgs, memo, depth + 1)) { u = false; break; }
      }
    }
    memo.put(v.id(), u);
    return u;
  }

  /** Latency of the longest chain from {@code phi} to {@code v} inside the loop (-inf when v does not depend on phi). */
  private static double chain(Value v, Value phi, Map<Long, Value> instrs, Map<Long, Double> memo, Set<Long> visiting, Latency.Family family,
      Map<Long, Double> override) {
    if (v.id() == phi.id()) return 0;
    if (!v.isInstruction() || !instrs.containsKey(v.id())) return Double.NEGATIVE_INFINITY;
    Double m = memo.get(v.id());
    if (m != null) return m;
    if (!visiting.add(v.id())) return Double.NEGATIVE_INFINITY;
    double best = Double.NEGATIVE_INFINITY;
    for (Value o : v.operands()) {
      if (o == null || o.isBasicBlockValue() || o.isConstant()) continue;
      best = Math.max(best, chain(o, phi, instrs, memo, visiting, family, override));
    }
    visiting.remove(v.id());
    double r = best == Double.NEGATIVE_INFINITY ? best : best + override.getOrDefault(v.id(), Latency.of(v, family));
    memo.put(v.id(), r);
    return r;
  }

  /** Whether an exit of the loop depends on something other than a counted induction against a loop invariant. */
  private static boolean dataDependentExit(Set<Block> body, Set<Long> inLoop, Map<Long, Value> instrs, Set<Long> uniformArgs) {
    Map<Long, Boolean> memo = new HashMap<>();
    for (Block b : body) {
      Value t = b.terminator();
      if (t == null || t.opcode() != Opcode.BR || !t.isConditional()) continue;
      boolean exits = false;
      for (int i = 0; i < t.numSuccessors(); i++) if (!inLoop.contains(t.successor(i).id())) exits = true;
      if (!exits) continue;
      Value c = t.condition();
      if (!c.isInstruction() || !instrs.containsKey(c.id())) continue;
      if (c.opcode() != Opcode.ICMP) return true;
      for (Value o : c.operands()) {
        if (!o.isInstruction() || !instrs.containsKey(o.id())) {
          // invariant in the loop; a bound that differs between lanes (a varying length) still gives
          // each lane its own trip count
          if (!uniform(o, uniformArgs, memo, 0) && !(outerCounterExits() && outerCounter(o, uniformArgs, memo))) return true;
          continue;
        }
        if (!counted(o, instrs)) return true;
      }
    }
    return false;
  }

  /**
   * Whether {@code v} (from outside the loop) is the same in every lane on each entry of the loop: computed from
   * uniform parameters, constants and integer counters of enclosing loops that start from such values and step by a
   * constant (e.g. the triangular {@code for (i = n; i > 0; --i) for (j = 0; j < i; ++j)}: every lane runs the inner
   * loop i times, so its exit does not wait for the slowest lane).
   */
  private static boolean outerCounter(Value v, Set<Long> uniformArgs, Map<Long, Boolean> memo) {
    return outerCounter(v, uniformArgs, memo, new HashSet<>(), 0);
  }

  private static boolean outerCounter(Value v, Set<Long> uniformArgs, Map<Long, Boolean> memo, Set<Long> phis, int depth) {
    if (v.isConstant() || v.isFunction()) return true;
    if (v.isArgument()) return uniformArgs.contains(v.id());
    if (!v.isInstruction() || depth > 32) return false;
    Opcode op = v.opcode();
    if (op == Opcode.PHI) {
      // a loop header's counter: every incoming value either one and the same constant step of the phi itself (the back
      // edges) or, from outside its loop, such a value; a join of values chosen by a branch is not (no step of itself)
      if (!v.type().isInteger() || !phis.add(v.id())) return false;
      String step = null;
      for (int i = 0; i < v.incomingCount(); i++) {
        Value in = v.incomingValue(i);
        if (in.isInstruction() && (in.opcode() == Opcode.ADD || in.opcode() == Opcode.SUB)
            && ((in.operand(0).id() == v.id() && in.operand(1).isConstant())
                || (in.operand(1).id() == v.id() && in.operand(0).isConstant() && in.opcode() == Opcode.ADD))) {
          String s = in.opcode() + " " + (in.operand(0).id() == v.id() ? in.operand(1) : in.operand(0)).id();
          if (step != null && !step.equals(s)) return false;
          step = s;
        } else if (!outerCounter(in, uniformArgs, memo, phis, depth + 1)) {
          return false;
        }
      }
      return step != null;
    }
    if (op == Opcode.LOAD || op == Opcode.CALL || op == Opcode.ALLOCA) return false;
    for (Value o : v.operands()) {
      if (o == null || o.isBasicBlockValue()) continue;
      if (!outerCounter(o, uniformArgs, memo, phis, depth + 1)) return false;
    }
    return true;
  }

  /**
   * Knob {@code -Dpacketizer.interleave.outerCounterExits=false}: a loop whose exit compares against an enclosing loop's
   * counter is charged as a data-dependent exit again (the rule before the thirteenth round); read at each use.
   */
  static boolean outerCounterExits() {
    return !"false".equals(System.getProperty("packetizer.interleave.outerCounterExits", "true").strip());
  }

  /** An integer induction: a phi, or a phi plus/minus a constant. */
  private static boolean counted(Value v, Map<Long, Value> instrs) {
    if (v.opcode() == Opcode.PHI) return v.type().isInteger();
    if (v.opcode() == Opcode.ADD || v.opcode() == Opcode.SUB) {
      Value a = v.operand(0);
      Value b = v.operand(1);
      return (a.isInstruction() && a.opcode() == Opcode.PHI && b.isConstant())
          || (b.isInstruction() && b.opcode() == Opcode.PHI && a.isConstant());
    }
    return false;
  }
}
