package org.packetizer.analysis.divergence;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.function.Function;
import org.packetizer.analysis.cfg.CfgAnalyses;
import org.packetizer.analysis.cfg.LoopForest;
import org.packetizer.analysis.cfg.SyncDependence;

/**
 * Divergence and shape analysis (RV-style vectorization shapes on Karrenberg's packetization): which
 * values are the same in all lanes, which are affine in the lane index, which branches diverge.
 *
 * <h2>Lattice and fixpoint</h2>
 *
 * Every value gets a {@link Shape}: UNIFORM &lt; LINEAR(stride) &lt; VARYING (two different strides
 * join to VARYING), with a known alignment that only decreases. Instructions start at "not yet known"
 * (so loop-carried phis resolve optimistically) and are evaluated in linearization order, then from a
 * worklist; each new result is joined with the previous one, so values only rise and the iteration
 * terminates. Values that stay unknown (cycles of phis without any defining input: undefined) end
 * UNIFORM.
 *
 * <h2>Transfer rules</h2>
 *
 * <ul>
 *   <li>PARAMETER: the seed from {@code parameterShapes}; VARYING when absent. CONSTANT_INT: UNIFORM
 *       aligned to the largest power of two dividing it (0 and large powers capped at {@value
 *       #MAX_ALIGNMENT}). CONSTANT_OTHER: UNIFORM.
 *   <li>ADD, OR_DISJOINT: strides add (uniform = stride 0; sum 0 gives UNIFORM); any VARYING operand
 *       gives VARYING. SUB: strides subtract. MUL: uniform × uniform = uniform; LINEAR(s) × integer
 *       constant c = LINEAR(s·c); anything else VARYING. SHL by an integer constant c: stride &lt;&lt;
 *       c; by a non-constant: uniform iff both operands uniform.
 *   <li>SEXT, ZEXT, TRUNC, PASS_THROUGH: the operand's shape. For SEXT/ZEXT of a LINEAR value this
 *       assumes the narrow value does not wrap between lane 0 and lane W-1 (true for the usual
 *       induction variables and indices; LLVM's {@code nsw}/{@code nuw}); TRUNC is exact (modular).
 *   <li>OTHER_PURE: UNIFORM iff all operands are uniform, else VARYING. SELECT: on a uniform condition
 *       the join of both values; on a non-uniform one VARYING, unless both values are the same value.
 *       PHI: join of the incoming values from reachable predecessors.
 *   <li>GEP: the base's shape plus, for every non-constant index, the index's stride times {@link
 *       SsaFunction#gepScale}; constant indices only move the address ({@link
 *       SsaFunction#gepConstantOffset}) and so only affect the alignment, which is the minimum of the
 *       base's and of every term's.
 *   <li>LOAD: UNIFORM iff the address is uniform. ALLOCA: LINEAR({@link SsaFunction#allocaSize}) —
 *       one private slot per lane. CALL: UNIFORM iff {@link SsaFunction#isPureCall} and all operands
 *       uniform. OTHER: VARYING.
 *   <li>{@link SsaFunction#customShape}, when present, replaces the rule above.
 * </ul>
 *
 * Linear arithmetic on strides wraps around in 64 bits, like the values themselves.
 *
 * <h2>Control divergence</h2>
 *
 * A branch is divergent iff its condition is not uniform (blocks with several distinct successors
 * and no two-way condition count as divergent). For each divergent branch {@code b}, using {@link
 * SyncDependence}:
 *
 * <ul>
 *   <li>every phi in a {@linkplain SyncDependence#joinPoints join point} of {@code b} becomes VARYING
 *       ("sync dependence"), except a phi whose incoming values are all the same value;
 *   <li>every loop in {@linkplain SyncDependence#divergentLoops divergentLoops(b)} is divergent: the
 *       phis in its exit blocks become VARYING (except a phi whose incoming values are all one value
 *       defined outside the loop), and every instruction outside the
 *       loop that uses a value defined inside it becomes VARYING ("temporal divergence": lanes left
 *       at different iterations). A phi in the header of a divergent loop is <em>not</em> made
 *       varying: the lanes still active in an iteration agree on it.
 * </ul>
 *
 * Newly varying values can make more branches divergent; the analysis iterates until nothing
 * changes. Values forced VARYING by these rules stay VARYING even if {@code customShape} says
 * otherwise.
 */
