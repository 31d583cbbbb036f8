package org.packetizer.core.widen;

import java.math.BigInteger;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.PriorityQueue;
import java.util.Set;
import org.packetizer.core.ir.Block;
import org.packetizer.core.ir.CpuFamily;
import org.packetizer.core.ir.Function;
import org.packetizer.core.ir.IrBuilder;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.Opcode;
import org.packetizer.core.ir.Type;
import org.packetizer.core.ir.Value;

/**
 * A vector integer multiply by a constant, {@code mul <W x i32|i64> %x, splat (C)}, as shifts, adds and subtracts where
 * it sits on a loop-carried dependence cycle and the target's vector multiply is slow (issue 16, twenty-second round).
 *
 * <p>Why: Intel's cores from Haswell on take 10 cycles for {@code vpmulld} (15 for {@code vpmullq}; 64-bit elements
 * without AVX-512DQ are three {@code vpmuludq} plus shifts and adds), against 1 for a vector shift or add. A hash loop
 * such as FNV-1a, {@code h = (h ^ byte) * 16777619}, is a chain through the multiply: the packet loop waits 11 cycles
 * per step where the scalar loop's {@code imul} takes 3. {@code 16777619 = 2^24 + 403}: with {@code t = x + (x << 1)},
 * {@code x * C = (x << 24) + (x << 4) + t + (t << 7)}, 8 operations of depth 4.
 *
 * <p>The decomposition ({@link #plan}): the constant's binary digits and its non-adjacent form (signed digits, fewest
 * nonzero ones), each also with one repeated two-digit pattern shared ({@code t} above); the terms summed as a tree that
 * adds the earliest-ready values first (the least depth for given ready times). The plan of least depth, then fewest
 * operations, is taken. Exact modulo 2^bits (wrap-around included; no {@code nsw}/{@code nuw} flags).
 *
 * <p>When ({@code -Dpacketizer.mulShifts=auto}, the default): the multiply is on a cycle of its function's SSA graph
 * (a recurrence through a loop's phi), the target is x86, the plan's depth is at most half the multiply's latency on the
 * CPU's family and at least 2 cycles below it, and it has at most {@link #maxOps} operations (the extra uops stay a
 * small number against the loop's other work). Latencies ({@link #multiplyLatency}): Intel from Haswell 10 (32-bit),
 * 15 (64-bit with AVX-512DQ) or 9 (64-bit emulated); LLVM's Sandy Bridge model (the generic names) 5 / 7; every other
 * x86 CPU (AMD Zen) 3 / 3 with AVX-512, else 6: so Zen keeps its multiplies. Constants LLVM's x86 back end already
 * lowers to a shift and an add or subtract ({@code 2^k}, {@code 2^k+-1}, {@code -(2^k+-1)}) are left to it. {@code true}:
 * every vector multiply by a constant with a plan within {@link #maxOps}, on any CPU and off any recurrence (testing
 * and measuring); {@code false}: none. Runs after the clean-up (InstCombine folds sums of shifts back into a multiply);
 * LLVM's DAG combiner does not re-form it. The refill driver runs it again on the driver after its own clean-up
 * (twenty-third round), deciding on the driver's hot loop; the interleave rule can mirror the decision per interleave
 * count ({@code driver.Interleave}, knob {@code -Dpacketizer.interleave.mulShifts=depth}).
 */
public final class MulShifts {
  private MulShifts() {}

  /** The knob {@code -Dpacketizer.mulShifts=auto|true|false} (read at each use). */
  public static String knob() {
    String v = System.getProperty("packetizer.mulShifts", "auto").strip().toLowerCase(Locale.ROOT);
    if (v.equals("auto") || v.equals("true") || v.equals("false")) return v;
    throw new IllegalArgumentException("packetizer.mulShifts: expected auto, true or false, not " + v);
  }

  /** An operation of a plan: values are numbered, 0 is x, step i makes value i + 1. */
  public enum Op { SHL, ADD, SUB, NEG }

  /** One step: {@code SHL(a, shift)}, {@code ADD(a, b)}, {@code SUB(a, b)} (a - b), {@code NEG(a)}. */
  public record Step(Op op, int a, int b, int shift) {}

