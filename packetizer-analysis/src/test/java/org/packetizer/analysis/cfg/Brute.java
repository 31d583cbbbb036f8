package org.packetizer.analysis.cfg;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Brute-force reference implementations of the CFG analyses, straight from their definitions, for
 * small graphs. Deliberately independent of the production code (no shared helpers).
 */
public final class Brute {
  public final int n;
  public final int[][] succ;
  public final List<Set<Integer>> preds = new ArrayList<>();
  private final boolean[] reach0;

  public Brute(TestGraph g) {
    n = g.n();
    succ = g.succ();
    for (int i = 0; i < n; i++) preds.add(new TreeSet<>());
    for (int u = 0; u < n; u++) for (int v : succ[u]) preds.get(v).add(u);
    reach0 = reach(0, -1);
  }

  /** Nodes reachable from {@code from} without entering {@code removed}. */
  public boolean[] reach(int from, int removed) {
    boolean[] seen = new boolean[n];
    if (from == removed) return seen;
    ArrayDeque<Integer> q = new ArrayDeque<>();
    q.add(from);
    seen[from] = true;
    while (!q.isEmpty()) {
      int u = q.poll();
      for (int v : succ[u]) {
        if (v != removed && !seen[v]) {
          seen[v] = true;
          q.add(v);
        }
      }
    }
    return seen;
  }

  public boolean reachable(int b) { return reach0[b]; }

  public List<Integer> reachableNodes() {
    List<Integer> out = new ArrayList<>();
    for (int i = 0; i < n; i++) if (reach0[i]) out.add(i);
    return out;
  }

  /** a dominates b: every path from the entry to b passes a. */
  public boolean dominates(int a, int b) {
    if (a == b) return true;
    if (!reach0[a] || !reach0[b]) return false;
    return !reach(0, a)[b];
  }

  public Integer idom(int b) {
    if (!reach0[b] || b == 0) return null;
    List<Integer> strict = new ArrayList<>();
    for (int d = 0; d < n; d++) if (d != b && dominates(d, b)) strict.add(d);
    for (int d : strict) {
      boolean all = true;
      for (int e : strict) if (!dominates(e, d)) all = false;
      if (all) return d;
    }
    throw new AssertionError("no idom");
  }

  public Set<Integer> dominanceFrontier(int a) {
    Set<Integer> out = new TreeSet<>();
    if (!reach0[a]) return out;
    for (int y = 0; y < n; y++) {
      if (!reach0[y]) continue;
      boolean strictly = a != y && dominates(a, y);
      if (strictly) continue;
      for (int p : preds.get(y)) if (reach0[p] && dominates(a, p)) out.add(y);
    }
    return out;
  }

  // ---------------------------------------------------------------- post-dominance

  public boolean isExit(int u) { return succ[u].length == 0; }

  public boolean reachesExit(int u) {
    boolean[] r = reach(u, -1);
    for (int v = 0; v < n; v++) if (r[v] && isExit(v)) return true;
    return false;
  }

  /** Terminal SCCs (no edge leaves them) among reachable blocks that cannot reach an exit. */
  public List<Set<Integer>> terminalInfiniteSccs() {
    List<Set<Integer>> out = new ArrayList<>();
    Set<Integer> done = new HashSet<>();
    for (int u = 0; u < n; u++) {
      if (!reach0[u] || reachesExit(u) || done.contains(u)) continue;
      boolean[] ru = reach(u, -1);
      Set<Integer> scc = new TreeSet<>();
      for (int v = 0; v < n; v++) if (ru[v] && reach(v, -1)[u]) scc.add(v);
      done.addAll(scc);
      boolean terminal = true;
      for (int v : scc) for (int w : succ[v]) if (!scc.contains(w)) terminal = false;
      if (terminal) out.add(scc);
    }
    return out;
  }