public final class DivergenceAnalysis {
  /** Largest alignment (bytes) the analysis tracks; also the alignment of the constant 0. */
  public static final long MAX_ALIGNMENT = 4096;

  private DivergenceAnalysis() {}

  /**
   * Runs the analysis.
   *
   * @param fn the function ({@code fn.cfg()} must be the CFG the analyses were computed for)
   * @param cfg the CFG analyses of {@code fn}
   * @param parameterShapes seeds for the parameters; parameters not in the map are VARYING
   * @param entryMaskPartial whether the function is a masked variant that may be called with a
   *     partial mask (then every block may be partial)
   */
  public static <B, V> DivergenceInfo<B, V> run(SsaFunction<B, V> fn, CfgAnalyses<B> cfg,
      Map<V, Shape> parameterShapes, boolean entryMaskPartial) {
    return new Solver<>(fn, cfg, Map.copyOf(parameterShapes), entryMaskPartial).solve();
  }

  /** Largest power of two dividing c, capped at {@link #MAX_ALIGNMENT}; 0 gives the cap. */
  public static long alignmentOf(long c) {
    int tz = Long.numberOfTrailingZeros(c); // 64 for 0
    return tz >= 12 ? MAX_ALIGNMENT : 1L << tz;
  }

  private static long mulAlign(long a, long b) {
    int tz = Long.numberOfTrailingZeros(a) + Long.numberOfTrailingZeros(b);
    return tz >= 12 ? MAX_ALIGNMENT : 1L << tz;
  }

  private static long shlAlign(long a, long c) {
    int tz = Long.numberOfTrailingZeros(a) + (int) (c & 63);
    return tz >= 12 ? MAX_ALIGNMENT : 1L << tz;
  }

  /** Shape of values that are not instructions of reachable blocks. */
  static <B, V> Shape leafShape(SsaFunction<B, V> fn, V v, Map<V, Shape> seeds) {
    return switch (fn.kind(v)) {
      case CONSTANT_INT -> Shape.uniform(alignmentOf(fn.intConstant(v).orElse(1)));
      case CONSTANT_OTHER -> Shape.UNIFORM;
      case PARAMETER -> seeds.getOrDefault(v, Shape.VARYING);
      default -> Shape.VARYING;
    };
  }

  private static final class Solver<B, V> {
    final SsaFunction<B, V> fn;
    final CfgAnalyses<B> an;
    final SyncDependence<B> sync;
    final Map<V, Shape> seeds;
    final boolean entryMaskPartial;
    /** Dense ids of the instructions of reachable blocks (linearization order). */
    HashMap<V, Integer> ids;
    /**
     * The same ids by the function's own numbering ({@link SsaFunction#number}; -1: not analysed), when
     * it has one: then {@link #ids} stays empty and no lookup hashes (issue 16).
     */
    int[] idOfNumber;
    final List<V> insts = new ArrayList<>();
    List<B> blockOfId;
    Shape[] shape; // null = not yet known
    String[] forcedReason;
    final List<Integer> forcedOrder = new ArrayList<>();
    int[][] users;
    List<List<B>> conditionOf; // by id: blocks branching on that instruction
    boolean[] queued;
    int[] queue;
    int qHead, qSize;
    final HashMap<V, Shape> leafCache = new HashMap<>();
    final Set<B> divergent = new LinkedHashSet<>();
    final IdentityHashMap<LoopForest.Loop<B>, Boolean> divLoops = new IdentityHashMap<>();
    final Function<V, Shape> current = this::currentOrUniform;
    /** Branches whose condition became non-uniform, to check (a queue, so nothing recurses). */
    final ArrayDeque<B> pendingBranches = new ArrayDeque<>();

    Solver(SsaFunction<B, V> fn, CfgAnalyses<B> an, Map<V, Shape> seeds, boolean entryMaskPartial) {
      this.fn = fn;
      this.an = an;
      this.sync = an.sync();
      this.seeds = seeds;
      this.entryMaskPartial = entryMaskPartial;
    }

