package org.packetizer.analysis.cfg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Large graphs: nothing recurses on the Java stack, and everything stays near-linear. */
class ScaleTests {

  @Test
  void longChainWithBackEdgeDoesNotOverflowTheStack() {
    int n = 100_000;
    List<int[]> edges = new ArrayList<>();
    for (int i = 0; i + 1 < n; i++) edges.add(new int[] {i, i + 1});
    edges.add(new int[] {n - 2, 1}); // one big loop
    edges.add(new int[] {0, n - 1});
    TestGraph g = new TestGraph(n, edges);
    CfgAnalyses<Integer> an = assertTimeoutPreemptively(Duration.ofSeconds(20), () -> CfgAnalyses.of(g.cfg()));
    assertEquals(n, an.order().size());
    assertEquals(1, an.loops().all().size());
    assertEquals(n - 2, an.loops().all().get(0).blocks().size());
    assertEquals(n - 2, an.dom().depth(n - 2));
    assertTrue(an.dom().dominates(1, n - 2));
    assertEquals(n - 2, an.sync().region(n - 2).size(), "the loop: everything up to the exit");
  }

  @Test
  void deeplyNestedLoops() {
    int depth = 1500;
    // h0 -> h1 -> ... -> h(depth-1) -> body; body -> l(depth-1) -> ... each l(k) -> h(k) and l(k) -> l(k-1)
    List<int[]> edges = new ArrayList<>();
    int body = 2 * depth, exit = 2 * depth + 1;
    for (int k = 0; k < depth; k++) edges.add(new int[] {k, k + 1 < depth ? k + 1 : body});
    edges.add(new int[] {body, depth + depth - 1});
    for (int k = depth - 1; k >= 0; k--) {
      int latch = depth + k;
      edges.add(new int[] {latch, k});
      edges.add(new int[] {latch, k > 0 ? latch - 1 : exit});
    }
    TestGraph g = new TestGraph(2 * depth + 2, edges);
    CfgAnalyses<Integer> an = assertTimeoutPreemptively(Duration.ofSeconds(20), () -> CfgAnalyses.of(g.cfg()));
    assertEquals(depth, an.loops().all().size());
    assertEquals(depth, an.loops().depth(body));
    // the innermost latch makes only its own loop divergent: every loop has a single exit
    assertEquals(List.of(an.loops().loopOf(body).orElseThrow()), an.sync().divergentLoops(depth + depth - 1));
    List<Integer> order = an.order();
    assertEquals(0, order.get(0));
    assertEquals(exit, order.get(order.size() - 1));
  }

  @Test
  void largeStructuredFunction() {
    TestGraph g = StructuredGen.generateLarge(new Random(42), 50_000, 6);
    CfgAnalyses<Integer> an = assertTimeoutPreemptively(Duration.ofSeconds(30), () -> CfgAnalyses.of(g.cfg()));
    assertTrue(an.order().size() > 45_000, "mostly reachable: " + an.order().size());
    assertTrue(an.loops().all().size() > 500);
    int joins = 0;
    for (Integer b : an.sync().branchBlocks()) joins += an.sync().joinPoints(b).size();
    assertTrue(joins > 500);
  }
}