  /** a post-dominates b in the reverse graph rooted at a virtual exit linked from {@code linked}. */
  public boolean postDominates(int a, int b, Set<Integer> linked) {
    if (a == b) return true;
    if (!reach0[a] || !reach0[b]) return false;
    // reverse reachability from the virtual exit avoiding a
    boolean[] seen = new boolean[n];
    ArrayDeque<Integer> q = new ArrayDeque<>();
    for (int l : linked) if (l != a && !seen[l]) { seen[l] = true; q.add(l); }
    while (!q.isEmpty()) {
      int v = q.poll();
      for (int p : preds.get(v)) {
        if (reach0[p] && p != a && !seen[p]) {
          seen[p] = true;
          q.add(p);
        }
      }
    }
    return !seen[b];
  }

  /** ipdom or -1 for the virtual exit (null for unreachable). */
  public Integer ipdom(int b, Set<Integer> linked) {
    if (!reach0[b]) return null;
    List<Integer> strict = new ArrayList<>();
    for (int d = 0; d < n; d++) if (d != b && reach0[d] && postDominates(d, b, linked)) strict.add(d);
    for (int d : strict) {
      boolean all = true;
      for (int e : strict) if (!postDominates(e, d, linked)) all = false;
      if (all) return d;
    }
    return -1;
  }

  public Set<Integer> postDominanceFrontier(int a, Set<Integer> linked) {
    Set<Integer> out = new TreeSet<>();
    if (!reach0[a]) return out;
    for (int y = 0; y < n; y++) {
      if (!reach0[y]) continue;
      if (a != y && postDominates(a, y, linked)) continue;
      for (int s : succ[y]) if (postDominates(a, s, linked)) out.add(y);
    }
    return out;
  }

  // ---------------------------------------------------------------- reducibility (T1/T2)

  /** T1 (remove self-loops) / T2 (merge a node with a unique predecessor into it) on the reachable part. */
  public boolean reducibleByT1T2() {
    Map<Integer, Set<Integer>> out = new HashMap<>();
    Map<Integer, Set<Integer>> in = new HashMap<>();
    for (int u : reachableNodes()) {
      out.put(u, new HashSet<>());
      in.put(u, new HashSet<>());
    }
    for (int u : reachableNodes()) {
      for (int v : succ[u]) {
        out.get(u).add(v);
        in.get(v).add(u);
      }
    }
    boolean progress = true;
    while (progress && out.size() > 1) {
      progress = false;
      for (int u : new ArrayList<>(out.keySet())) { // T1
        if (out.get(u).remove(u)) {
          in.get(u).remove(u);
          progress = true;
        }
      }
      for (int v : new ArrayList<>(out.keySet())) { // T2
        if (v == 0 || !out.containsKey(v)) continue;
        Set<Integer> p = in.get(v);
        if (p.size() == 1 && !p.contains(v)) {
          int u = p.iterator().next();
          out.get(u).remove(v);
          for (int w : out.get(v)) {
            in.get(w).remove(v);
            out.get(u).add(w);
            in.get(w).add(u);
          }
          out.remove(v);
          in.remove(v);
          progress = true;
        }
      }
    }
    return out.size() == 1;
  }

  // ---------------------------------------------------------------- natural loops

  /** Headers (targets of back edges u -> h with h dominating u), ascending. */
  public Set<Integer> headers() {
    Set<Integer> hs = new TreeSet<>();
    for (int u = 0; u < n; u++) {
      if (!reach0[u]) continue;
      for (int h : succ[u]) if (dominates(h, u)) hs.add(h);
    }
    return hs;
  }

  public Set<Integer> latches(int h) {
    Set<Integer> out = new TreeSet<>();
    for (int p : preds.get(h)) if (reach0[p] && dominates(h, p)) out.add(p);
    return out;
  }

  /** h plus every block that reaches a latch of h without passing through h. */
  public Set<Integer> naturalLoop(int h) {
    Set<Integer> loop = new TreeSet<>();
    loop.add(h);
    ArrayDeque<Integer> q = new ArrayDeque<>();
    for (int l : latches(h)) if (loop.add(l)) q.add(l);
    while (!q.isEmpty()) {
      int v = q.poll();
      for (int p : preds.get(v)) if (reach0[p] && loop.add(p)) q.add(p);
    }
    return loop;
  }

  /** Loops containing b, innermost (smallest) first. */
  public List<Set<Integer>> loopsContaining(int b) {
    List<Set<Integer>> out = new ArrayList<>();
    for (int h : headers()) {
      Set<Integer> l = naturalLoop(h);
      if (l.contains(b)) out.add(l);
    }
    out.sort(Comparator.comparingInt(Set::size));
    return out;
  }