    DivergenceInfo<B, V> solve() {
      List<B> blocks = new ArrayList<>();
      int expected = 0;
      for (B b : an.order()) expected += fn.instructions(b).size();
      int numbers = fn.numberCount();
      if (numbers > 0) {
        ids = new HashMap<>();
        idOfNumber = new int[numbers];
        java.util.Arrays.fill(idOfNumber, -1);
        for (B b : an.order()) {
          for (V v : fn.instructions(b)) {
            int k = fn.number(v);
            if (k < 0 || k >= numbers) throw new IllegalStateException("instruction " + v + " has no number (" + k + ")");
            if (idOfNumber[k] < 0) {
              idOfNumber[k] = insts.size();
              insts.add(v);
              blocks.add(b);
            }
          }
        }
      } else {
        ids = new HashMap<>(Math.max(16, expected * 4 / 3 + 1));
        for (B b : an.order()) {
          for (V v : fn.instructions(b)) {
            if (ids.putIfAbsent(v, insts.size()) == null) {
              insts.add(v);
              blocks.add(b);
            }
          }
        }
      }
      int n = insts.size();
      blockOfId = blocks;
      shape = new Shape[n];
      forcedReason = new String[n];
      queued = new boolean[n];
      queue = new int[Math.max(16, n)];
      int[] cnt = new int[n];
      int[][] opIds = new int[n][];
      for (int u = 0; u < n; u++) {
        List<V> ops = fn.operands(insts.get(u));
        int[] o = new int[ops.size()];
        for (int k = 0; k < o.length; k++) {
          int i = idOf(ops.get(k));
          o[k] = i;
          if (i >= 0) cnt[i]++;
        }
        opIds[u] = o;
      }
      users = new int[n][];
      for (int v = 0; v < n; v++) users[v] = new int[cnt[v]];
      int[] fill = new int[n];
      for (int u = 0; u < n; u++) {
        for (int o : opIds[u]) {
          if (o >= 0 && (fill[o] == 0 || users[o][fill[o] - 1] != u)) users[o][fill[o]++] = u;
        }
      }
      for (int v = 0; v < n; v++) if (fill[v] != users[v].length) users[v] = java.util.Arrays.copyOf(users[v], fill[v]);
      conditionOf = new ArrayList<>(java.util.Collections.nCopies(n, (List<B>) null));
      for (B b : an.order()) {
        Optional<V> c = fn.branchCondition(b);
        if (c.isPresent()) {
          int i = idOf(c.get());
          if (i >= 0) {
            if (conditionOf.get(i) == null) conditionOf.set(i, new ArrayList<>(1));
            conditionOf.get(i).add(b);
          }
        }
      }
      for (int v = 0; v < n; v++) enqueue(v);
      // branches on parameters, constants and unknown terminators; the others are found when their
      // condition's shape leaves UNIFORM (see setShape)
      for (B b : an.order()) checkBranch(b);
      while (true) {
        drain();
        boolean undefined = false;
        for (int v = 0; v < n; v++) {
          if (shape[v] == null) {
            setShape(v, Shape.UNIFORM);
            undefined = true;
          }
        }
        if (!undefined) break;
      }
      Set<B> partial = new HashSet<>(sync.regionUnion(divergent));
      Set<B> joins = new HashSet<>();
      Set<B> exits = new HashSet<>();
      for (B b : divergent) {
        joins.addAll(sync.joinPoints(b));
        exits.addAll(sync.divergentLoopExits(b));
      }
      for (LoopForest.Loop<B> l : divLoops.keySet()) partial.addAll(l.blocks());
      Map<V, Shape> shapes = new HashMap<>(2 * (n + fn.parameters().size()));
      for (V p : fn.parameters()) shapes.put(p, seeds.getOrDefault(p, Shape.VARYING));
      for (int v = 0; v < n; v++) shapes.put(insts.get(v), shape[v]);
      Map<V, String> forced = new LinkedHashMap<>();
      for (int v : forcedOrder) forced.put(insts.get(v), forcedReason[v]);
      Shape[] byNumber = null;
      if (idOfNumber != null) {
        byNumber = new Shape[idOfNumber.length];
        for (int k = 0; k < byNumber.length; k++) if (idOfNumber[k] >= 0) byNumber[k] = shape[idOfNumber[k]];
      }
      return new DivergenceInfo<>(fn, an, shapes, byNumber, seeds, forced, divergent, inOrder(partial), entryMaskPartial,
          divLoops, inOrder(joins), inOrder(exits));
    }

    private Set<B> inOrder(Set<B> s) {
      Set<B> out = new LinkedHashSet<>();
      for (B b : an.order()) if (s.contains(b)) out.add(b);
      return out;
    }