  /** A decomposition of {@code x * constant} modulo 2^bits: the last step's value is the product. */
  public record Plan(long constant, int bits, List<Step> steps, int depth) {
    /** Operations (instructions) of the plan. */
    public int ops() { return steps.size(); }

    /** The plan evaluated on x, modulo 2^bits (the low {@code bits} bits of the result; bits 32 or 64). */
    public long apply(long x) {
      long[] v = new long[steps.size() + 1];
      v[0] = x;
      for (int i = 0; i < steps.size(); i++) {
        Step s = steps.get(i);
        v[i + 1] = switch (s.op()) {
          case SHL -> v[s.a()] << s.shift();
          case ADD -> v[s.a()] + v[s.b()];
          case SUB -> v[s.a()] - v[s.b()];
          case NEG -> -v[s.a()];
        };
      }
      long r = v[steps.size()];
      return bits == 64 ? r : r & ((1L << bits) - 1);
    }

    /** The plan as text, e.g. {@code v1 = x << 1; v2 = x + v1; ...}. */
    public String describe() {
      StringBuilder sb = new StringBuilder();
      for (int i = 0; i < steps.size(); i++) {
        Step s = steps.get(i);
        if (i > 0) sb.append("; ");
        sb.append('v').append(i + 1).append(" = ");
        switch (s.op()) {
          case SHL -> sb.append(name(s.a())).append(" << ").append(s.shift());
          case ADD -> sb.append(name(s.a())).append(" + ").append(name(s.b()));
          case SUB -> sb.append(name(s.a())).append(" - ").append(name(s.b()));
          case NEG -> sb.append("-").append(name(s.a()));
        }
      }
      return sb.toString();
    }

    private static String name(int v) { return v == 0 ? "x" : "v" + v; }
  }

  /** A signed power-of-two term of a constant: sign * 2^shift. */
  private record Digit(int shift, int sign) {}

  /** A value being summed: its number, the cycle it is ready, whether it enters the sum negated. */
  private record Node(int value, int ready, boolean negative, int order) {}

  /**
   * The best decomposition of {@code x * c} modulo 2^bits (bits 32 or 64), least depth then fewest operations; null
   * for c = 0 (no operation needed, nothing to plan) or when c is 1.
   */
  public static Plan plan(long c, int bits) {
    if (bits != 32 && bits != 64) throw new IllegalArgumentException("bits must be 32 or 64, not " + bits);
    long m = bits == 64 ? c : c & 0xFFFF_FFFFL;
    if (m == 0 || m == 1) return null;
    Plan best = null;
    for (List<Digit> digits : List.of(binary(m, bits), nonAdjacent(m, bits))) {
      best = better(best, build(m, bits, digits, null));
      for (int[] pattern : patterns(digits)) best = better(best, build(m, bits, digits, pattern));
    }
    return best;
  }

  private static Plan better(Plan a, Plan b) {
    if (a == null) return b;
    if (b == null) return a;
    if (b.depth() != a.depth()) return b.depth() < a.depth() ? b : a;
    return b.ops() < a.ops() ? b : a;
  }

  private static List<Digit> binary(long m, int bits) {
    List<Digit> out = new ArrayList<>();
    for (int i = 0; i < bits; i++) if ((m >>> i & 1) != 0) out.add(new Digit(i, 1));
    return out;
  }

  /** The non-adjacent form of m (as an unsigned bits-wide number), digits at bits and above dropped (mod 2^bits). */
  private static List<Digit> nonAdjacent(long m, int bits) {
    BigInteger x = new BigInteger(Long.toUnsignedString(m));
    List<Digit> out = new ArrayList<>();
    BigInteger four = BigInteger.valueOf(4);
    for (int i = 0; x.signum() != 0 && i < bits; i++) {
      if (x.testBit(0)) {
        int d = x.mod(four).intValue() == 1 ? 1 : -1;
        out.add(new Digit(i, d));
        x = x.subtract(BigInteger.valueOf(d));
      }
      x = x.shiftRight(1);
    }
    return out;
  }

