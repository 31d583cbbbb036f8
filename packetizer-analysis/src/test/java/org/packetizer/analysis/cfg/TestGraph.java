package org.packetizer.analysis.cfg;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Collectors;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import org.jgrapht.Graph;
import org.jgrapht.graph.DefaultEdge;

/** A small test CFG over blocks 0..n-1 (entry 0), edges in insertion (= successor) order. */
public record TestGraph(int n, List<int[]> edges) {

  public Cfg<Integer> cfg() {
    Graph<Integer, DefaultEdge> g = Cfg.newGraph();
    for (int i = 0; i < n; i++) g.addVertex(i);
    for (int[] e : edges) g.addEdge(e[0], e[1]);
    return Cfg.of(g, 0);
  }

  /** Successors with duplicates, in edge order. */
  public int[][] succ() {
    List<List<Integer>> s = new ArrayList<>();
    for (int i = 0; i < n; i++) s.add(new ArrayList<>());
    for (int[] e : edges) s.get(e[0]).add(e[1]);
    int[][] out = new int[n][];
    for (int i = 0; i < n; i++) out[i] = s.get(i).stream().mapToInt(Integer::intValue).toArray();
    return out;
  }

  @Override public String toString() {
    return "TestGraph(n=" + n + ", " + edges.stream().map(e -> e[0] + "->" + e[1]).collect(Collectors.joining(" "))
        + ")";
  }

  public static TestGraph of(int n, int... pairs) {
    List<int[]> es = new ArrayList<>();
    for (int i = 0; i < pairs.length; i += 2) es.add(new int[] {pairs[i], pairs[i + 1]});
    return new TestGraph(n, es);
  }

  /** Random small graphs: unreachable parts, self-loops, parallel edges, several or no exits. */
  public static Arbitrary<TestGraph> arbitrary(int minN, int maxN, boolean reducibleOnly) {
    return Combinators.combine(Arbitraries.integers().between(minN, maxN), Arbitraries.longs())
        .as((n, seed) -> generate(n, new Random(seed), reducibleOnly));
  }

  public static TestGraph generate(int n, Random r, boolean reducibleOnly) {
    List<int[]> edges = new ArrayList<>();
    List<Boolean> backward = new ArrayList<>();
    double backProb = 0.1 + 0.3 * r.nextDouble();
    for (int i = 0; i < n; i++) {
      double d = r.nextDouble();
      int deg = d < 0.1 ? 0 : d < 0.45 ? 1 : d < 0.92 ? 2 : 3;
      if (i == n - 1 && r.nextDouble() < 0.5) deg = Math.min(deg, 1);
      for (int k = 0; k < deg; k++) {
        double p = r.nextDouble();
        int t;
        boolean back;
        if (i < n - 1 && p >= backProb) {
          t = p < backProb + (1 - backProb) * 0.8 ? i + 1 + r.nextInt(Math.min(n - 1 - i, 3))
              : i + 1 + r.nextInt(n - 1 - i);
          back = false;
        } else {
          t = r.nextInt(i + 1);
          back = true;
        }
        edges.add(new int[] {i, t});
        backward.add(back);
      }
    }
    if (reducibleOnly) {
      // keep only backward edges whose target dominates the source in the forward DAG
      TestGraph fwd = new TestGraph(n, filter(edges, backward, false));
      Brute b = new Brute(fwd);
      List<int[]> kept = new ArrayList<>();
      for (int i = 0; i < edges.size(); i++) {
        int[] e = edges.get(i);
        if (!backward.get(i) || (b.reachable(e[0]) && b.dominates(e[1], e[0]))) kept.add(e);
      }
      edges = kept;
    }
    return new TestGraph(n, edges);
  }

  private static List<int[]> filter(List<int[]> edges, List<Boolean> back, boolean wantBack) {
    List<int[]> out = new ArrayList<>();
    for (int i = 0; i < edges.size(); i++) if (back.get(i) == wantBack) out.add(edges.get(i));
    return out;
  }
}
