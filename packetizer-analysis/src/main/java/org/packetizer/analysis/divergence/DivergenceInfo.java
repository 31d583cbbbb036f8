package org.packetizer.analysis.divergence;

import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.packetizer.analysis.cfg.CfgAnalyses;
import org.packetizer.analysis.cfg.LoopForest;

/**
 * The result of {@link DivergenceAnalysis}: the {@link Shape} of every value, which branches are
 * divergent, which blocks may run with a partial mask and which loops lanes leave at different
 * times. The one place where the packetizer looks up "is this uniform?". Immutable.
 *
 * <p>Block and value names in {@link #reason} come from {@code String.valueOf}.
 */
public final class DivergenceInfo<B, V> {
  private final SsaFunction<B, V> fn;
  private final CfgAnalyses<B> cfg;
  private final Map<V, Shape> shapes;
  /** The shapes of the analysed instructions by {@link SsaFunction#number} (null: fn numbers nothing). */
  private final Shape[] byNumber;
  private final Map<V, Shape> seeds;
  private final Map<V, String> forced;
  private final Set<B> divergentBranches;
  private final Set<B> partial;
  private final boolean entryMaskPartial;
  private final Set<LoopForest.Loop<B>> divergentLoops;
  private final Set<B> joins;
  private final Set<B> loopExits;

  DivergenceInfo(SsaFunction<B, V> fn, CfgAnalyses<B> cfg, Map<V, Shape> shapes, Shape[] byNumber, Map<V, Shape> seeds,
      Map<V, String> forced, Set<B> divergentBranches, Set<B> partial, boolean entryMaskPartial,
      IdentityHashMap<LoopForest.Loop<B>, Boolean> divergentLoops, Set<B> joins, Set<B> loopExits) {
    this.fn = fn;
    this.cfg = cfg;
    this.shapes = shapes;
    this.byNumber = byNumber;
    this.seeds = seeds;
    this.forced = forced;
    this.divergentBranches = Collections.unmodifiableSet(divergentBranches);
    this.partial = Collections.unmodifiableSet(partial);
    this.entryMaskPartial = entryMaskPartial;
    Set<LoopForest.Loop<B>> dl = Collections.newSetFromMap(new IdentityHashMap<>());
    dl.addAll(divergentLoops.keySet());
    this.divergentLoops = Collections.unmodifiableSet(dl);
    this.joins = Collections.unmodifiableSet(joins);
    this.loopExits = Collections.unmodifiableSet(loopExits);
  }

  /** The analyses this result was computed with. */
  public CfgAnalyses<B> cfg() { return cfg; }

  /**
   * The shape of {@code v}. Integer constants are uniform with the alignment of their value (largest
   * power of two dividing it, capped at {@value DivergenceAnalysis#MAX_ALIGNMENT}), other constants
   * uniform; parameters have their seed (varying when not seeded); instructions in unreachable blocks
   * and values the analysis never saw are varying.
   */
  public Shape shape(V v) {
    Shape s;
    if (byNumber != null) {
      // (an instruction: its number, no hashing; the map then holds only what has no number)
      int k = fn.number(v);
      s = k >= 0 ? byNumber[k] : shapes.get(v);
    } else {
      s = shapes.get(v);
    }
    if (s != null) return s;
    return DivergenceAnalysis.leafShape(fn, v, seeds);
  }

  /** Whether {@code v} has the same value in all lanes. */
  public boolean isUniform(V v) { return shape(v).isUniform(); }

  /**
   * Whether {@code block} ends in a divergent branch: a conditional branch whose condition is not
   * uniform. A block with two or more distinct successors whose terminator is not a two-way
   * conditional branch ({@link SsaFunction#branchCondition} empty: switch, indirectbr, ...) is
   * conservatively reported divergent.
   */
  public boolean isDivergentBranch(B block) { return divergentBranches.contains(block); }

  /** All divergent branch blocks, in linearization order. */
  public Set<B> divergentBranches() { return divergentBranches; }

  /**
   * Whether {@code block} may execute with only some of the lanes that are live in the function:
   * always when the function was analysed with {@code entryMaskPartial}; otherwise when the block is
   * in the {@linkplain org.packetizer.analysis.cfg.SyncDependence#region region} of a divergent branch
   * (reachable from one of its successors without passing its immediate post-dominator, back edges
   * included) or inside a divergent loop (in later iterations the lanes that left are inactive).
   * Unreachable blocks are reported partial (they never run).
   */
  public boolean mayBePartial(B block) {
    return entryMaskPartial || partial.contains(block) || !cfg.isReachable(block);
  }

  /**
   * Whether lanes may leave {@code loop} at different iterations or through different exits: some
   * divergent branch inside it lists it among its {@linkplain
   * org.packetizer.analysis.cfg.SyncDependence#divergentLoops divergent loops}. Such a loop keeps
   * running while any lane is active and needs exit masks and live-value blending.
   */
  public boolean isDivergentLoop(LoopForest.Loop<B> loop) { return divergentLoops.contains(loop); }

  /** All divergent loops (identity set). */
  public Set<LoopForest.Loop<B>> divergentLoops() { return divergentLoops; }

  /**
   * The join points of all divergent branches (blocks whose phis merge lanes that came along
   * different paths and must be blended with masks), in linearization order. Exit blocks of divergent
   * loops are reported separately by {@link #divergentLoopExits()}.
   */
  public Set<B> divergentJoins() { return joins; }

  /** The exit blocks of all divergent loops (temporal divergence), in linearization order. */
  public Set<B> divergentLoopExits() { return loopExits; }

  /**
   * A one-line human explanation of why {@code v} is not uniform (or {@code "uniform"}), for compiler
   * remarks, e.g. {@code "operand %x is varying"}, {@code "phi at join of divergent branch in block
   * if.then"}, {@code "live out of divergent loop with header for.cond"}, {@code "parameter seeded
   * varying"}.
   */
  public String reason(V v) {
    String f = forced.get(v);
    if (f != null) return f;
    Shape s = shape(v);
    if (s.isUniform()) return "uniform";
    return DivergenceAnalysis.explain(fn, cfg, v, s, this::shape, seeds);
  }

  /** All values with a computed shape (parameters and instructions of reachable blocks). */
  public Map<V, Shape> shapes() { return Collections.unmodifiableMap(shapes); }

  /** Phis and instructions forced varying by control divergence, with the reason. */
  public Map<V, String> controlDivergent() { return Collections.unmodifiableMap(forced); }

  @Override public String toString() {
    return "DivergenceInfo{divergentBranches=" + divergentBranches + ", divergentLoops=" + divergentLoops
        + ", partial=" + (entryMaskPartial ? "all" : List.copyOf(partial)) + "}";
  }
}