  /**
   * The two-digit patterns (distance, relative sign) that occur at least twice among the digits without overlap,
   * each as {distance, relative sign}.
   */
  private static List<int[]> patterns(List<Digit> digits) {
    List<int[]> out = new ArrayList<>();
    Set<Long> seen = new HashSet<>();
    for (int i = 0; i < digits.size(); i++) {
      for (int j = i + 1; j < digits.size(); j++) {
        int d = digits.get(j).shift() - digits.get(i).shift();
        int rel = digits.get(i).sign() * digits.get(j).sign();
        if (!seen.add((long) d * 4 + rel + 1)) continue;
        int[] p = {d, rel};
        if (occurrences(digits, p).size() >= 2) out.add(p);
      }
    }
    return out;
  }

  /** Disjoint occurrences of pattern p, greedily from the lowest digit: pairs of indices into digits. */
  private static List<int[]> occurrences(List<Digit> digits, int[] p) {
    List<int[]> out = new ArrayList<>();
    boolean[] used = new boolean[digits.size()];
    for (int i = 0; i < digits.size(); i++) {
      if (used[i]) continue;
      for (int j = i + 1; j < digits.size(); j++) {
        if (used[j]) continue;
        if (digits.get(j).shift() - digits.get(i).shift() == p[0] && digits.get(i).sign() * digits.get(j).sign() == p[1]) {
          used[i] = used[j] = true;
          out.add(new int[] {i, j});
          break;
        }
      }
    }
    return out;
  }

  /** The plan for the digits, with the pattern {@code t = x +- (x << d)} shared where pattern is not null. */
  private static Plan build(long m, int bits, List<Digit> digits, int[] pattern) {
    List<Step> steps = new ArrayList<>();
    List<Node> nodes = new ArrayList<>();
    int[] order = {0};
    boolean[] taken = new boolean[digits.size()];
    if (pattern != null) {
      steps.add(new Step(Op.SHL, 0, 0, pattern[0]));
      steps.add(new Step(pattern[1] > 0 ? Op.ADD : Op.SUB, 0, 1, 0));
      int t = 2;
      for (int[] occ : occurrences(digits, pattern)) {
        taken[occ[0]] = taken[occ[1]] = true;
        Digit low = digits.get(occ[0]);
        nodes.add(shifted(steps, t, 2, low.shift(), low.sign() < 0, order));
      }
    }
    for (int i = 0; i < digits.size(); i++) {
      if (taken[i]) continue;
      Digit d = digits.get(i);
      nodes.add(shifted(steps, 0, 0, d.shift(), d.sign() < 0, order));
    }
    if (nodes.isEmpty()) return null;
    // the sum: the two earliest-ready values first (least depth for the given ready times)
    PriorityQueue<Node> q = new PriorityQueue<>((a, b) -> a.ready() != b.ready() ? Integer.compare(a.ready(), b.ready())
        : Integer.compare(a.order(), b.order()));
    q.addAll(nodes);
    while (q.size() > 1) {
      Node a = q.poll();
      Node b = q.poll();
      int ready = Math.max(a.ready(), b.ready()) + 1;
      Node sum;
      if (a.negative() == b.negative()) {
        steps.add(new Step(Op.ADD, a.value(), b.value(), 0));
        sum = new Node(steps.size(), ready, a.negative(), order[0]++);
      } else {
        Node pos = a.negative() ? b : a;
        Node neg = a.negative() ? a : b;
        steps.add(new Step(Op.SUB, pos.value(), neg.value(), 0));
        sum = new Node(steps.size(), ready, false, order[0]++);
      }
      q.add(sum);
    }
    Node last = q.poll();
    int depth = last.ready();
    if (last.negative()) {
      steps.add(new Step(Op.NEG, last.value(), 0, 0));
      depth++;
    } else if (last.value() == 0) {
      return null;
    }
    // (values are numbered by step; the last step must be the result: it is, as the sum's last step or the negation)
    Plan p = new Plan(m, bits, List.copyOf(steps), depth);
    return p;
  }

  /** value << shift as a node (no step for shift 0). */
  private static Node shifted(List<Step> steps, int value, int ready, int shift, boolean negative, int[] order) {
    if (shift == 0) return new Node(value, ready, negative, order[0]++);
    steps.add(new Step(Op.SHL, value, 0, shift));
    return new Node(steps.size(), ready + 1, negative, order[0]++);
  }