    private void checkBranch(B b) {
      if (!divergent.contains(b) && isDivergentTerminator(b)) {
        divergent.add(b);
        applyControlDivergence(b);
      }
    }

    /** Records a new shape, re-queues the users and reacts to branch conditions turning non-uniform. */
    private void setShape(int v, Shape s) {
      shape[v] = s;
      for (int u : users[v]) enqueue(u);
      if (!s.isUniform()) {
        List<B> blocks = conditionOf.get(v);
        if (blocks != null) for (B b : blocks) if (!divergent.contains(b)) pendingBranches.add(b);
      }
    }

    private boolean isDivergentTerminator(B b) {
      List<B> succ = an.cfg().successors(b);
      boolean two = false;
      for (int i = 1; i < succ.size() && !two; i++) two = !succ.get(i).equals(succ.get(0));
      if (!two) return false;
      Optional<V> c = fn.branchCondition(b);
      if (c.isEmpty()) return true;
      return !currentOrUniform(c.get()).isUniform();
    }

    private void applyControlDivergence(B b) {
      for (B j : sync.joinPoints(b)) {
        for (V phi : phis(j)) {
          if (!sameIncoming(phi)) force(phi, "phi at join of divergent branch in block " + b);
        }
      }
      for (LoopForest.Loop<B> loop : sync.divergentLoops(b)) {
        if (divLoops.put(loop, Boolean.TRUE) != null) continue;
        String h = String.valueOf(loop.header());
        for (B x : loop.exitBlocks()) {
          for (V phi : phis(x)) {
            if (!sameIncomingDefinedOutside(phi, loop)) {
              force(phi, "phi at exit of divergent loop with header " + h + " (divergent branch in block " + b + ")");
            }
          }
        }
        for (B inner : loop.blocks()) {
          for (V v : fn.instructions(inner)) {
            int vi = idOf(v);
            if (vi < 0) continue;
            for (int u : users[vi]) {
              if (!loop.contains(blockOfId.get(u))) {
                force(insts.get(u), "live out of divergent loop with header " + h + " (uses " + v + " defined inside)");
              }
            }
          }
        }
      }
    }

    private List<V> phis(B block) {
      List<V> out = new ArrayList<>();
      for (V v : fn.instructions(block)) if (fn.kind(v) == OpKind.PHI) out.add(v);
      return out;
    }

    private boolean sameIncoming(V phi) {
      V first = null;
      for (Map.Entry<B, V> e : fn.incoming(phi)) {
        if (!an.isReachable(e.getKey())) continue;
        if (first == null) first = e.getValue();
        else if (!first.equals(e.getValue())) return false;
      }
      return true;
    }

    /** All reachable incoming values are one value that is not defined inside the loop. */
    private boolean sameIncomingDefinedOutside(V phi, LoopForest.Loop<B> loop) {
      if (!sameIncoming(phi)) return false;
      for (Map.Entry<B, V> e : fn.incoming(phi)) {
        int def = idOf(e.getValue());
        if (an.isReachable(e.getKey()) && def >= 0 && loop.contains(blockOfId.get(def))) return false;
      }
      return true;
    }

    private void force(V value, String reason) {
      int v = idOf(value);
      if (v < 0 || forcedReason[v] != null) return;
      forcedReason[v] = reason;
      forcedOrder.add(v);
      if (!Shape.VARYING.equals(shape[v])) setShape(v, Shape.VARYING);
    }

    private void enqueue(int v) {
      if (queued[v]) return;
      queued[v] = true;
      if (qSize == queue.length) {
        int[] nq = new int[queue.length * 2];
        for (int i = 0; i < qSize; i++) nq[i] = queue[(qHead + i) % queue.length];
        queue = nq;
        qHead = 0;
      }
      queue[(qHead + qSize++) % queue.length] = v;
    }

    private void drain() {
      while (qSize > 0 || !pendingBranches.isEmpty()) {
        if (!pendingBranches.isEmpty()) {
          checkBranch(pendingBranches.poll());
          continue;
        }
        int v = queue[qHead];
        qHead = (qHead + 1) % queue.length;
        qSize--;
        queued[v] = false;
        if (forcedReason[v] != null) continue;
        Shape nw = eval(insts.get(v));
        if (nw == null) continue;
        Shape old = shape[v];
        Shape joined = old == null ? nw : old.join(nw);
        if (!joined.equals(old)) setShape(v, joined);
      }
    }

