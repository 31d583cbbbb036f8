package org.packetizer.analysis.cfg;

import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The dominator tree of a {@link Cfg}: block {@code a} dominates block {@code b} when every path from
 * the entry to {@code b} passes through {@code a}.
 *
 * <p>Computed by the Cooper–Harvey–Kennedy iterative algorithm ("A Simple, Fast Dominance
 * Algorithm", 2001) over a reverse-postorder numbering of the blocks reachable from the entry, then
 * numbered by an iterative DFS of the tree so that {@link #dominates} is an O(1) pre/post-number
 * interval test. Dominance frontiers are computed eagerly by the same paper's frontier walk.
 *
 * <p><b>Unreachable blocks</b> are not part of the tree: they have no immediate dominator, no
 * children, an empty frontier, they dominate nothing and are dominated by nothing except themselves
 * ({@code dominates(b, b)} is always true). {@link #nearestCommonDominator} rejects them. Blocks that
 * are not in the graph at all are treated like unreachable blocks.
 *
 * <p>Instances are immutable and safe to share between threads.
 */
public final class DominatorTree<B> {
  private final CfgIndex<B> index;
  private final IntGraphs.Tree tree;
  private final int[][] frontier;

  private DominatorTree(CfgIndex<B> index, IntGraphs.Tree tree, int[][] frontier) {
    this.index = index;
    this.tree = tree;
    this.frontier = frontier;
  }

  /** Computes the dominator tree of the blocks reachable from {@code cfg.entry()}. O(n + e) per pass. */
  public static <B> DominatorTree<B> compute(Cfg<B> cfg) {
    return compute(CfgIndex.of(cfg));
  }

  static <B> DominatorTree<B> compute(CfgIndex<B> index) {
    int[] idom = IntGraphs.immediateDominators(index.n, 0, index.succ);
    IntGraphs.Tree tree = new IntGraphs.Tree(0, idom);
    int[][] df = IntGraphs.frontiers(tree, index.pred, new boolean[index.n]);
    return new DominatorTree<>(index, tree, df);
  }

  CfgIndex<B> index() { return index; }

  IntGraphs.Tree tree() { return tree; }

  /** The CFG this tree was computed for. */
  public Cfg<B> cfg() { return index.cfg; }

  /** The root of the tree: the entry block. */
  public B root() { return index.block(0); }

  /** Whether {@code b} is reachable from the entry (and so part of the tree). */
  public boolean isReachable(B b) { return index.id(b) >= 0; }

  /** The immediate dominator of {@code b}; empty for the entry and for unreachable blocks. */
  public Optional<B> idom(B b) {
    int i = index.id(b);
    if (i <= 0) return Optional.empty();
    return Optional.of(index.block(tree.parent[i]));
  }

  /**
   * Whether {@code a} dominates {@code b} (reflexive: every block dominates itself). False when either
   * is unreachable, except {@code dominates(b, b)}. O(1).
   */
  public boolean dominates(B a, B b) {
    if (a.equals(b)) return true;
    int x = index.id(a), y = index.id(b);
    return x >= 0 && y >= 0 && tree.isAncestor(x, y);
  }

  /** Whether {@code a} dominates {@code b} and {@code a != b}. */
  public boolean strictlyDominates(B a, B b) {
    return !a.equals(b) && dominates(a, b);
  }

  /** The blocks immediately dominated by {@code b}, in reverse postorder of the CFG. */
  public List<B> children(B b) {
    int i = index.id(b);
    if (i < 0) return List.of();
    return index.toList(tree.children[i]);
  }

  /** Depth of {@code b} in the tree (entry = 0); -1 for unreachable blocks. */
  public int depth(B b) {
    int i = index.id(b);
    return i < 0 ? -1 : tree.depth[i];
  }

  /**
   * The deepest block that dominates both {@code a} and {@code b}. O(tree depth).
   *
   * @throws IllegalArgumentException if either block is unreachable
   */
  public B nearestCommonDominator(B a, B b) {
    int x = index.id(a), y = index.id(b);
    if (x < 0 || y < 0) {
      throw new IllegalArgumentException("unreachable block: " + (x < 0 ? a : b));
    }
    return index.block(tree.nearestCommonAncestor(x, y));
  }

  /**
   * The dominance frontier of {@code b}: the blocks {@code y} such that {@code b} dominates a
   * predecessor of {@code y} but does not strictly dominate {@code y}. Iteration order is the reverse
   * postorder of the CFG. Empty for unreachable blocks.
   */
  public Set<B> dominanceFrontier(B b) {
    int i = index.id(b);
    if (i < 0) return Set.of();
    return index.toSet(frontier[i]);
  }

  /** All reachable blocks in preorder of the tree (a block before everything it dominates). */
  public List<B> preorder() {
    return index.toList(tree.preorder);
  }

  /** All reachable blocks in reverse postorder of the CFG (the numbering used internally). */
  public List<B> reversePostorder() {
    return Collections.unmodifiableList(index.blocks());
  }
}