  /** Whether LLVM's x86 back end already lowers x * c without a multiply: 2^k, 2^k+-1, -(2^k+-1), 1 - 2^k. */
  public static boolean llvmLowers(long c, int bits) {
    long m = bits == 64 ? c : c & 0xFFFF_FFFFL;
    long neg = bits == 64 ? -c : -c & 0xFFFF_FFFFL;
    for (long v : new long[] {m, neg}) {
      if (v == 0 || Long.bitCount(v) == 1) return true;
      long p = bits == 64 ? v + 1 : v + 1 & 0xFFFF_FFFFL;
      long q = v - 1;
      if (p != 0 && Long.bitCount(p) == 1 || q != 0 && Long.bitCount(q) == 1) return true;
    }
    return false;
  }

  /** The most operations a plan may have (the extra uops against the loop's other work): 10 for 32 bits, 12 for 64. */
  public static int maxOps(int bits) {
    return bits <= 32 ? 10 : 12;
  }

  /**
   * Latency in cycles of a vector multiply of {@code bits}-bit elements on {@code family}; {@code avx512} whether the
   * target has AVX-512 (with DQ's {@code vpmullq} on every CPU of these families that has AVX-512F): {@link
   * CpuFamily#multiplyLatency}, the table the interleave rule's {@code wrapper.Latency} reads too; 0 for AArch64 (not
   * modelled here: no rewrite).
   */
  public static int multiplyLatency(CpuFamily family, int bits, boolean avx512) {
    return family == CpuFamily.ARM ? 0 : family.multiplyLatency(bits, avx512);
  }

  /** Whether a plan of this depth pays against a multiply of this latency: at most half, and 2 cycles below. */
  public static boolean pays(int depth, int latency) {
    return depth * 2 <= latency && depth + 2 <= latency;
  }

  /** One multiply rewritten (or kept for the loop's estimate), for the remark. */
  public record Rewrite(String block, String multiply, long constant, int bits, int depth, int ops, int latency, String cpu,
      boolean recurrence, Estimate before, Estimate after, boolean rewritten) {
    /** The remark's text. */
    public String message() {
      String c = bits == 64 ? Long.toUnsignedString(constant) : Long.toString(constant & 0xFFFF_FFFFL);
      String head = rewritten ? "multiply by a constant as shifts and adds: " : "multiply by a constant kept (the loop would not get faster, or"
          + " loads per lane through selects that LLVM would turn into branches): ";
      String loop = before == null ? "" : String.format(Locale.ROOT, "; loop estimate %.1f -> %.1f cycles per iteration (recurrence %.1f"
          + " -> %.1f, issue %.1f -> %.1f)", before.cycles(), after.cycles(), before.recurrence(), after.recurrence(),
          before.throughput(), after.throughput());
      return head + multiply + " (x * " + c + " = 0x" + Long.toHexString(bits == 64 ? constant : constant & 0xFFFF_FFFFL) + ", "
          + bits + "-bit) in " + ops + " shifts/adds/subtracts of depth " + depth + " cycles against the multiply's " + latency
          + " on " + cpu + (recurrence ? ", on a loop-carried recurrence" : ", not on a recurrence (-Dpacketizer.mulShifts=true)")
          + loop + (rewritten ? " (-Dpacketizer.mulShifts=false keeps the multiply)" : " (-Dpacketizer.mulShifts=true rewrites it)");
    }
  }

  /**
   * Rewrites the multiplies of {@code f} as the knob and the target say; {@code cpu} the target's CPU name (null: not
   * known), {@code x86} whether f's target is x86, {@code avx512} whether it has AVX-512, {@code registerBits} its
   * vector registers' width. Returns what was rewritten, then the multiplies kept because the loop's estimate would not
   * get faster ({@link Rewrite#rewritten} false).
   */
  public static List<Rewrite> run(Function f, String cpu, boolean x86, boolean avx512, int registerBits) {
    return run(f, x86, () -> new Target(cpu, avx512, registerBits));
  }

  /**
   * What the rewrite needs of the target beyond its architecture: the CPU's name (null: not known), whether it has
   * AVX-512, its vector registers' width in bits.
   */
  public record Target(String cpu, boolean avx512, int registerBits) {}

