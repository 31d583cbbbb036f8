package org.packetizer.core.driver;

import org.packetizer.core.wrapper.Latency;
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
 * The interleave estimate of a loop-free PACKET function (issue 16, fourteenth round): computed on the function
 * after packetization, where the emulated gathers (extract, load, insert per lane), the blends of the if-converted
 * branches and the bodies of the helpers it calls (followed into their definitions) are visible, unlike in the
 * scalar function (the thirteenth round's estimates from the scalar function predicted no gain anywhere).
 *
 * <p>The model (generic; not fitted to any kernel): one packet is {@code ops} issue slots (each IR operation once per
 * register it spans; an emulated lane access an extract, a load and an insert) with a critical path of {@code path}
 * cycles (the longest chain of operation latencies through the function, {@link Latency#of} and the
 * lane-access latencies below). The out-of-order core runs consecutive driver steps in a window of {@link #WINDOW}
 * operations that retires in order. While a step of k interleaved packets ({@code k·ops} operations) fits the
 * window, the window holds {@code WINDOW/(k·ops)} steps and the per-packet time is the same for every k; a step
 * larger than the window cannot overlap the next one, and the window advances no faster than the chain of the packets
 * in it, so the per-packet time is {@code max(ops/4, path·ops/max(WINDOW, k·ops))}: two chains help only a body larger
 * than half the window whose critical path is longer than its issue time. {@code gain} = time at k = 1 / time at k = 2.
 */
public record PacketEstimate(double ops, double path, double divider, int callees, String function) {

  /** Operations the out-of-order window holds (a generic figure between Haswell's 192 and Zen 4's 320 entries). */
  public static final int WINDOW = 256;
  /** Operations issued per cycle. */
  public static final double ISSUE = 4;
  /** Callee depth followed into definitions. */
  static final int MAX_DEPTH = 4;

  /** Per-packet cycles with {@code k} packets interleaved per step. */
  public double cyclesPerPacket(int k) {
    double issue = Math.max(ops / ISSUE, divider);
    return Math.max(issue, path * ops / Math.max(WINDOW, k * ops));
  }

  /** The estimated gain of two interleaved packets per step over one. */
  public double gain() {
    double two = cyclesPerPacket(2);
    return two <= 0 ? 1 : cyclesPerPacket(1) / two;
  }

  /** The remark's text. */
  public String describe() {
    return String.format(Locale.ROOT, "the packet @%s's estimate: %.0f operations (%.1f cycles at %.0f per cycle%s), critical path"
        + " %.0f cycles%s, window %d operations: %.1f cycles per packet with one chain, %.1f with two, gain %.2f", function, ops,
        ops / ISSUE, ISSUE, divider > ops / ISSUE ? String.format(Locale.ROOT, "; divider %.1f cycles", divider) : "", path,
        callees > 0 ? " (" + callees + " helper call" + (callees == 1 ? "" : "s") + " followed into the body)" : "", WINDOW,
        cyclesPerPacket(1), cyclesPerPacket(2), gain());
  }

  /** The estimate of {@code packet} with {@code regBits}-bit vector registers. */
  public static PacketEstimate of(Function packet, int regBits, boolean arm) {
    return of(packet, regBits, arm, arm ? Latency.Family.ARM : Latency.Family.GENERIC);
  }

  /** {@link #of(Function, int, boolean)} with the latency table of the target's CPU family. */
  public static PacketEstimate of(Function packet, int regBits, boolean arm, Latency.Family family) {
    Walk w = new Walk(regBits, arm, family);
    double[] r = w.function(packet, new double[0], 0);
    return new PacketEstimate(r[1], r[0], w.divider, w.callees, packet.name());
  }

  /** The walk over a function and the functions it calls. */
  private static final class Walk {
    final int regBits;
    final boolean arm;
    final Latency.Family family;
    double divider;
    int callees;
    final Map<Long, double[]> calleeMemo = new HashMap<>();

    Walk(int regBits, boolean arm, Latency.Family family) {
      this.regBits = regBits;
      this.arm = arm;
      this.family = family;
    }

    /**
     * {latest ready time of any result, issue slots along the costliest path} of {@code f} called with arguments ready
     * at {@code argReady} (missing: 0).
     */
    double[] function(Function f, double[] argReady, int depth) {
      Map<Long, Double> ready = new HashMap<>();
      for (int i = 0; i < f.paramCount(); i++) ready.put(f.param(i).id(), i < argReady.length ? argReady[i] : 0);
      List<Block> order = reversePostorder(f);
      Map<Long, Integer> pos = new HashMap<>();
      for (int i = 0; i < order.size(); i++) pos.put(order.get(i).id(), i);
      Map<Long, Double> costIn = new HashMap<>();
      double path = 0;
      double ops = 0;
      for (Block b : order) {
        double c = costIn.getOrDefault(b.id(), 0.0);
        for (Value v : b.instructions()) {
          double t = 0;
          for (Value o : v.operands()) {
            if (o == null) continue;
            Double rt = ready.get(o.id());
            if (rt != null) t = Math.max(t, rt);
          }
          double[] lc = costOf(v, t, ready, depth);
          double done = t + lc[0];
          ready.put(v.id(), done);
          path = Math.max(path, done);
          c += lc[1];
        }
        ops = Math.max(ops, c);
        int me = pos.get(b.id());
        for (Block s : b.successors()) {
          Integer sp = pos.get(s.id());
          if (sp != null && sp > me) costIn.merge(s.id(), c, Math::max); // back edges ignored
        }
      }
      return new double[] {path, ops};
    }

    /** {latency, issue slots} of {@code v} whose operands are ready at {@code t}. */
    double[] costOf(Value v, double t, Map<Long, Double> ready, int depth) {
      Opcode op = v.opcode();
      int parts = parts(v.type());
      switch (op) {
        case PHI, BITCAST, FREEZE, BR, RET, UNREACHABLE, SWITCH, ALLOCA, EXTRACTVALUE, INSERTVALUE, PTRTOINT, INTTOPTR:
          return new double[] {0, 0};
        case GEP:
          return new double[] {1, v.type().isVector() ? parts : 0};
        case EXTRACTELEMENT:
          return new double[] {3, 1};
        case INSERTELEMENT:
          return new double[] {2, 1};
        case SHUFFLEVECTOR:
          return new double[] {2, parts};
        case STORE: {
          Type st = v.operand(0).type();
          return new double[] {1, parts(st)};
        }
        case FDIV, FREM, UDIV, SDIV, UREM, SREM:
          divider += parts * (v.type().scalarType().isDouble() ? 8 : 5);
          return new double[] {Latency.of(v, family), parts};
        case CALL:
          return call(v, t, ready, depth, parts);
        default:
          return new double[] {Latency.of(v, family), parts};
      }
    }

    double[] call(Value v, double t, Map<Long, Double> ready, int depth, int parts) {
      Function callee = v.calledFunction().orElse(null);
      String name = callee == null ? "" : callee.name();
      if (callee != null && !callee.isDeclaration() && depth < MAX_DEPTH) {
        // each helper walked once (its path from the call, every argument ready when the last one is): linear in the
        // module's size however often the helpers are called
        double[] r = calleeMemo.get(callee.id());
        if (r == null) {
          r = function(callee, new double[0], depth + 1);
          calleeMemo.put(callee.id(), r);
        }
        callees++;
        return new double[] {r[0], r[1] + 2};
      }
      if (name.startsWith("llvm.masked.gather") || name.startsWith("llvm.masked.scatter")) {
        int lanes = v.type().isVector() ? v.type().vectorSize() : v.operand(0).type().isVector() ? v.operand(0).type().vectorSize() : 1;
        return new double[] {20 + lanes / 2.0, lanes * Latency.PER_LANE_ACCESS_CYCLES * ISSUE};
      }
      if (name.startsWith("llvm.masked.load") || name.startsWith("llvm.masked.store")) return new double[] {7, 2.0 * parts};
      if (name.startsWith("llvm.sqrt")) {
        divider += parts * (v.type().scalarType().isDouble() ? 9 : 6);
        return new double[] {Latency.of(v, family), parts};
      }
      if (name.startsWith("llvm.")) {
        double lat = Latency.of(v, family);
        return new double[] {lat >= 20 ? 3 : lat, parts};
      }
      // an unknown function: opaque, its cost unknown; counted as a call's overhead and a long latency
      return new double[] {20, 10};
    }

    /** Registers a value of {@code t} spans (at least 1). */
    int parts(Type t) {
      if (!t.isVector()) return 1;
      long bits = (long) t.vectorSize() * scalarBits(t.elementType());
      return (int) Math.max(1, (bits + regBits - 1) / regBits);
    }

    static int scalarBits(Type t) {
      if (t.isInteger()) return Math.max(1, t.intWidth());
      if (t.isDouble() || t.isPointer()) return 64;
      if (t.isHalf()) return 16;
      return 32;
    }
  }

  /** Bits of a scalar type (pointers 64). */
  static int scalarBitsOf(Type t) { return Walk.scalarBits(t); }

  /** The blocks reachable from the entry in reverse postorder (a topological order of the forward edges). */
  static List<Block> reversePostorder(Function f) {
    List<Block> post = new ArrayList<>();
    Set<Long> seen = new HashSet<>();
    List<Block> stack = new ArrayList<>();
    List<Integer> next = new ArrayList<>();
    Block e = f.entry();
    stack.add(e);
    next.add(0);
    seen.add(e.id());
    while (!stack.isEmpty()) {
      int top = stack.size() - 1;
      Block b = stack.get(top);
      List<Block> succ = b.successors();
      int i = next.get(top);
      if (i < succ.size()) {
        next.set(top, i + 1);
        Block s = succ.get(i);
        if (seen.add(s.id())) {
          stack.add(s);
          next.add(0);
        }
      } else {
        post.add(b);
        stack.remove(top);
        next.remove(top);
      }
    }
    List<Block> rpo = new ArrayList<>(post.size());
    for (int i = post.size() - 1; i >= 0; i--) rpo.add(post.get(i));
    return rpo;
  }
}
