package org.packetizer.analysis.cfg;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.statistics.Statistics;

/** Sync dependence (join points, divergent loops) and regions against brute-force path searches. */
class SyncProperties {

  @Provide Arbitrary<TestGraph> reducibleGraph() { return TestGraph.arbitrary(2, 12, true); }

  @Provide Arbitrary<TestGraph> structuredGraph() { return StructuredGen.arbitrary(18, 4); }

  @Property(tries = 800)
  void syncDependenceOnStructuredGraphs(@ForAll("structuredGraph") TestGraph g) {
    syncDependenceMatchesDisjointPathDefinition(g);
  }

  @Property(tries = 1500)
  void syncDependenceMatchesDisjointPathDefinition(@ForAll("reducibleGraph") TestGraph g) {
    Brute br = new Brute(g);
    CfgAnalyses<Integer> an = CfgAnalyses.of(g.cfg());
    SyncDependence<Integer> sync = an.sync();
    boolean anyJoin = false, anyDivLoop = false, outerJoin = false;
    for (int b = 0; b < g.n(); b++) {
      Brute.Sync expected = br.sync(b);
      assertEquals(expected.joins(), new TreeSet<>(sync.joinPoints(b)), "joins of " + b);
      List<Set<Integer>> got = new ArrayList<>();
      for (LoopForest.Loop<Integer> l : sync.divergentLoops(b)) got.add(new TreeSet<>(l.blocks()));
      assertEquals(expected.divergentLoops(), got, "divergent loops of " + b);
      assertEquals(expected.divergentExits(), new TreeSet<>(sync.divergentLoopExits(b)), "exits of " + b);
      anyJoin |= !expected.joins().isEmpty();
      anyDivLoop |= !expected.divergentLoops().isEmpty();
      if (!expected.divergentLoops().isEmpty()) {
        Set<Integer> inner = expected.divergentLoops().get(0);
        for (int j : expected.joins()) outerJoin |= !inner.contains(j) && !expected.divergentExits().contains(j);
      }
      // region: reachable from a successor without passing the immediate post-dominator
      if (br.reachable(b)) {
        int stop = an.pdt().ipdom(b).orElse(-1);
        assertEquals(br.region(b, stop), new TreeSet<>(sync.region(b)), "region of " + b);
      }
    }
    Statistics.label("has join").collect(anyJoin);
    Statistics.label("has divergent loop").collect(anyDivLoop);
    Statistics.label("join beyond divergent loop").collect(outerJoin);
  }
}