  /**
   * {@link #run(Function, String, boolean, boolean, int)} for the code generated with the options' {@code cpu} and
   * {@code features} (null: the function's attributes, else the host's), as the packet function's clean-up and the refill
   * driver's call it: the target is resolved only once f has a candidate (a vector multiply by a constant), so a
   * packetization without one pays nothing for it.
   */
  public static List<Rewrite> run(Function f, String cpu, String features) {
    boolean x86 = org.packetizer.core.ir.TargetArch.of(f.module().targetTriple()) == org.packetizer.core.ir.TargetArch.X86;
    return run(f, x86, () -> {
      var t = org.packetizer.core.wrapper.HardwareWidth.resolve(f, cpu, features);
      return new Target(t.cpu(), MaskDemotion.hasMaskRegisters(f, cpu, features), Math.max(128, t.width() * 32));
    });
  }

  /**
   * {@link #run(Function, String, boolean, boolean, int)} with the target asked of {@code target} only where f has a
   * candidate multiply (and the knob and the architecture allow a rewrite).
   */
  public static List<Rewrite> run(Function f, boolean x86, java.util.function.Supplier<Target> target) {
    String knob = knob();
    if (knob.equals("false")) return List.of();
    boolean force = knob.equals("true");
    if (!force && !x86) return List.of();
    List<Value> found = new ArrayList<>();
    boolean anyPhi = false;
    for (Block bb : f.blocks()) {
      for (Value i = bb.firstInstruction(); i != null; i = i.nextInstruction()) {
        Opcode op = i.opcode();
        if (op == Opcode.PHI) anyPhi = true;
        else if (op == Opcode.MUL && i.type().isVector() && constantOf(i) != null) found.add(i);
      }
    }
    // Without a phi no value is on a cycle of the SSA graph, so auto rewrites nothing and has nothing to remark: skip
    // the per-multiply cycle searches (each up to 4,096 values), which made straight-line integer code with many
    // multiplies by constants measurably slower to packetize.
    if (found.isEmpty() || (!force && !anyPhi)) return List.of();
    Target tg = target.get();
    String cpu = tg.cpu();
    boolean avx512 = tg.avx512();
    int registerBits = tg.registerBits();
    CpuFamily family = CpuFamily.of(cpu, !x86);
    String cpuName = (cpu == null || cpu.isBlank() ? "the generic CPU" : cpu) + " (" + family.name().toLowerCase(Locale.ROOT)
        + " family)";
    List<Rewrite> out = new ArrayList<>();
    List<Rewrite> kept = new ArrayList<>();
    LlvmContext ctx = f.functionType().context();
    // the candidates: plans within the budget whose depth pays against the multiply (all of them with the knob true)
    java.util.Map<Value, Plan> plans = new java.util.LinkedHashMap<>();
    for (Value mul : found) {
      int bits = mul.type().elementType().intWidth();
      long c = constantOf(mul);
      if (llvmLowers(c, bits)) continue;
      Plan p = plan(c, bits);
      if (p == null || p.ops() > maxOps(bits)) continue;
      if (force || pays(p.depth(), multiplyLatency(family, bits, avx512))) plans.put(mul, p);
    }
    List<Value> chosen = new ArrayList<>();
    List<Estimate[]> estimates = new ArrayList<>();
    for (var e : plans.entrySet()) {
      Value mul = e.getKey();
      int bits = mul.type().elementType().intWidth();
      int latency = multiplyLatency(family, bits, avx512);
      List<Value> cycle = cycle(mul);
      Estimate[] est = cycle.isEmpty() ? null : estimate(mul, cycle, plans, latency, registerBits, multiplyUops(family, bits, avx512));
      if (!force) {
        if (est == null) continue;
        if (!worthwhile(est) || scalarSelects(mul, cycle)) {
          Plan p = e.getValue();
          kept.add(new Rewrite(mul.block().map(Block::name).orElse(""), mul.print().strip(), constantOf(mul), bits, p.depth(), p.ops(),
              latency, cpuName, true, est[0], est[1], false));
          continue;
        }
      }
      chosen.add(mul);
      estimates.add(est);
    }
    try (IrBuilder b = new IrBuilder(ctx)) {
      for (int k = 0; k < chosen.size(); k++) {
        Value mul = chosen.get(k);
        Estimate[] est = estimates.get(k);
        Plan p = plans.get(mul);
        int bits = mul.type().elementType().intWidth();
        Value x = mul.operand(0).isConstant() ? mul.operand(1) : mul.operand(0);
        String text = mul.print().strip();
        String block = mul.block().map(Block::name).orElse("");
        b.before(mul);
        Value r = emit(b, p, x, mul.type());
        r.copyNameFrom(mul);
        mul.replaceAllUsesWith(r);
        mul.eraseFromParent();
        out.add(new Rewrite(block, text, p.constant(), bits, p.depth(), p.ops(), multiplyLatency(family, bits, avx512), cpuName,
            est != null, est == null ? null : est[0], est == null ? null : est[1], true));
      }
    }
    out.addAll(kept);
    return out;
  }

