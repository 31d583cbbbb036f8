package org.packetizer.analysis.cfg;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Sync dependence: for every branch block (a reachable block with at least two distinct successors),
 * where its divergence makes lanes that took different successors meet again ({@linkplain
 * #joinPoints join points}: phis there become varying) and which loops it makes lanes leave at
 * different iterations or through different exits ({@linkplain #divergentLoops divergent loops},
 * whose {@linkplain #divergentLoopExits exits} see temporal divergence). Requires a reducible CFG.
 *
 * <h2>Definitions</h2>
 *
 * Let {@code b} be a branch block and {@code C0 ⊂ C1 ⊂ ... ⊂ Ck-1} the loops containing it (innermost
 * first), {@code Ck} standing for the whole function.
 *
 * <p><b>Iteration graph.</b> The iteration graph {@code IG(L)} of a loop {@code L} is the subgraph of
 * {@code L}'s blocks (nested loops included, with their back edges) in which every back edge to
 * {@code L}'s header is redirected to a sink {@code N(L)} ("the next iteration", standing for the
 * header reached again) and every exit block of {@code L} is a sink. {@code IG(function)} is the whole
 * reachable CFG.
 *
 * <p><b>Divergent loops.</b> {@code L ∋ b} is <em>divergent because of b</em> when no block or sink
 * other than {@code b} lies on every path of {@code IG(L)} from {@code b} to a sink (exit or {@code
 * N(L)}); i.e. if lanes split at {@code b}, they do not all meet again before they leave the loop or
 * start the next iteration — so they can leave {@code L} at different iterations or through different
 * exits. (Paths that never reach a sink, i.e. infinite nested loops, are ignored.) This is the
 * post-dominance of {@code b} inside one iteration; global post-dominance would be wrong when an outer
 * loop brings lanes that left {@code L} back into it. The divergent loops of {@code b} are always a
 * prefix {@code C0..Cj-1} of its loop chain: if lanes re-converge inside an iteration of {@code Ci}
 * they also do so in every enclosing loop.
 *
 * <p><b>Join points.</b> Lanes in lock-step SIMD execution can only meet at a block within the same
 * iteration of every loop containing both, so paths may use the back edge of a loop only to leave
 * it. Formally, the join points of {@code b} are the union over levels {@code i = 0..j} of the blocks
 * {@code J} (with {@code N(L)} read as {@code L}'s header) for which {@code IG(Ci)} contains two paths
 * that share only {@code J}, starting at two different sources, where the sources are
 *
 * <ul>
 *   <li>level 0: the successors of {@code b} (paths never pass through {@code b}); a successor is
 *       itself a join point when another successor reaches it;
 *   <li>level i+1 (only when {@code Ci} is divergent because of {@code b}): the exit blocks of {@code
 *       Ci}, each a source of its own, since lanes leave through any of them at any iteration.
 * </ul>
 *
 * Examples: the join of an if/else; the header of a loop reached from two latches; the block where
 * two exits of a divergent loop meet. A loop header reached again through its single latch is not a
 * join point (its phis stay uniform if their inputs are), and neither is an exit of a divergent loop
 * reached through one edge (that is temporal divergence: see {@link #divergentLoopExits}).
 *
 * <h2>Algorithm</h2>
 *
 * Per level, SSA-construction-style label propagation (LLVM's SyncDependenceAnalysis, after Cytron et
 * al.'s disjoint-path criterion) over the acyclic graph of the level in which each nested loop is
 * collapsed into its header with the loop's exits as successors, visited in {@link
 * LinearizationOrder} order, stopping as soon as only one label remains alive. Divergent loops come
 * from one post-dominator tree per loop over its iteration graph (O(sum of loop sizes)). Everything is
 * computed eagerly for all branch blocks; instances are immutable. Results are verified against a
 * brute-force disjoint-path search in the tests.
 *
 * <p>Blocks with fewer than two distinct successors, unreachable blocks and unknown blocks have no
 * join points and no divergent loops.
 */
public final class SyncDependence<B> {
  private static final int[] EMPTY = new int[0];

  private final CfgIndex<B> index;
  private final LoopForest<B> loops;
  private final PostDominatorTree<B> pdt;
  private final int[][] joins;
  private final int[][] divLoops;
  private final int[][] divExits;

  private SyncDependence(CfgIndex<B> index, LoopForest<B> loops, PostDominatorTree<B> pdt,
      int[][] joins, int[][] divLoops, int[][] divExits) {
    this.index = index;
    this.loops = loops;
    this.pdt = pdt;
    this.joins = joins;
    this.divLoops = divLoops;
    this.divExits = divExits;
  }

  /**
   * Computes sync dependences of all branch blocks.
   *
   * @param dom dominator tree of {@code cfg}
   * @param pdt post-dominator tree of {@code cfg} (used for {@link #region})
   * @param loops loop forest of {@code cfg}
   */
  public static <B> SyncDependence<B> compute(Cfg<B> cfg, DominatorTree<B> dom, PostDominatorTree<B> pdt,
      LoopForest<B> loops) {
    if (dom.cfg() != cfg || pdt.cfg() != cfg || loops.cfg() != cfg) {
      throw new IllegalArgumentException("analyses of another CFG");
    }
    return new Builder<>(loops).build(pdt);
  }

  /** Same as {@link #compute(Cfg, DominatorTree, PostDominatorTree, LoopForest)} with a precomputed order. */
  static <B> SyncDependence<B> compute(LoopForest<B> loops, PostDominatorTree<B> pdt, int[] orderIds) {
    return new Builder<>(loops, orderIds).build(pdt);
  }

  private static final class Builder<B> {
    final LoopForest<B> loops;
    final CfgIndex<B> index;
    final int n;
    final int[] pos;
    final int[] start;
    final int[] end;
    final int[] headerId;
    final int[] parent;
    // propagation scratch (node n = the N sink of the current region)
    final int[] label;
    final int[] count;
    final boolean[] joined;
    final int[] touched;
    int touchedCount;
    int alive;
    final IntHeap heap;
    final int[] joinBuf;
    int joinCount;
    // per-loop escape flags: escapes[l][pos - start[l]]
    final boolean[][] escapes;
    final int[] exitLocal;

    Builder(LoopForest<B> loops) {
      this(loops, LinearizationOrder.computeIds(loops));
    }

    Builder(LoopForest<B> loops, int[] order) {
      this.loops = loops;
      this.index = loops.index();
      this.n = index.n;
      pos = new int[n];
      for (int i = 0; i < order.length; i++) pos[order[i]] = i;
      int nl = loops.all().size();
      start = new int[nl];
      end = new int[nl];
      headerId = new int[nl];
      parent = new int[nl];
      for (int l = 0; l < nl; l++) {
        LoopForest.Loop<B> loop = loops.loop(l);
        headerId[l] = loop.headerId;
        start[l] = pos[loop.headerId];
        end[l] = start[l] + loop.blockIds.length - 1;
        parent[l] = loop.parent == null ? -1 : loop.parent.index;
      }
      label = new int[n + 1];
      count = new int[n + 1];
      joined = new boolean[n + 1];
      touched = new int[n + 1];
      Arrays.fill(label, -1);
      heap = new IntHeap(n);
      joinBuf = new int[n + 1];
      escapes = new boolean[nl][];
      exitLocal = new int[n];
      Arrays.fill(exitLocal, -1);
    }

    boolean contains(int r, int t) {
      return r < 0 || (pos[t] >= start[r] && pos[t] <= end[r]);
    }

    SyncDependence<B> build(PostDominatorTree<B> pdt) {
      int[][] joins = new int[n][];
      int[][] divLoops = new int[n][];
      int[][] divExits = new int[n][];
      List<Integer> chain = new ArrayList<>();
      for (int b = 0; b < n; b++) {
        int[] succ = index.distinctSucc(b);
        if (succ.length < 2) {
          joins[b] = EMPTY;
          divLoops[b] = EMPTY;
          divExits[b] = EMPTY;
          continue;
        }
        joinCount = 0;
        int r = loops.innermost[b];
        propagate(r, succ);
        chain.clear();
        for (int l = r; l >= 0; l = parent[l]) {
          if (!escapes(l)[pos[b] - start[l]]) break;
          chain.add(l);
          propagate(parent[l], loops.loop(l).exitIds);
        }
        int[] js = Arrays.copyOf(joinBuf, joinCount);
        Arrays.sort(js);
        joins[b] = dedupSorted(js);
        divLoops[b] = chain.stream().mapToInt(Integer::intValue).toArray();
        if (chain.isEmpty()) {
          divExits[b] = EMPTY;
        } else {
          int total = 0;
          for (int l : chain) total += loops.loop(l).exitIds.length;
          int[] ex = new int[total];
          int k = 0;
          for (int l : chain) for (int x : loops.loop(l).exitIds) ex[k++] = x;
          Arrays.sort(ex);
          divExits[b] = dedupSorted(ex);
        }
      }
      return new SyncDependence<>(index, loops, pdt, joins, divLoops, divExits);
    }

    private static int[] dedupSorted(int[] a) {
      if (a.length < 2) return a;
      int k = 1;
      for (int i = 1; i < a.length; i++) if (a[i] != a[k - 1]) a[k++] = a[i];
      return k == a.length ? a : Arrays.copyOf(a, k);
    }

    /** Node of target t in region r: n for N(r), else t. */
    private int node(int r, int t) {
      return r >= 0 && t == headerId[r] ? n : t;
    }

    private boolean isSink(int r, int node) {
      return node == n || !contains(r, node);
    }

    private void touch(int node) {
      touched[touchedCount++] = node;
    }

    private void inc(int lbl) {
      if (count[lbl]++ == 0) alive++;
    }

    private void dec(int lbl) {
      if (--count[lbl] == 0) alive--;
    }

    /** Label propagation in region r from the given sources; appends join points to joinBuf. */
    private void propagate(int r, int[] sources) {
      alive = 0;
      touchedCount = 0;
      for (int t : sources) {
        int v = node(r, t);
        if (label[v] != -1) continue; // duplicate source
        label[v] = v;
        touch(v);
        inc(v);
        if (!isSink(r, v)) heap.push(v, pos[v]);
      }
      while (!heap.isEmpty() && alive > 1) {
        int u = heap.pop();
        int lbl = label[u];
        dec(lbl);
        int c = loops.innermost[u];
        int[] raw = (c != r) ? loops.loop(c).exitIds : index.succ[u];
        for (int t : raw) push(r, node(r, t), lbl);
      }
      heap.clear();
      for (int i = 0; i < touchedCount; i++) {
        int v = touched[i];
        if (joined[v]) joinBuf[joinCount++] = v == n ? headerId[r] : v;
        label[v] = -1;
        count[v] = 0;
        joined[v] = false;
      }
    }

    private void push(int r, int v, int lbl) {
      int old = label[v];
      if (old == -1) {
        label[v] = lbl;
        touch(v);
        inc(lbl);
        if (!isSink(r, v)) heap.push(v, pos[v]);
      } else if (old != lbl) {
        joined[v] = true;
        if (old != v) {
          dec(old);
          label[v] = v;
          inc(v);
        }
      }
    }

    /** escapes[l][local] = block has ipdom "virtual end" in IG(l) (and reaches it). */
    private boolean[] escapes(int l) {
      if (escapes[l] != null) return escapes[l];
      LoopForest.Loop<B> loop = loops.loop(l);
      int size = loop.blockIds.length;
      int[] exits = loop.exitIds;
      int nodeN = size + exits.length;
      int nodeE = nodeN + 1;
      int m = nodeE + 1;
      for (int k = 0; k < exits.length; k++) exitLocal[exits[k]] = size + k;
      int[][] fwd = new int[m][];
      for (int u : loop.blockIds) {
        int[] ds = index.distinctSucc(u);
        int[] a = new int[ds.length];
        for (int k = 0; k < ds.length; k++) {
          int t = ds[k];
          a[k] = t == headerId[l] ? nodeN : contains(l, t) ? pos[t] - start[l] : exitLocal[t];
        }
        fwd[pos[u] - start[l]] = a;
      }
      for (int k = 0; k < exits.length; k++) fwd[size + k] = new int[] {nodeE};
      fwd[nodeN] = new int[] {nodeE};
      fwd[nodeE] = EMPTY;
      for (int x : exits) exitLocal[x] = -1;
      int[] cnt = new int[m];
      for (int u = 0; u < m; u++) for (int v : fwd[u]) cnt[v]++;
      int[][] rev = new int[m][];
      for (int v = 0; v < m; v++) rev[v] = new int[cnt[v]];
      int[] fill = new int[m];
      for (int u = 0; u < m; u++) for (int v : fwd[u]) rev[v][fill[v]++] = u;
      int[] ipdom = IntGraphs.immediateDominators(m, nodeE, rev);
      boolean[] esc = new boolean[size];
      for (int i = 0; i < size; i++) esc[i] = ipdom[i] == nodeE;
      escapes[l] = esc;
      return esc;
    }
  }

  /** Binary min-heap of nodes keyed by an int priority; each node at most once. */
  private static final class IntHeap {
    private int[] nodes;
    private int[] keys;
    private int size;

    IntHeap(int cap) {
      nodes = new int[Math.max(4, cap)];
      keys = new int[Math.max(4, cap)];
    }

    boolean isEmpty() { return size == 0; }

    void clear() { size = 0; }

    void push(int node, int key) {
      if (size == nodes.length) {
        nodes = Arrays.copyOf(nodes, size * 2);
        keys = Arrays.copyOf(keys, size * 2);
      }
      int i = size++;
      while (i > 0) {
        int p = (i - 1) >>> 1;
        if (keys[p] <= key) break;
        nodes[i] = nodes[p];
        keys[i] = keys[p];
        i = p;
      }
      nodes[i] = node;
      keys[i] = key;
    }

    int pop() {
      int top = nodes[0];
      int lastN = nodes[--size];
      int lastK = keys[size];
      int i = 0;
      while (true) {
        int c = 2 * i + 1;
        if (c >= size) break;
        if (c + 1 < size && keys[c + 1] < keys[c]) c++;
        if (keys[c] >= lastK) break;
        nodes[i] = nodes[c];
        keys[i] = keys[c];
        i = c;
      }
      nodes[i] = lastN;
      keys[i] = lastK;
      return top;
    }
  }

  /**
   * The join points of {@code branchBlock}: blocks where lanes that took different successors of the
   * branch meet again within the same iteration of every loop containing both (see the class
   * comment). Phis there become varying if the branch is divergent. Reverse postorder.
   */
  public Set<B> joinPoints(B branchBlock) {
    int b = index.id(branchBlock);
    return b < 0 ? Set.of() : index.toSet(joins[b]);
  }

  /**
   * The exit blocks of every loop that is divergent because of {@code branchBlock} (see {@link
   * #divergentLoops}); lanes reach them at different iterations, so their phis (and every use of a
   * value defined inside such a loop outside of it) become varying if the branch is divergent.
   * Reverse postorder.
   */
  public Set<B> divergentLoopExits(B branchBlock) {
    int b = index.id(branchBlock);
    return b < 0 ? Set.of() : index.toSet(divExits[b]);
  }

  /**
   * The loops containing {@code branchBlock} that lanes may leave at different iterations or through
   * different exits if the branch is divergent, innermost first (a prefix of the block's loop chain).
   */
  public List<LoopForest.Loop<B>> divergentLoops(B branchBlock) {
    int b = index.id(branchBlock);
    if (b < 0) return List.of();
    List<LoopForest.Loop<B>> out = new ArrayList<>(divLoops[b].length);
    for (int l : divLoops[b]) out.add(loops.loop(l));
    return Collections.unmodifiableList(out);
  }

  /** The branch blocks: reachable blocks with at least two distinct successors, reverse postorder. */
  public List<B> branchBlocks() {
    List<B> out = new ArrayList<>();
    for (int b = 0; b < index.n; b++) if (index.distinctSucc(b).length >= 2) out.add(index.block(b));
    return out;
  }

  /**
   * The region of {@code branchBlock}: the blocks reachable from one of its successors without passing
   * through its immediate post-dominator (back edges included; the whole reachable rest of the CFG
   * when the immediate post-dominator is the virtual exit). These blocks may run with only part of the
   * lanes when the branch is divergent. Computed on demand in O(region). Reverse postorder.
   */
  public Set<B> region(B branchBlock) {
    int b = index.id(branchBlock);
    if (b < 0) return Set.of();
    Optional<B> ip = pdt.ipdom(branchBlock);
    int stop = ip.map(index::id).orElse(-1);
    boolean[] seen = new boolean[index.n];
    int[] queue = new int[index.n];
    int qh = 0, qt = 0;
    for (int s : index.distinctSucc(b)) {
      if (s != stop && !seen[s]) {
        seen[s] = true;
        queue[qt++] = s;
      }
    }
    while (qh < qt) {
      int u = queue[qh++];
      for (int s : index.succ[u]) {
        if (s != stop && !seen[s]) {
          seen[s] = true;
          queue[qt++] = s;
        }
      }
    }
    int[] out = Arrays.copyOf(queue, qt);
    Arrays.sort(out);
    return index.toSet(out);
  }

  /** The loop forest this was computed with. */
  public LoopForest<B> loops() { return loops; }
}