    /** The solver's id of an instruction of a reachable block, or -1. */
    int idOf(V v) {
      if (idOfNumber != null) {
        int k = fn.number(v);
        return k < 0 ? -1 : idOfNumber[k];
      }
      Integer i = ids.get(v);
      return i == null ? -1 : i;
    }

    /** Current shape, or null when not yet known. */
    Shape cur(V o) {
      int i = idOf(o);
      if (i >= 0) return shape[i];
      Shape s = leafCache.get(o);
      if (s == null) {
        s = leafShape(fn, o, seeds);
        leafCache.put(o, s);
      }
      return s;
    }

    Shape currentOrUniform(V o) {
      Shape s = cur(o);
      return s == null ? Shape.UNIFORM : s;
    }

    /** The transfer function; null when an operand is still unknown. */
    Shape eval(V v) {
      Shape s = transfer(v);
      Optional<Shape> custom = fn.customShape(v, current);
      if (custom.isPresent()) return custom.get();
      return s;
    }

    private Shape transfer(V v) {
      List<V> ops = fn.operands(v);
      OpKind k = fn.kind(v);
      switch (k) {
        case PHI: {
          Shape acc = null;
          for (Map.Entry<B, V> e : fn.incoming(v)) {
            if (!an.isReachable(e.getKey())) continue;
            Shape s = cur(e.getValue());
            if (s == null) continue;
            acc = acc == null ? s : acc.join(s);
          }
          return acc;
        }
        case ADD, OR_DISJOINT, SUB: {
          Shape a = cur(ops.get(0)), b = cur(ops.get(1));
          if (isVarying(a) || isVarying(b)) return Shape.VARYING;
          if (a == null || b == null) return null;
          long stride = k == OpKind.SUB ? a.stride() - b.stride() : a.stride() + b.stride();
          return Shape.linear(stride, Math.min(a.alignment(), b.alignment()));
        }
        case MUL: {
          Shape a = cur(ops.get(0)), b = cur(ops.get(1));
          if (isVarying(a) || isVarying(b)) return Shape.VARYING;
          if (a == null || b == null) return null;
          if (a.isUniform() && b.isUniform()) return Shape.uniform(mulAlign(a.alignment(), b.alignment()));
          OptionalLong ca = fn.intConstant(ops.get(0)), cb = fn.intConstant(ops.get(1));
          if (a.isLinear() && b.isUniform() && cb.isPresent()) {
            return Shape.linear(a.stride() * cb.getAsLong(), mulAlign(a.alignment(), b.alignment()));
          }
          if (b.isLinear() && a.isUniform() && ca.isPresent()) {
            return Shape.linear(b.stride() * ca.getAsLong(), mulAlign(a.alignment(), b.alignment()));
          }
          return Shape.VARYING;
        }
        case SHL: {
          Shape a = cur(ops.get(0)), b = cur(ops.get(1));
          if (isVarying(a) || isVarying(b)) return Shape.VARYING;
          if (a == null || b == null) return null;
          OptionalLong c = fn.intConstant(ops.get(1));
          if (c.isPresent()) {
            long sh = c.getAsLong();
            return Shape.linear(a.stride() << sh, shlAlign(a.alignment(), sh));
          }
          return a.isUniform() && b.isUniform() ? Shape.UNIFORM : Shape.VARYING;
        }
        case SEXT, ZEXT, TRUNC, PASS_THROUGH:
          return cur(ops.get(0));
        case OTHER_PURE: {
          boolean unknown = false;
          for (V o : ops) {
            Shape s = cur(o);
            if (s == null) unknown = true;
            else if (!s.isUniform()) return Shape.VARYING;
          }
          return unknown ? null : Shape.UNIFORM;
        }
        case SELECT: {
          if (ops.get(1).equals(ops.get(2))) return cur(ops.get(1));
          Shape c = cur(ops.get(0));
          if (c == null) return null;
          if (!c.isUniform()) return Shape.VARYING;
          Shape a = cur(ops.get(1)), b = cur(ops.get(2));
          if (isVarying(a) || isVarying(b)) return Shape.VARYING;
          if (a == null || b == null) return null;
          return a.join(b);
        }
        case GEP: {
          Shape base = cur(ops.get(0));
          if (isVarying(base)) return Shape.VARYING;
          long stride = 0;
          long align = alignmentOf(fn.gepConstantOffset(v));
          boolean unknown = base == null;
          if (base != null) {
            stride = base.stride();
            align = Math.min(align, base.alignment());
          }
          for (int i = 1; i < ops.size(); i++) {
            V idx = ops.get(i);
            if (fn.intConstant(idx).isPresent()) continue;
            OptionalLong scale = fn.gepScale(v, i);
            if (scale.isEmpty()) return Shape.VARYING;
            Shape s = cur(idx);
            if (s == null) {
              unknown = true;
              continue;
            }
            if (s.isVarying()) return Shape.VARYING;
            stride += s.stride() * scale.getAsLong();
            align = Math.min(align, mulAlign(s.alignment(), alignmentOf(scale.getAsLong())));
          }
          return unknown ? null : Shape.linear(stride, align);
        }
        case LOAD: {
          Shape a = cur(ops.get(0));
          if (a == null) return null;
          return a.isUniform() ? Shape.UNIFORM : Shape.VARYING;
        }
        case ALLOCA:
          return Shape.linear(fn.allocaSize(v));
        case CALL: {
          if (!fn.isPureCall(v)) return Shape.VARYING;
          boolean unknown = false;
          for (V o : ops) {
            Shape s = cur(o);
            if (s == null) unknown = true;
            else if (!s.isUniform()) return Shape.VARYING;
          }
          return unknown ? null : Shape.UNIFORM;
        }
        case PARAMETER, CONSTANT_INT, CONSTANT_OTHER:
          return leafShape(fn, v, seeds);
        case OTHER:
        default:
          return Shape.VARYING;
      }
    }