  /** The plan's instructions at the builder's position for x of vector type t; returns the product. */
  static Value emit(IrBuilder b, Plan p, Value x, Type t) {
    Type e = t.elementType();
    int n = t.vectorSize();
    List<Value> v = new ArrayList<>();
    v.add(x);
    for (Step s : p.steps()) {
      v.add(switch (s.op()) {
        case SHL -> b.binop(Opcode.SHL, v.get(s.a()), b.constVector(Collections.nCopies(n, b.constInt(e, s.shift()))), "mul.shl");
        case ADD -> b.add(v.get(s.a()), v.get(s.b()), "mul.add");
        case SUB -> b.sub(v.get(s.a()), v.get(s.b()), "mul.sub");
        case NEG -> b.sub(b.constNull(t), v.get(s.a()), "mul.neg");
      });
    }
    return v.get(v.size() - 1);
  }

  /** The constant of {@code mul <W x i32|i64> x, splat (C)} (either operand), else null. */
  static Long constantOf(Value mul) {
    Type t = mul.type();
    Type e = t.elementType();
    if (!e.isInteger() || (e.intWidth() != 32 && e.intWidth() != 64)) return null;
    for (int k = 0; k < 2; k++) {
      Value o = mul.operand(k);
      if (!o.isConstant() || o.isConstantExpr()) continue;
      Value first = o.aggregateElement(0);
      if (first == null || !first.isConstantInt()) continue;
      long c = first.constIntZExt();
      boolean splat = true;
      for (int i = 1; i < t.vectorSize() && splat; i++) {
        Value ei = o.aggregateElement(i);
        splat = ei != null && ei.isConstantInt() && ei.constIntZExt() == c;
      }
      if (splat) return c;
    }
    return null;
  }

  /**
   * The shortest cycle of the SSA graph through {@code mul} (its operands leading back to it through a phi), as the
   * instructions on it from an operand of mul back to mul; empty when mul is on no cycle.
   */
  static List<Value> cycle(Value mul) {
    Deque<Value> work = new ArrayDeque<>();
    java.util.Map<Value, Value> parent = new java.util.HashMap<>();
    for (Value o : mul.operands()) {
      if (o != null && o.isInstruction() && !parent.containsKey(o)) {
        parent.put(o, mul);
        work.add(o);
      }
    }
    int budget = 4096;
    while (!work.isEmpty() && budget-- > 0) {
      Value v = work.poll();
      if (v.equals(mul)) {
        List<Value> path = new ArrayList<>();
        for (Value u = parent.get(mul); u != null && !u.equals(mul); u = parent.get(u)) path.add(u);
        path.add(mul);
        return path;
      }
      for (Value o : v.operands()) {
        if (o == null || !o.isInstruction()) continue;
        if (o.equals(mul) && !parent.containsKey(mul)) {
          parent.put(mul, v);
          work.addFirst(mul);
        } else if (!parent.containsKey(o)) {
          parent.put(o, v);
          work.add(o);
        }
      }
    }
    return List.of();
  }

  /** Whether {@code mul} is on a cycle of the SSA graph (a loop-carried recurrence). */
  public static boolean onCycle(Value mul) {
    return !cycle(mul).isEmpty();
  }

  /**
   * The loop estimate around a multiply on a recurrence: the recurrence's latency (the cycle's operations: the multiply
   * at its latency, a phi 0, a load 5, anything else 1) and the issue cycles of the blocks the cycle runs through (the
   * loop's common path: every vector operation one uop per register it spans, on {@code ports} vector ports; the
   * multiply {@code mulUops} per register; scalar operations a quarter; 2 ports where the multiply's vector is 512 bits; phis, branches, freezes and bitcasts free).
   */
  record Estimate(double recurrence, double throughput, int parts, double ports, int mulUops) {
    /** Cycles per iteration: the larger of the recurrence and the throughput. */
    double cycles() { return Math.max(recurrence, throughput); }

  }

