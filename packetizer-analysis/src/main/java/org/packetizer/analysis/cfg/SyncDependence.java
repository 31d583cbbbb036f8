package org.packetizer.analysis.cfg;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
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
 * <p><b>Divergent loops.</b> The innermost loop {@code C0} is <em>divergent because of b</em> when no
 * block or sink other than {@code b} lies on every path of {@code IG(C0)} from {@code b} to a sink
 * (exit or {@code N(C0)}): if lanes split at {@code b}, they do not all meet again before they leave
 * the loop or start the next iteration, so they can leave {@code C0} at different iterations or
 * through different exits. An enclosing loop {@code Ci+1} is divergent because of {@code b} when
 * {@code Ci} is and no node other than the end lies on every path of {@code IG(Ci+1)} from the exit
 * blocks of {@code Ci} to a sink: lanes that left {@code Ci} at different times or places do not meet
 * again within an iteration of {@code Ci+1}. (All exits count, not only those {@code b} picks: a
 * uniform branch inside {@code Ci} may choose different exits in different iterations.) Paths that
 * never reach a sink (infinite nested loops) are ignored. The divergent loops of {@code b} are thus a
 * prefix {@code C0..Cj-1} of its loop chain. This is post-dominance inside one iteration; global
 * post-dominance would be wrong when an outer loop brings lanes that left {@code C0} back into it.
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
 * from one post-dominator tree per loop over its collapsed iteration graph (nested loops as single
 * nodes, which preserves whether a post-dominator other than the end exists), built with
 * Lengauer–Tarjan: O(n log n) in total even for deep nests. Levels above the innermost loop depend
 * only on the loop, so they are computed once per loop. Everything is computed eagerly for all branch
 * blocks; instances are immutable. Results are verified against a brute-force disjoint-path search on
 * the uncollapsed graphs in the tests.
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
    final int nl;
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
    int[] joinBuf;
    int joinCount;
    /** escapes[u] for a branch block u: its innermost loop is divergent because of it. */
    final boolean[] escapes;
    /** parentDivergent[l]: when loop l is divergent, so is its parent (exits of l do not re-converge). */
    final boolean[] parentDivergent;
    /** exitJoins[l]: join points of the exits of l in the parent's region (lazily). */
    final int[][] exitJoins;

    Builder(LoopForest<B> loops) {
      this(loops, LinearizationOrder.computeIds(loops));
    }

    Builder(LoopForest<B> loops, int[] order) {
      this.loops = loops;
      this.index = loops.index();
      this.n = index.n;
      pos = new int[n];
      for (int i = 0; i < order.length; i++) pos[order[i]] = i;
      nl = loops.all().size();
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
      escapes = new boolean[n];
      parentDivergent = new boolean[nl];
      exitJoins = new int[nl][];
      computeIterationPostDominance();
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
        if (r >= 0 && escapes[b]) {
          for (int l = r; ; l = parent[l]) {
            chain.add(l);
            for (int j : exitJoins(l)) addJoin(j);
            if (parent[l] < 0 || !parentDivergent[l]) break;
          }
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

    private int[] exitJoins(int l) {
      if (exitJoins[l] == null) {
        int saved = joinCount;
        propagate(parent[l], loops.loop(l).exitIds); // appends after the caller's joins
        exitJoins[l] = Arrays.copyOfRange(joinBuf, saved, joinCount);
        joinCount = saved;
      }
      return exitJoins[l];
    }

    private void addJoin(int j) {
      if (joinCount == joinBuf.length) joinBuf = Arrays.copyOf(joinBuf, joinBuf.length * 2);
      joinBuf[joinCount++] = j;
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

    /** Successors of a node of region r's collapsed graph: a nested loop's header stands for the loop. */
    private int[] dagSucc(int r, int u) {
      int c = loops.innermost[u];
      return c != r ? loops.loop(c).exitIds : index.succ[u];
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
        for (int t : dagSucc(r, u)) push(r, node(r, t), lbl);
      }
      heap.clear();
      for (int i = 0; i < touchedCount; i++) {
        int v = touched[i];
        if (joined[v]) addJoin(v == n ? headerId[r] : v);
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

    /**
     * For every loop, the post-dominator tree of its collapsed iteration graph (own blocks, nested loop
     * headers standing for their loops, exit sinks, N) rooted at a virtual end E. Sets escapes[] for the
     * loop's own branch blocks (ipdom = E) and parentDivergent[] of its children (the exits of a child
     * have nearest common post-dominator E). O(n log n) over all loops.
     */
    private void computeIterationPostDominance() {
      int[][] own = new int[nl][];
      int[] ownCount = new int[nl];
      for (int u = 0; u < n; u++) if (loops.innermost[u] >= 0) ownCount[loops.innermost[u]]++;
      for (int l = 0; l < nl; l++) own[l] = new int[ownCount[l]];
      Arrays.fill(ownCount, 0);
      for (int u = 0; u < n; u++) {
        int l = loops.innermost[u];
        if (l >= 0) own[l][ownCount[l]++] = u;
      }
      int[] local = new int[n];
      Arrays.fill(local, -1);
      for (int l = 0; l < nl; l++) {
        LoopForest.Loop<B> loop = loops.loop(l);
        int k = 0;
        for (int u : own[l]) local[u] = k++;
        for (LoopForest.Loop<B> c : loop.children()) local[c.headerId] = k++;
        int inner = k;
        for (int x : loop.exitIds) local[x] = k++;
        int nodeN = k++, nodeE = k++;
        int m = k;
        int[][] fwd = new int[m][];
        for (int u : own[l]) fwd[local[u]] = mapTargets(l, index.distinctSucc(u), local, nodeN);
        for (LoopForest.Loop<B> c : loop.children()) fwd[local[c.headerId]] = mapTargets(l, c.exitIds, local, nodeN);
        for (int i = inner; i < nodeN; i++) fwd[i] = new int[] {nodeE};
        fwd[nodeN] = new int[] {nodeE};
        fwd[nodeE] = EMPTY;
        int[] cnt = new int[m];
        for (int u = 0; u < m; u++) for (int v : fwd[u]) cnt[v]++;
        int[][] rev = new int[m][];
        for (int v = 0; v < m; v++) rev[v] = new int[cnt[v]];
        int[] fill = new int[m];
        for (int u = 0; u < m; u++) for (int v : fwd[u]) rev[v][fill[v]++] = u;
        int[] ipdom = IntGraphs.immediateDominatorsLT(m, nodeE, rev);
        IntGraphs.Tree tree = new IntGraphs.Tree(nodeE, ipdom);
        for (int u : own[l]) escapes[u] = ipdom[local[u]] == nodeE;
        for (LoopForest.Loop<B> c : loop.children()) {
          int nca = -1;
          for (int x : mapTargets(l, c.exitIds, local, nodeN)) {
            if (!tree.inTree(x)) continue; // cannot reach the end of the iteration
            nca = nca < 0 ? x : tree.nearestCommonAncestor(nca, x);
          }
          parentDivergent[c.index] = nca == nodeE;
        }
        for (int u : own[l]) local[u] = -1;
        for (LoopForest.Loop<B> c : loop.children()) local[c.headerId] = -1;
        for (int x : loop.exitIds) local[x] = -1;
      }
    }

    private int[] mapTargets(int l, int[] targets, int[] local, int nodeN) {
      int[] out = new int[targets.length];
      int k = 0;
      for (int t : targets) {
        int v = t == headerId[l] ? nodeN : local[t];
        boolean dup = false;
        for (int j = 0; j < k; j++) if (out[j] == v) dup = true;
        if (!dup) out[k++] = v;
      }
      return k == out.length ? out : Arrays.copyOf(out, k);
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
    java.util.HashSet<Integer> seen = new java.util.HashSet<>();
    int[] out = regionIds(b, seen::add, new int[8]);
    int len = out[out.length - 1];
    int[] ids = Arrays.copyOf(out, len);
    Arrays.sort(ids);
    return index.toSet(ids);
  }

  /**
   * The union of the {@linkplain #region regions} of the given branch blocks (unreachable ones
   * ignored), in reverse postorder. O(number of blocks + sum of the region sizes).
   */
  public Set<B> regionUnion(Iterable<B> branchBlocks) {
    int n = index.n;
    int[] stamp = new int[n];
    boolean[] inUnion = new boolean[n];
    int[] buf = new int[8];
    int round = 0;
    for (B bb : branchBlocks) {
      int b = index.id(bb);
      if (b < 0) continue;
      int r = ++round;
      buf = regionIds(b, u -> {
        if (stamp[u] == r) return false;
        stamp[u] = r;
        return true;
      }, buf);
      int len = buf[buf.length - 1];
      for (int i = 0; i < len; i++) inUnion[buf[i]] = true;
    }
    int count = 0;
    for (int u = 0; u < n; u++) if (inUnion[u]) count++;
    int[] ids = new int[count];
    int k = 0;
    for (int u = 0; u < n; u++) if (inUnion[u]) ids[k++] = u;
    return index.toSet(ids);
  }

  /**
   * BFS of the region of block id b; {@code visit} returns true the first time it sees a block. The
   * result is a buffer whose last slot holds the number of ids in it.
   */
  private int[] regionIds(int b, java.util.function.IntPredicate visit, int[] buf) {
    int stop = pdt.ipdomId(pdtIndexOf(b));
    int stopId = stop == pdt.virtualExit() ? -1 : index.id(pdt.index().block(stop));
    int qt = 0;
    for (int s : index.distinctSucc(b)) {
      if (s != stopId && visit.test(s)) {
        if (qt + 1 >= buf.length) buf = Arrays.copyOf(buf, buf.length * 2);
        buf[qt++] = s;
      }
    }
    for (int qh = 0; qh < qt; qh++) {
      int u = buf[qh];
      for (int s : index.succ[u]) {
        if (s != stopId && visit.test(s)) {
          if (qt + 1 >= buf.length) buf = Arrays.copyOf(buf, buf.length * 2);
          buf[qt++] = s;
        }
      }
    }
    buf[buf.length - 1] = qt;
    return buf;
  }

  private int pdtIndexOf(int b) {
    return pdt.index() == index ? b : pdt.index().id(index.block(b));
  }

  /** The loop forest this was computed with. */
  public LoopForest<B> loops() { return loops; }
}
