package org.packetizer.analysis.cfg;

import java.util.Optional;

/**
 * Reducibility test. A CFG is reducible when every cycle has a single entry block that dominates the
 * cycle; equivalently, when in a depth-first search from the entry every retreating edge {@code u ->
 * v} (an edge to a block on the DFS stack, self-loops included) has {@code v} dominating {@code u}.
 * Only blocks reachable from the entry are considered.
 */
public final class Reducibility {
  private Reducibility() {}

  /**
   * A retreating edge of a DFS (successors in edge order) whose target does not dominate its source,
   * or empty if the reachable part of the CFG is reducible. The first such edge the DFS meets is
   * returned, so the answer is deterministic.
   */
  public static <B> Optional<Edge<B>> findIrreducibleEdge(Cfg<B> cfg) {
    return findIrreducibleEdge(DominatorTree.compute(cfg));
  }

  static <B> Optional<Edge<B>> findIrreducibleEdge(DominatorTree<B> dom) {
    CfgIndex<B> index = dom.index();
    IntGraphs.Tree tree = dom.tree();
    int n = index.n;
    int[] state = new int[n]; // 0 new, 1 on stack, 2 done
    int[] stackN = new int[n];
    int[] stackI = new int[n];
    int sp = 0;
    stackN[sp] = 0;
    stackI[sp++] = 0;
    state[0] = 1;
    while (sp > 0) {
      int u = stackN[sp - 1];
      int i = stackI[sp - 1];
      int[] ss = index.succ[u];
      if (i < ss.length) {
        stackI[sp - 1] = i + 1;
        int v = ss[i];
        if (state[v] == 0) {
          state[v] = 1;
          stackN[sp] = v;
          stackI[sp++] = 0;
        } else if (state[v] == 1 && !tree.isAncestor(v, u)) {
          return Optional.of(new Edge<>(index.block(u), index.block(v)));
        }
      } else {
        state[u] = 2;
        sp--;
      }
    }
    return Optional.empty();
  }
}