  /** How much faster the estimate must get for the rewrite (after / before at most this). */
  static final double GAIN = 0.85;

  /**
   * Whether the estimate after the rewrite pays: at most {@link #GAIN} of the cycles before, and the issue cycles after
   * at most half the recurrence before or at most 1.2 times the issue cycles before (64-bit multiplies without
   * {@code vpmullq}: LLVM's emulation is about as many operations as the plan). The second condition because calls of a packet function are independent: the
   * out-of-order core overlaps a short loop's recurrence with the next call's, so in a caller's loop the latency saved
   * is only worth what the extra operations leave of it (measured on this host, a C harness over 65536 elements:
   * FNV-1a 32 W8 haswell with 0-12 rounds, 4 multiplies per round, flat, 0-100 rounds -32 %; a sparse LCG's remainder
   * loop with one multiply of 10 operations +13..+37 %; FNV-1a 64 W4 haswell -21..-37 %).
   */
  static boolean worthwhile(Estimate[] est) {
    return worthwhile(est[0].recurrence(), est[0].throughput(), est[1].recurrence(), est[1].throughput());
  }

  /**
   * {@link #worthwhile(Estimate[])} on the figures: the recurrence and issue cycles before and after the rewrite (also the
   * interleave rule's, {@code driver.Interleave}, per interleave count: the charge it makes for a multiply follows this).
   */
  public static boolean worthwhile(double recurrence, double issue, double recurrenceAfter, double issueAfter) {
    return Math.max(recurrenceAfter, issueAfter) <= GAIN * Math.max(recurrence, issue)
        && (issueAfter <= recurrence / 2 || issueAfter <= 1.2 * issue);
  }

  /**
   * The estimate before and after for {@code mul}'s loop, where every multiply in {@code plans} (the candidates: all
   * that would be rewritten together) takes its plan's depth on the recurrence and its operations in the issue count.
   */
  static Estimate[] estimate(Value mul, List<Value> cycle, java.util.Map<Value, Plan> plans, int lat, int registerBits, int mulUops) {
    double rec = 0, recAfter = 0;
    Set<Block> blocks = new java.util.LinkedHashSet<>();
    for (Value v : cycle) {
      double l = v.opcode() == Opcode.MUL ? lat : v.opcode() == Opcode.PHI ? 0 : v.opcode() == Opcode.LOAD ? 5 : 1;
      rec += l;
      recAfter += plans.containsKey(v) ? plans.get(v).depth() : l;
      v.block().ifPresent(blocks::add);
    }
    // (512-bit operations issue on two vector ports of Intel's cores, narrower ones on three, whatever the registers)
    Type mt = mul.type();
    double ports = Math.min(registerBits, mt.elementType().intWidth() * mt.vectorSize()) >= 512 ? 2 : 3;
    double uops = 0, uopsAfter = 0;
    for (Block bb : blocks) {
      for (Value i = bb.firstInstruction(); i != null; i = i.nextInstruction()) {
        Opcode op = i.opcode();
        if (op == Opcode.PHI || op == Opcode.BR || op == Opcode.FREEZE || op == Opcode.BITCAST && !i.type().isInteger()) continue;
        int parts = parts(i, registerBits);
        double u = parts == 0 ? 0.25 : op == Opcode.MUL ? parts * mulUops : parts;
        uops += u;
        uopsAfter += plans.containsKey(i) ? parts * plans.get(i).ops() : u;
      }
    }
    int parts = parts(mul, registerBits);
    return new Estimate[] {new Estimate(rec, uops / ports, parts, ports, mulUops), new Estimate(recAfter, uopsAfter / ports, parts, ports, mulUops)};
  }

