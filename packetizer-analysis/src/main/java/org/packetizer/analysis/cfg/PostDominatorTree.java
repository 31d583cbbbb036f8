package org.packetizer.analysis.cfg;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The post-dominator tree of a {@link Cfg}: block {@code a} post-dominates {@code b} when every path
 * from {@code b} to the (virtual) exit passes through {@code a}.
 *
 * <p>Computed as the dominator tree (Cooper–Harvey–Kennedy) of the reverse graph of the reachable
 * blocks, rooted at a <em>virtual exit</em>. The virtual exit is linked from
 *
 * <ul>
 *   <li>every exit block (a reachable block without successors), and
 *   <li>for blocks that cannot reach any exit block (infinite loops): one block of every terminal
 *       strongly connected component of those blocks (a component no edge leaves), as LLVM does. The
 *       chosen block is the one that comes last in reverse postorder of the CFG, which for a natural
 *       infinite loop is its latch-most block, so the loop body still gets useful post-dominators.
 * </ul>
 *
 * Every reachable block thus has a path to the virtual exit. {@link #virtualExitPredecessors()}
 * lists the linked blocks. The virtual exit is not a block: wherever it would be returned, the
 * methods return {@link Optional#empty()}.
 *
 * <p>Unreachable blocks are not part of the tree (no ipdom, no children, empty frontier, post-dominate
 * nothing except themselves). Instances are immutable.
 */
public final class PostDominatorTree<B> {
  private final CfgIndex<B> index;
  /** Tree over n + 1 nodes; node n is the virtual exit (the root). */
  private final IntGraphs.Tree tree;
  private final int[][] frontier;
  private final int[] linked;

  private PostDominatorTree(CfgIndex<B> index, IntGraphs.Tree tree, int[][] frontier, int[] linked) {
    this.index = index;
    this.tree = tree;
    this.frontier = frontier;
    this.linked = linked;
  }

  /** Computes the post-dominator tree of the blocks reachable from the entry. */
  public static <B> PostDominatorTree<B> compute(Cfg<B> cfg) {
    return compute(CfgIndex.of(cfg));
  }

  static <B> PostDominatorTree<B> compute(CfgIndex<B> index) {
    int n = index.n;
    int x = n;
    // which blocks reach an exit block?
    boolean[] reachesExit = new boolean[n];
    int[] queue = new int[n];
    int qh = 0, qt = 0;
    List<Integer> exits = new ArrayList<>();
    for (int u = 0; u < n; u++) {
      if (index.succ[u].length == 0) {
        reachesExit[u] = true;
        queue[qt++] = u;
        exits.add(u);
      }
    }
    while (qh < qt) {
      int v = queue[qh++];
      for (int p : index.pred[v]) {
        if (!reachesExit[p]) {
          reachesExit[p] = true;
          queue[qt++] = p;
        }
      }
    }
    List<Integer> links = new ArrayList<>(exits);
    if (qt < n) {
      boolean[] include = new boolean[n];
      for (int u = 0; u < n; u++) include[u] = !reachesExit[u];
      int[] comp = IntGraphs.stronglyConnectedComponents(n, index.succ, include);
      int comps = 0;
      for (int u = 0; u < n; u++) if (comp[u] + 1 > comps) comps = comp[u] + 1;
      boolean[] leaves = new boolean[comps];
      int[] rep = new int[comps];
      java.util.Arrays.fill(rep, -1);
      for (int u = 0; u < n; u++) {
        if (comp[u] < 0) continue;
        for (int v : index.succ[u]) if (comp[v] != comp[u]) leaves[comp[u]] = true;
        if (u > rep[comp[u]]) rep[comp[u]] = u;
      }
      for (int c = 0; c < comps; c++) if (!leaves[c]) links.add(rep[c]);
    }
    int[] linked = links.stream().mapToInt(Integer::intValue).sorted().toArray();
    // reverse graph
    int[][] rsucc = new int[n + 1][];
    for (int u = 0; u < n; u++) rsucc[u] = index.pred[u];
    rsucc[x] = linked;
    int[] ipdom = IntGraphs.immediateDominators(n + 1, x, rsucc);
    IntGraphs.Tree tree = new IntGraphs.Tree(x, ipdom);
    // predecessors in the reverse graph = distinct forward successors (+ the virtual exit)
    boolean[] isLinked = new boolean[n + 1];
    for (int u : linked) isLinked[u] = true;
    int[][] rpred = new int[n + 1][];
    for (int u = 0; u < n; u++) {
      int[] ds = index.distinctSucc(u);
      if (isLinked[u]) {
        int[] a = java.util.Arrays.copyOf(ds, ds.length + 1);
        a[ds.length] = x;
        rpred[u] = a;
      } else {
        rpred[u] = ds;
      }
    }
    rpred[x] = new int[0];
    boolean[] skip = new boolean[n + 1];
    skip[x] = true;
    int[][] pdf = IntGraphs.frontiers(tree, rpred, skip);
    return new PostDominatorTree<>(index, tree, pdf, linked);
  }

  CfgIndex<B> index() { return index; }

  IntGraphs.Tree tree() { return tree; }

  /** The id of the virtual exit in {@link #tree()}. */
  int virtualExit() { return index.n; }

  /** Internal: ipdom id of block id u (n = virtual exit). */
  int ipdomId(int u) { return tree.parent[u]; }

  public Cfg<B> cfg() { return index.cfg; }

  /** Whether {@code b} is reachable from the entry (and so part of the tree). */
  public boolean isReachable(B b) { return index.id(b) >= 0; }

  /**
   * The immediate post-dominator of {@code b}. Empty when it is the virtual exit (exit blocks,
   * infinite-loop representatives, and blocks whose paths to different exits share no block), and for
   * unreachable blocks.
   */
  public Optional<B> ipdom(B b) {
    int i = index.id(b);
    if (i < 0) return Optional.empty();
    int p = tree.parent[i];
    return p == index.n ? Optional.empty() : Optional.of(index.block(p));
  }

  /**
   * Whether {@code a} post-dominates {@code b} (reflexive). False when either is unreachable, except
   * {@code postDominates(b, b)}. O(1).
   */
  public boolean postDominates(B a, B b) {
    if (a.equals(b)) return true;
    int x = index.id(a), y = index.id(b);
    return x >= 0 && y >= 0 && tree.isAncestor(x, y);
  }

  /** Whether {@code a} post-dominates {@code b} and {@code a != b}. */
  public boolean strictlyPostDominates(B a, B b) {
    return !a.equals(b) && postDominates(a, b);
  }

  /**
   * The nearest block that post-dominates both; empty when only the virtual exit does.
   *
   * @throws IllegalArgumentException if either block is unreachable
   */
  public Optional<B> nearestCommonPostDominator(B a, B b) {
    int x = index.id(a), y = index.id(b);
    if (x < 0 || y < 0) throw new IllegalArgumentException("unreachable block: " + (x < 0 ? a : b));
    int c = tree.nearestCommonAncestor(x, y);
    return c == index.n ? Optional.empty() : Optional.of(index.block(c));
  }

  /**
   * The post-dominance frontier of {@code b}: blocks {@code y} such that {@code b} post-dominates a
   * successor of {@code y} but does not strictly post-dominate {@code y} (= the blocks {@code b} is
   * control dependent on). Ordered by the CFG's reverse postorder. Empty for unreachable blocks.
   */
  public Set<B> postDominanceFrontier(B b) {
    int i = index.id(b);
    if (i < 0) return Set.of();
    return index.toSet(frontier[i]);
  }

  /** Blocks immediately post-dominated by {@code b}, in reverse postorder of the CFG. */
  public List<B> children(B b) {
    int i = index.id(b);
    if (i < 0) return List.of();
    return index.toList(tree.children[i]);
  }

  /** Blocks whose immediate post-dominator is the virtual exit, in reverse postorder of the CFG. */
  public List<B> roots() {
    return index.toList(tree.children[index.n]);
  }

  /**
   * The blocks linked to the virtual exit: all exit blocks plus one representative per terminal
   * strongly connected component of blocks that cannot reach an exit. Reverse postorder.
   */
  public Set<B> virtualExitPredecessors() {
    return index.toSet(linked);
  }

  /** Reachable blocks in preorder of the post-dominator tree (the virtual exit omitted). */
  public List<B> preorder() {
    int[] pre = tree.preorder;
    return index.toList(java.util.Arrays.copyOfRange(pre, 1, pre.length));
  }
}