    private static boolean isVarying(Shape s) { return s != null && s.isVarying(); }
  }

  /** Explanation for a non-uniform value that was not forced by control divergence. */
  static <B, V> String explain(SsaFunction<B, V> fn, CfgAnalyses<B> an, V v, Shape s,
      Function<V, Shape> shape, Map<V, Shape> seeds) {
    OpKind k = fn.kind(v);
    if (k == OpKind.PARAMETER) {
      return seeds.containsKey(v) ? "parameter seeded " + s : "parameter seeded varying (no shape given)";
    }
    Optional<B> blk = fn.blockOf(v);
    if (blk.isPresent() && !an.isReachable(blk.get())) return "defined in unreachable block " + blk.get();
    if (blk.isEmpty() && k != OpKind.CONSTANT_INT && k != OpKind.CONSTANT_OTHER) {
      return "unknown value (not an instruction of a reachable block)";
    }
    if (fn.customShape(v, shape).isPresent()) return "shape " + s + " from SsaFunction.customShape";
    List<V> ops = fn.operands(v);
    switch (k) {
      case ALLOCA:
        return "alloca: one private slot per lane (" + s + ")";
      case OTHER:
        return "instruction of kind OTHER is varying unless overridden";
      case LOAD:
        return "load from non-uniform address " + ops.get(0) + " (" + shape.apply(ops.get(0)) + ")";
      case CALL:
        if (!fn.isPureCall(v)) return "call with side effects or unknown purity";
        break;
      case SELECT:
        if (!shape.apply(ops.get(0)).isUniform()) return "select on non-uniform condition " + ops.get(0);
        break;
      case PHI: {
        for (Map.Entry<B, V> e : fn.incoming(v)) {
          if (!an.isReachable(e.getKey())) continue;
          Shape is = shape.apply(e.getValue());
          if (!is.isUniform()) return "incoming value " + e.getValue() + " from " + e.getKey() + " is " + is;
        }
        return "incoming values have different shapes";
      }
      case MUL: {
        Shape a = shape.apply(ops.get(0)), b = shape.apply(ops.get(1));
        if (!a.isVarying() && !b.isVarying() && (a.isLinear() || b.isLinear())) {
          return "product of linear and non-constant operands " + ops.get(0) + ", " + ops.get(1);
        }
        break;
      }
      case ADD, SUB, OR_DISJOINT: {
        Shape a = shape.apply(ops.get(0)), b = shape.apply(ops.get(1));
        if (a.isLinear() && b.isLinear() && s.isVarying()) {
          return "operands " + ops.get(0) + " and " + ops.get(1) + " had different linear shapes during the analysis";
        }
        break;
      }
      default:
        break;
    }
    for (V o : ops) {
      Shape os = shape.apply(o);
      if (!os.isUniform()) return "operand " + o + " is " + os;
    }
    return "is " + s;
  }

}