  public int headerOf(Set<Integer> loop) {
    for (int h : loop) if (headers().contains(h) && naturalLoop(h).equals(loop)) return h;
    throw new AssertionError();
  }

  public Set<Integer> exits(Set<Integer> loop) {
    Set<Integer> out = new TreeSet<>();
    for (int u : loop) for (int v : succ[u]) if (!loop.contains(v)) out.add(v);
    return out;
  }

  // ---------------------------------------------------------------- disjoint paths / sync dependence

  /** A small explicit graph: node i is block {@code block.get(i)}, or N (-1) / E (-2). */
  public static final class LGraph {
    public final List<Integer> block = new ArrayList<>();
    public final Map<Integer, Integer> local = new HashMap<>();
    public final List<Set<Integer>> adj = new ArrayList<>();
    int nodeN = -1, nodeE = -1;

    int add(int blk) {
      block.add(blk);
      adj.add(new LinkedHashSet<>());
      int i = block.size() - 1;
      if (blk >= 0) local.put(blk, i);
      return i;
    }
  }

  /** IG(L) (loop != null) or the reachable CFG (loop == null), with an end node E linked from sinks. */
  public LGraph iterationGraph(Set<Integer> loop) {
    LGraph g = new LGraph();
    if (loop == null) {
      for (int u : reachableNodes()) g.add(u);
      for (int u : reachableNodes()) for (int v : succ[u]) g.adj.get(g.local.get(u)).add(g.local.get(v));
      return g;
    }
    int h = headerOf(loop);
    for (int u : loop) g.add(u);
    for (int x : exits(loop)) g.add(x);
    g.nodeN = g.add(-1);
    g.nodeE = g.add(-2);
    for (int u : loop) {
      for (int v : succ[u]) {
        int t = v == h ? g.nodeN : g.local.get(v);
        g.adj.get(g.local.get(u)).add(t);
      }
    }
    for (int x : exits(loop)) g.adj.get(g.local.get(x)).add(g.nodeE);
    g.adj.get(g.nodeN).add(g.nodeE);
    return g;
  }

  /** Is L divergent because of b: no node other than b is on every path from b to E in IG(L)? */
  public boolean divergentLoop(Set<Integer> loop, int b) {
    LGraph g = iterationGraph(loop);
    int lb = g.local.get(b);
    if (!reachLocal(g, lb, -1)[g.nodeE]) return false;
    for (int q = 0; q < g.block.size(); q++) {
      if (q == lb || q == g.nodeE) continue;
      if (!reachLocal(g, lb, q)[g.nodeE]) return false;
    }
    return true;
  }

  /**
   * Is L divergent given lanes leave through any of {@code sources} (the exits of a divergent inner
   * loop): no node other than E is on every path of IG(L) from the sources to E?
   */
  public boolean divergentFrom(Set<Integer> loop, Set<Integer> sources) {
    LGraph g = iterationGraph(loop);
    int h = headerOf(loop);
    List<Integer> src = new ArrayList<>();
    for (int x : sources) src.add(x == h ? g.nodeN : g.local.get(x));
    boolean any = false;
    for (int s : src) any |= reachLocal(g, s, -1)[g.nodeE];
    if (!any) return false;
    for (int q = 0; q < g.block.size(); q++) {
      if (q == g.nodeE) continue;
      boolean escapes = false;
      for (int s : src) if (s != q && reachLocal(g, s, q)[g.nodeE]) escapes = true;
      if (!escapes) return false;
    }
    return true;
  }

  static boolean[] reachLocal(LGraph g, int from, int removed) {
    boolean[] seen = new boolean[g.block.size()];
    ArrayDeque<Integer> q = new ArrayDeque<>();
    seen[from] = true;
    q.add(from);
    while (!q.isEmpty()) {
      int u = q.poll();
      for (int v : g.adj.get(u)) if (v != removed && !seen[v]) { seen[v] = true; q.add(v); }
    }
    return seen;
  }

