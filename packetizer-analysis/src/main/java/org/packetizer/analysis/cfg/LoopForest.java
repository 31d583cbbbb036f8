package org.packetizer.analysis.cfg;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The natural loops of a reducible {@link Cfg}, as a forest ordered by nesting (LLVM's LoopInfo).
 *
 * <p>A <em>back edge</em> is an edge {@code u -> h} whose target dominates its source; {@code h} is
 * then a loop <em>header</em> and {@code u} a <em>latch</em>. The loop of header {@code h} is {@code h}
 * plus every block that can reach one of its latches without passing through {@code h}; all back edges
 * into the same header form one loop. Loops are properly nested: a loop's children are the maximal
 * loops strictly inside it.
 *
 * <p>Only blocks reachable from the entry are considered: unreachable blocks are in no loop ({@link
 * #loopOf} is empty, {@link #depth} is 0), and unreachable predecessors are ignored (also for latches
 * and preheaders).
 *
 * <p>Orders: {@link #topLevel()} and {@link Loop#children()} are sorted by the header's position in
 * the CFG's reverse postorder; {@link #all()} is a preorder of the forest (parents before children);
 * {@link Loop#blocks()} and the other block sets iterate in reverse postorder of the CFG, so the
 * header comes first. Loops compare by identity. Instances are immutable.
 */
public final class LoopForest<B> {

  /**
   * One natural loop. Equality is identity. All collections are unmodifiable and in the CFG's reverse
   * postorder (header first).
   */
  public static final class Loop<B> {
    int index;
    final int headerId;
    private final B header;
    Loop<B> parent;
    final List<Loop<B>> children = new ArrayList<>();
    int depth;
    int[] blockIds;
    int[] exitIds;
    private Set<B> blocks;
    private List<B> latches;
    private Set<B> exiting;
    private Set<B> exits;
    private B preheader;

    private Loop(int index, int headerId, B header) {
      this.index = index;
      this.headerId = headerId;
      this.header = header;
    }

    /** The single entry block of the loop; it dominates every block of the loop. */
    public B header() { return header; }

    /** The blocks in the loop with an edge to the header (sources of back edges). */
    public List<B> latches() { return latches; }

    /** Whether {@code b} is one of this loop's latches. */
    public boolean isLatch(B b) { return latches.contains(b); }

    /**
     * LLVM's preheader: the unique predecessor of the header outside the loop, provided it has exactly
     * one successor edge (the one to the header). Empty otherwise (several entering blocks, or the
     * entering block also branches elsewhere). A header that is the CFG entry has no preheader.
     */
    public Optional<B> preheader() { return Optional.ofNullable(preheader); }

    /** All blocks of the loop including those of nested loops; header first. */
    public Set<B> blocks() { return blocks; }

    /** Whether {@code b} belongs to this loop (or one nested in it). */
    public boolean contains(B b) { return blocks.contains(b); }

    /** Blocks inside the loop with at least one successor outside it. */
    public Set<B> exitingBlocks() { return exiting; }

    /** Blocks outside the loop that are successors of blocks inside it (distinct). */
    public Set<B> exitBlocks() { return exits; }

    /** Nesting depth: 1 for a top-level loop. */
    public int depth() { return depth; }

    /** The innermost loop strictly containing this one. */
    public Optional<Loop<B>> parent() { return Optional.ofNullable(parent); }

    /** The loops directly nested in this one, by header position. */
    public List<Loop<B>> children() { return Collections.unmodifiableList(children); }

    @Override public String toString() { return "loop(" + header + ", depth " + depth + ")"; }
  }

  private final CfgIndex<B> index;
  private final DominatorTree<B> dom;
  /** All loops in preorder; a loop's index is its position here. */
  private final List<Loop<B>> all;
  private final List<Loop<B>> topLevel;
  /** innermost[id] = index of innermost loop containing block id, -1 if none. */
  final int[] innermost;
  /** Loops l..subtreeEnd[l]-1 (in preorder) are l and the loops nested in it. */
  private final int[] subtreeEnd;

  private LoopForest(CfgIndex<B> index, DominatorTree<B> dom, List<Loop<B>> all, List<Loop<B>> top,
      int[] innermost) {
    this.index = index;
    this.dom = dom;
    this.all = all;
    this.topLevel = top;
    this.innermost = innermost;
    this.subtreeEnd = new int[all.size()];
    for (int l = all.size() - 1; l >= 0; l--) {
      Loop<B> loop = all.get(l);
      int end = l + 1;
      for (Loop<B> c : loop.children) end = Math.max(end, subtreeEnd[c.index]);
      subtreeEnd[l] = end;
    }
  }

  /**
   * Computes the loop forest.
   *
   * @param dom the dominator tree of {@code cfg}
   * @throws IrreducibleCfgException if the reachable CFG is irreducible (see {@link Reducibility})
   */
  public static <B> LoopForest<B> compute(Cfg<B> cfg, DominatorTree<B> dom) {
    if (dom.cfg() != cfg) throw new IllegalArgumentException("dominator tree of another CFG");
    Optional<Edge<B>> bad = Reducibility.findIrreducibleEdge(dom);
    if (bad.isPresent()) throw new IrreducibleCfgException(bad.get());
    CfgIndex<B> index = dom.index();
    IntGraphs.Tree tree = dom.tree();
    int n = index.n;
    // headers: targets of back edges
    boolean[] isHeader = new boolean[n];
    for (int u = 0; u < n; u++) for (int v : index.succ[u]) if (tree.isAncestor(v, u)) isHeader[v] = true;
    Integer[] headers = java.util.stream.IntStream.range(0, n).filter(i -> isHeader[i]).boxed()
        .toArray(Integer[]::new);
    // inner headers first: descending preorder number of the dominator tree
    Arrays.sort(headers, (a, b) -> Integer.compare(tree.pre[b], tree.pre[a]));
    List<Loop<B>> created = new ArrayList<>();
    int[] owner = new int[n];
    Arrays.fill(owner, -1);
    int[] work = new int[Math.max(4, n)];
    for (int h : headers) {
      Loop<B> loop = new Loop<>(created.size(), h, index.block(h));
      created.add(loop);
      owner[h] = loop.index;
      int wt = 0;
      for (int p : index.pred[h]) {
        if (tree.isAncestor(h, p)) {
          if (wt == work.length) work = Arrays.copyOf(work, wt * 2);
          work[wt++] = p;
        }
      }
      while (wt > 0) {
        int b = work[--wt];
        if (owner[b] == -1) {
          owner[b] = loop.index;
          for (int p : index.pred[b]) {
            if (wt == work.length) work = Arrays.copyOf(work, wt * 2);
            work[wt++] = p;
          }
        } else {
          Loop<B> sub = created.get(owner[b]);
          while (sub.parent != null) sub = sub.parent;
          if (sub != loop) {
            sub.parent = loop;
            for (int p : index.pred[sub.headerId]) {
              if (wt == work.length) work = Arrays.copyOf(work, wt * 2);
              work[wt++] = p;
            }
          }
        }
      }
    }
    // children and preorder numbering
    List<Loop<B>> top = new ArrayList<>();
    for (Loop<B> l : created) {
      if (l.parent == null) top.add(l); else l.parent.children.add(l);
    }
    java.util.Comparator<Loop<B>> byHeader = (a, b) -> Integer.compare(a.headerId, b.headerId);
    top.sort(byHeader);
    for (Loop<B> l : created) l.children.sort(byHeader);
    List<Loop<B>> all = new ArrayList<>(created.size());
    List<Loop<B>> stack = new ArrayList<>();
    for (int i = top.size() - 1; i >= 0; i--) stack.add(top.get(i));
    while (!stack.isEmpty()) {
      Loop<B> l = stack.removeLast();
      l.depth = l.parent == null ? 1 : l.parent.depth + 1;
      all.add(l);
      for (int i = l.children.size() - 1; i >= 0; i--) stack.add(l.children.get(i));
    }
    // re-index loops in preorder
    int[] remap = new int[created.size()];
    for (int i = 0; i < all.size(); i++) remap[all.get(i).index] = i;
    for (int i = 0; i < all.size(); i++) all.get(i).index = i;
    List<Loop<B>> reindexed = all;
    List<Loop<B>> freshTop = top;
    int[] innermost = new int[n];
    for (int u = 0; u < n; u++) innermost[u] = owner[u] < 0 ? -1 : remap[owner[u]];
    // blocks
    int[] count = new int[reindexed.size()];
    for (int u = 0; u < n; u++) {
      for (Loop<B> l = innermost[u] < 0 ? null : reindexed.get(innermost[u]); l != null; l = l.parent) {
        count[l.index]++;
      }
    }
    for (Loop<B> l : reindexed) l.blockIds = new int[count[l.index]];
    Arrays.fill(count, 0);
    for (int u = 0; u < n; u++) {
      for (Loop<B> l = innermost[u] < 0 ? null : reindexed.get(innermost[u]); l != null; l = l.parent) {
        l.blockIds[count[l.index]++] = u;
      }
    }
    LoopForest<B> forest = new LoopForest<>(index, dom, Collections.unmodifiableList(reindexed),
        Collections.unmodifiableList(freshTop), innermost);
    for (Loop<B> l : reindexed) forest.finish(l);
    return forest;
  }

  private void finish(Loop<B> l) {
    l.blocks = new BlockSet<>(this, l);
    List<B> latches = new ArrayList<>();
    for (int p : index.pred[l.headerId]) if (containsId(l.index, p)) latches.add(index.block(p));
    l.latches = Collections.unmodifiableList(latches);
    LinkedHashSet<B> exiting = new LinkedHashSet<>();
    LinkedHashSet<Integer> exitIds = new LinkedHashSet<>();
    for (int u : l.blockIds) {
      for (int v : index.succ[u]) {
        if (!containsId(l.index, v)) {
          exiting.add(index.block(u));
          exitIds.add(v);
        }
      }
    }
    l.exitIds = exitIds.stream().mapToInt(Integer::intValue).toArray();
    l.exiting = Collections.unmodifiableSet(exiting);
    l.exits = index.toSet(l.exitIds);
    int outside = -1, outsideCount = 0;
    for (int p : index.pred[l.headerId]) {
      if (!containsId(l.index, p)) {
        outside = p;
        outsideCount++;
      }
    }
    if (outsideCount == 1 && index.succ[outside].length == 1) l.preheader = index.block(outside);
  }

  CfgIndex<B> index() { return index; }

  /** Unmodifiable view of a loop's blocks in reverse postorder, with O(1) {@code contains}. */
  private static final class BlockSet<B> extends java.util.AbstractSet<B> {
    private final LoopForest<B> forest;
    private final Loop<B> loop;

    BlockSet(LoopForest<B> forest, Loop<B> loop) {
      this.forest = forest;
      this.loop = loop;
    }

    @Override public int size() { return loop.blockIds.length; }

    @SuppressWarnings("unchecked")
    @Override public boolean contains(Object o) {
      int u = forest.index.id((B) o);
      return u >= 0 && forest.containsId(loop.index, u);
    }

    @Override public java.util.Iterator<B> iterator() {
      return new java.util.Iterator<>() {
        int i = 0;

        @Override public boolean hasNext() { return i < loop.blockIds.length; }

        @Override public B next() {
          if (i >= loop.blockIds.length) throw new java.util.NoSuchElementException();
          return forest.index.block(loop.blockIds[i++]);
        }
      };
    }
  }

  /** Internal: whether loop number l contains block id u. O(1): descendants of l are l..subtreeEnd[l]-1. */
  boolean containsId(int l, int u) {
    int c = innermost[u];
    return c >= l && c < subtreeEnd[l];
  }

  /** Internal: loop by index (its position in {@link #all()}). */
  Loop<B> loop(int i) { return all.get(i); }

  /** The CFG. */
  public Cfg<B> cfg() { return index.cfg; }

  /** The dominator tree the forest was built from. */
  public DominatorTree<B> dominatorTree() { return dom; }

  /** The outermost loops, by header position in reverse postorder. */
  public List<Loop<B>> topLevel() { return topLevel; }

  /** Every loop, parents before children (preorder of the forest). */
  public List<Loop<B>> all() { return all; }

  /** The innermost loop containing {@code b}; empty outside loops and for unreachable blocks. */
  public Optional<Loop<B>> loopOf(B b) {
    int u = index.id(b);
    if (u < 0 || innermost[u] < 0) return Optional.empty();
    return Optional.of(all.get(innermost[u]));
  }

  /** Loop nesting depth of {@code b}: 0 outside loops (and for unreachable blocks). */
  public int depth(B b) {
    return loopOf(b).map(Loop::depth).orElse(0);
  }

  /** The loop whose header is {@code b}, if {@code b} is a header. */
  public Optional<Loop<B>> loopWithHeader(B b) {
    return loopOf(b).filter(l -> l.header().equals(b));
  }

  /** Whether {@code b} is the header of a loop. */
  public boolean isHeader(B b) { return loopWithHeader(b).isPresent(); }

  /**
   * Whether {@code from -> to} is a back edge: {@code to} is a loop header and {@code from} is one of
   * its latches. (This does not check that the edge exists.)
   */
  public boolean isBackEdge(B from, B to) {
    return loopWithHeader(to).map(l -> l.contains(from)).orElse(false);
  }

  /** All back edges, by latch then header in reverse postorder. */
  public List<Edge<B>> backEdges() {
    List<Edge<B>> out = new ArrayList<>();
    for (int u = 0; u < index.n; u++) {
      for (int v : index.distinctSucc(u)) {
        if (innermost[v] >= 0 && all.get(innermost[v]).headerId == v && containsId(innermost[v], u)) {
          out.add(new Edge<>(index.block(u), index.block(v)));
        }
      }
    }
    return out;
  }
}
