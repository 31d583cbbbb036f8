package org.packetizer.analysis.cfg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.jgrapht.Graph;
import org.jgrapht.graph.DefaultEdge;
import org.junit.jupiter.api.Test;

/**
 * A graph whose blocks carry dense numbers ({@link Cfg#of(Graph, Object, java.util.function.ToIntFunction,
 * int)}, which the analyses then use for block ids instead of a hash map) gives the same analyses as the
 * same graph without numbers, whatever the numbering; blocks outside the graph stay unknown.
 */
class BlockNumberProperties {

  @Provide Arbitrary<TestGraph> anyGraph() { return TestGraph.arbitrary(1, 12, true); }

  @Property(tries = 600)
  void numberedGraphGivesTheSameAnalyses(@ForAll("anyGraph") TestGraph g, @ForAll long seed) {
    int n = g.n();
    List<Integer> perm = new ArrayList<>();
    for (int i = 0; i < n; i++) perm.add(i);
    Collections.shuffle(perm, new Random(seed));
    Graph<Integer, DefaultEdge> graph = Cfg.newGraph();
    for (int i = 0; i < n; i++) graph.addVertex(i);
    for (int[] e : g.edges()) graph.addEdge(e[0], e[1]);
    // numbers: a permutation of 0..n-1 for the graph's blocks, -1 for anything else
    Cfg<Integer> numbered = Cfg.of(graph, 0, b -> b >= 0 && b < n ? perm.get(b) : -1, n);
    CfgAnalyses<Integer> plain = CfgAnalyses.of(g.cfg());
    CfgAnalyses<Integer> num = CfgAnalyses.of(numbered);

    assertEquals(plain.order(), num.order(), "linearization order");
    assertEquals(plain.dom().preorder(), num.dom().preorder(), "dominator preorder");
    for (int a = 0; a < n; a++) {
      assertEquals(plain.isReachable(a), num.isReachable(a), "reachable " + a);
      assertEquals(plain.dom().idom(a), num.dom().idom(a), "idom " + a);
      assertEquals(plain.pdt().ipdom(a), num.pdt().ipdom(a), "ipdom " + a);
      assertEquals(plain.loops().loopOf(a).map(l -> l.header()), num.loops().loopOf(a).map(l -> l.header()), "loop of " + a);
      for (int b = 0; b < n; b++) {
        assertEquals(plain.dom().dominates(a, b), num.dom().dominates(a, b), "dominates " + a + " " + b);
        assertEquals(plain.pdt().postDominates(a, b), num.pdt().postDominates(a, b), "post-dominates " + a + " " + b);
      }
    }
    // a block that is not in the graph (number -1, or beyond the count) is not reachable
    assertFalse(num.isReachable(n + 3));
    assertFalse(num.isReachable(-7));
  }

  @Test
  void numbersThatRepeatAreRejected() {
    TestGraph g = TestGraph.of(3, 0, 1, 1, 2);
    Graph<Integer, DefaultEdge> graph = Cfg.newGraph();
    for (int i = 0; i < 3; i++) graph.addVertex(i);
    for (int[] e : g.edges()) graph.addEdge(e[0], e[1]);
    assertThrows(IllegalStateException.class, () -> CfgAnalyses.of(Cfg.of(graph, 0, b -> b == 2 ? 0 : b, 3)));
    assertThrows(IllegalStateException.class, () -> CfgAnalyses.of(Cfg.of(graph, 0, b -> b + 1, 3)));
  }
}