  /** Whether two paths from different sources reach target sharing only the target (max-flow). */
  public static boolean twoDisjointPaths(List<Set<Integer>> adj, Set<Integer> sources, int target) {
    int m = adj.size();
    int size = 2 * m + 1;
    int s = 2 * m;
    int t = 2 * target;
    int[][] cap = new int[size][size];
    for (int src : sources) cap[s][2 * src] += 1;
    for (int v = 0; v < m; v++) if (v != target) cap[2 * v][2 * v + 1] = 1;
    for (int u = 0; u < m; u++) {
      if (u == target) continue;
      for (int v : adj.get(u)) cap[2 * u + 1][2 * v] = 1;
    }
    int flow = 0;
    while (flow < 2) {
      int[] prev = new int[size];
      java.util.Arrays.fill(prev, -1);
      prev[s] = s;
      ArrayDeque<Integer> q = new ArrayDeque<>();
      q.add(s);
      while (!q.isEmpty() && prev[t] < 0) {
        int u = q.poll();
        for (int v = 0; v < size; v++) {
          if (prev[v] < 0 && cap[u][v] > 0) {
            prev[v] = u;
            q.add(v);
          }
        }
      }
      if (prev[t] < 0) break;
      for (int v = t; v != s; v = prev[v]) {
        cap[prev[v]][v] -= 1;
        cap[v][prev[v]] += 1;
      }
      flow++;
    }
    return flow >= 2;
  }

  private Set<Integer> joinsIn(LGraph g, Set<Integer> sourceBlocks, int header, int removeOutOf) {
    List<Set<Integer>> adj = new ArrayList<>();
    for (int i = 0; i < g.adj.size(); i++) {
      Set<Integer> a = new LinkedHashSet<>(g.adj.get(i));
      a.remove(g.nodeE);
      adj.add(i == removeOutOf ? new HashSet<>() : a);
    }
    Set<Integer> src = new HashSet<>();
    for (int sb : sourceBlocks) src.add(sb == header ? g.nodeN : g.local.get(sb));
    Set<Integer> out = new TreeSet<>();
    for (int j = 0; j < g.block.size(); j++) {
      if (j == g.nodeE) continue;
      if (twoDisjointPaths(adj, src, j)) out.add(j == g.nodeN ? header : g.block.get(j));
    }
    return out;
  }

  /** Result of the brute-force sync dependence of one branch. */
  public record Sync(Set<Integer> joins, List<Set<Integer>> divergentLoops, Set<Integer> divergentExits) {}

  public Sync sync(int b) {
    Set<Integer> succs = new LinkedHashSet<>();
    for (int s : succ[b]) succs.add(s);
    if (!reach0[b] || succs.size() < 2) return new Sync(Set.of(), List.of(), Set.of());
    List<Set<Integer>> chain = loopsContaining(b);
    Set<Integer> joins = new TreeSet<>();
    // level 0
    Set<Integer> c0 = chain.isEmpty() ? null : chain.get(0);
    LGraph g0 = iterationGraph(c0);
    joins.addAll(joinsIn(g0, succs, c0 == null ? -5 : headerOf(c0), g0.local.get(b)));
    List<Set<Integer>> div = new ArrayList<>();
    Set<Integer> exits = new TreeSet<>();
    for (int i = 0; i < chain.size(); i++) {
      boolean divergent = i == 0 ? divergentLoop(chain.get(0), b) : divergentFrom(chain.get(i), exits(chain.get(i - 1)));
      if (!divergent) break;
      div.add(chain.get(i));
      exits.addAll(exits(chain.get(i)));
      Set<Integer> next = i + 1 < chain.size() ? chain.get(i + 1) : null;
      LGraph g = iterationGraph(next);
      joins.addAll(joinsIn(g, exits(chain.get(i)), next == null ? -5 : headerOf(next), -1));
    }
    return new Sync(joins, div, exits);
  }

  /** Blocks reachable from a successor of b without passing stop (stop = -1: no stop). */
  public Set<Integer> region(int b, int stop) {
    Set<Integer> out = new TreeSet<>();
    for (int s : succ[b]) {
      if (s == stop) continue;
      boolean[] r = reach(s, stop);
      for (int v = 0; v < n; v++) if (r[v]) out.add(v);
    }
    return out;
  }
}