  /**
   * Whether the innermost loop around {@code mul} on its recurrence ({@link #loopOf}) selects scalars, as the per-lane
   * loads' address selects between a lane's address and a safe one, or gathers (which LLVM scalarizes into such selects
   * where the target has no fast gathers): LLVM's x86 cmov conversion turns those selects into branches once the
   * recurrence is shorter than their chain (strhash W4 on haswell at IC 1: 4 {@code cmov} became branches on the lane
   * bits, random inputs 1.7x slower), so those loops keep the multiply. Only that loop (twenty-third round): an
   * enclosing loop's selects, as the refill driver's rounds around its hot loop, run once per round, not on the chain.
   */
  static boolean scalarSelects(Value mul, List<Value> cycle) {
    for (Block b : loopOf(mul, cycle)) {
      for (Value i = b.firstInstruction(); i != null; i = i.nextInstruction()) {
        if (i.opcode() == Opcode.SELECT && !i.type().isVector()) return true;
        if (i.opcode() == Opcode.CALL && i.calledFunction().map(Function::name).orElse("").startsWith("llvm.masked.gather")) return true;
      }
    }
    return false;
  }

  /**
   * The innermost natural loop around {@code mul} whose header holds a phi of its recurrence {@code cycle}: the header
   * and the blocks that reach one of its latches (predecessors it dominates) without passing it; the blocks reachable
   * from mul's block that reach it back where no such header is found (an irreducible cycle).
   */
  static Set<Block> loopOf(Value mul, List<Value> cycle) {
    Block home = mul.block().orElse(null);
    if (home == null) return Set.of();
    Function f = home.parent();
    java.util.Map<Block, List<Block>> preds = new java.util.HashMap<>();
    for (Block b : f.blocks()) for (Block s : b.successors()) preds.computeIfAbsent(s, k -> new ArrayList<>()).add(b);
    Set<Block> best = null;
    for (Value v : cycle) {
      if (v.opcode() != Opcode.PHI) continue;
      Block h = v.block().orElse(null);
      if (h == null) continue;
      // the blocks reachable from the entry without passing h: a predecessor of h not among them is dominated by h
      Set<Block> avoiding = new HashSet<>();
      Deque<Block> work = new ArrayDeque<>();
      if (!f.entry().equals(h)) work.add(f.entry());
      while (!work.isEmpty()) {
        Block b = work.pop();
        if (b.equals(h) || !avoiding.add(b)) continue;
        work.addAll(b.successors());
      }
      Set<Block> loop = new HashSet<>(List.of(h));
      for (Block p : preds.getOrDefault(h, List.of())) if (!avoiding.contains(p)) work.add(p);
      while (!work.isEmpty()) {
        Block b = work.pop();
        if (loop.add(b)) work.addAll(preds.getOrDefault(b, List.of()));
      }
      if (loop.size() > 1 || preds.getOrDefault(h, List.of()).contains(h)) {
        if (loop.contains(home) && (best == null || loop.size() < best.size())) best = loop;
      }
    }
    if (best != null) return best;
    Set<Block> fwd = reach(home, Block::successors);
    Set<Block> back = reach(home, b -> preds.getOrDefault(b, List.of()));
    fwd.retainAll(back);
    return fwd;
  }

  private static Set<Block> reach(Block from, java.util.function.Function<Block, List<Block>> next) {
    Set<Block> seen = new HashSet<>();
    Deque<Block> work = new ArrayDeque<>(List.of(from));
    while (!work.isEmpty()) {
      Block b = work.pop();
      if (seen.add(b)) work.addAll(next.apply(b));
    }
    return seen;
  }

  /** Registers a vector result (or a vector operand, for compares to a scalar) spans; 0 for scalar operations. */
  private static int parts(Value i, int registerBits) {
    Type t = i.type();
    if (!t.isVector()) {
      Value o = i.numOperands() > 0 ? i.operand(0) : null;
      if (o == null || !o.type().isVector()) return 0;
      t = o.type();
    }
    Type e = t.elementType();
    int bits = e.isInteger() ? Math.max(8, e.intWidth()) : e.isDouble() || e.isPointer() ? 64 : 32;
    return Math.max(1, (bits * t.vectorSize() + registerBits - 1) / registerBits);
  }

  /** The multiply's uops per register: Intel vpmulld 2, vpmullq 3, emulated 64-bit about 8; else 1 (64-bit emulated 6). */
  public static int multiplyUops(CpuFamily family, int bits, boolean avx512) {
    if (bits <= 32) return family == CpuFamily.INTEL ? 2 : 1;
    if (avx512) return family == CpuFamily.INTEL ? 3 : 1;
    return family == CpuFamily.INTEL ? 8 : 6;
  }
}
