package org.packetizer.core.widen;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.jgrapht.Graph;
import org.jgrapht.graph.DefaultEdge;
import org.packetizer.analysis.cfg.Cfg;
import org.packetizer.analysis.cfg.DominatorTree;
import org.junit.jupiter.api.Test;

/**
 * {@link DominatedStretches} (the emitter's O(log n) answer to "how far after a loop does the schedule
 * stay among the blocks the header dominates") against the walk it replaced, on random graphs and
 * random orders, for every block and start position.
 */
class DominatedStretchesTest {
  @Test
  void matchesTheWalkOnRandomGraphs() {
    Random r = new Random(20261124);
    for (int trial = 0; trial < 300; trial++) {
      int n = 1 + r.nextInt(trial < 200 ? 12 : 60);
      Graph<Integer, DefaultEdge> g = Cfg.newGraph();
      for (int i = 0; i < n; i++) g.addVertex(i);
      for (int i = 0; i < n; i++) {
        int k = r.nextInt(3);
        for (int e = 0; e < k; e++) {
          // mostly forward edges (a chain-like graph, as the packet function is), some back edges
          int j = r.nextInt(5) == 0 ? r.nextInt(n) : Math.min(n - 1, i + 1 + r.nextInt(3));
          if (!g.containsEdge(i, j)) g.addEdge(i, j);
        }
      }
      DominatorTree<Integer> dom = DominatorTree.compute(Cfg.of(g, 0));
      List<Integer> order = new ArrayList<>(dom.preorder());
      if (r.nextBoolean()) Collections.shuffle(order, r);
      DominatedStretches<Integer> s = new DominatedStretches<>(order, dom);
      for (int h : dom.preorder()) {
        for (int start = 0; start <= order.size(); start++) {
          int walk = start;
          while (walk < order.size() && dom.dominates(h, order.get(walk))) walk++;
          assertEquals(walk, s.end(h, start), "trial " + trial + ", block " + h + ", start " + start + ", order " + order);
        }
      }
    }
  }
}
