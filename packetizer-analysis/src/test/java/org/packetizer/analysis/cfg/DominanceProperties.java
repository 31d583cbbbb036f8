package org.packetizer.analysis.cfg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.statistics.Statistics;

/** Dominators and post-dominators against their definitions on random graphs. */
class DominanceProperties {

  @Provide Arbitrary<TestGraph> anyGraph() { return TestGraph.arbitrary(1, 12, false); }

  @Property(tries = 1500)
  void dominatorTreeMatchesDefinition(@ForAll("anyGraph") TestGraph g) {
    Brute br = new Brute(g);
    DominatorTree<Integer> dom = DominatorTree.compute(g.cfg());
    Statistics.label("unreachable blocks").collect(br.reachableNodes().size() < g.n());
    for (int a = 0; a < g.n(); a++) {
      assertEquals(br.reachable(a), dom.isReachable(a), "reachable " + a);
      assertEquals(Optional.ofNullable(br.idom(a)), dom.idom(a), "idom " + a);
      for (int b = 0; b < g.n(); b++) {
        assertEquals(br.dominates(a, b), dom.dominates(a, b), "dominates " + a + " " + b);
        assertEquals(a != b && br.dominates(a, b), dom.strictlyDominates(a, b));
        if (br.reachable(a) && br.reachable(b)) {
          // deepest common dominator = the one with most dominators
          int best = -1, bestDepth = -1;
          for (int d = 0; d < g.n(); d++) {
            if (br.dominates(d, a) && br.dominates(d, b)) {
              int depth = 0;
              for (int e = 0; e < g.n(); e++) if (br.dominates(e, d)) depth++;
              if (depth > bestDepth) { best = d; bestDepth = depth; }
            }
          }
          assertEquals(best, dom.nearestCommonDominator(a, b));
        }
      }
      List<Integer> kids = new ArrayList<>();
      for (int c = 0; c < g.n(); c++) if (Integer.valueOf(a).equals(br.idom(c))) kids.add(c);
      assertEquals(new TreeSet<>(kids), new TreeSet<>(dom.children(a)));
      assertEquals(br.dominanceFrontier(a), new TreeSet<>(dom.dominanceFrontier(a)), "DF " + a);
    }
    List<Integer> pre = dom.preorder();
    assertEquals(new TreeSet<>(br.reachableNodes()), new TreeSet<>(pre));
    assertEquals(pre.size(), new HashSet<>(pre).size());
    for (int i = 0; i < pre.size(); i++) {
      int b = pre.get(i);
      dom.idom(b).ifPresent(p -> assertTrue(pre.indexOf(p) < pre.indexOf(b)));
    }
  }

  @Property(tries = 1500)
  void postDominatorTreeMatchesDefinition(@ForAll("anyGraph") TestGraph g) {
    Brute br = new Brute(g);
    PostDominatorTree<Integer> pdt = PostDominatorTree.compute(g.cfg());
    // the virtual exit is linked from every exit block and one block per terminal infinite SCC
    Set<Integer> linked = new TreeSet<>(pdt.virtualExitPredecessors());
    List<Set<Integer>> sccs = br.terminalInfiniteSccs();
    Statistics.label("infinite loops").collect(!sccs.isEmpty());
    Set<Integer> expectedExits = new TreeSet<>();
    for (int u : br.reachableNodes()) if (br.isExit(u)) expectedExits.add(u);
    Set<Integer> rest = new TreeSet<>(linked);
    rest.removeAll(expectedExits);
    assertTrue(linked.containsAll(expectedExits));
    assertEquals(sccs.size(), rest.size(), "one representative per terminal SCC");
    for (Set<Integer> scc : sccs) {
      assertEquals(1, scc.stream().filter(rest::contains).count(), "representative of " + scc);
    }
    for (int a = 0; a < g.n(); a++) {
      Integer ip = br.ipdom(a, linked);
      Optional<Integer> expected = ip == null || ip == -1 ? Optional.empty() : Optional.of(ip);
      assertEquals(expected, pdt.ipdom(a), "ipdom " + a);
      for (int b = 0; b < g.n(); b++) {
        assertEquals(br.postDominates(a, b, linked), pdt.postDominates(a, b), "pdom " + a + " " + b);
        if (br.reachable(a) && br.reachable(b)) {
          Integer best = null;
          int bestDepth = -1;
          for (int d = 0; d < g.n(); d++) {
            if (br.reachable(d) && br.postDominates(d, a, linked) && br.postDominates(d, b, linked)) {
              int depth = 0;
              for (int e = 0; e < g.n(); e++) if (br.reachable(e) && br.postDominates(e, d, linked)) depth++;
              if (depth > bestDepth) { best = d; bestDepth = depth; }
            }
          }
          assertEquals(Optional.ofNullable(best), pdt.nearestCommonPostDominator(a, b));
        }
      }
      assertEquals(br.postDominanceFrontier(a, linked), new TreeSet<>(pdt.postDominanceFrontier(a)), "PDF " + a);
    }
    for (int r : pdt.roots()) assertTrue(pdt.ipdom(r).isEmpty());
  }

  @Property(tries = 2000)
  void controlDependenceMatchesDefinition(@ForAll("anyGraph") TestGraph g) {
    Brute br = new Brute(g);
    Cfg<Integer> cfg = g.cfg();
    PostDominatorTree<Integer> pdt = PostDominatorTree.compute(cfg);
    ControlDependence<Integer> cd = ControlDependence.compute(cfg, pdt);
    Set<Integer> linked = pdt.virtualExitPredecessors();
    for (int b = 0; b < g.n(); b++) {
      // b is control dependent on edge (a, s) iff b post-dominates s and not strictly a
      Set<Integer> expected = new TreeSet<>();
      for (int a = 0; a < g.n(); a++) {
        if (!br.reachable(a)) continue;
        for (int s : br.succ[a]) {
          if (br.postDominates(b, s, linked) && !(a != b && br.postDominates(b, a, linked))) expected.add(a);
        }
      }
      assertEquals(expected, new TreeSet<>(cd.controllingBlocks(b)), "controlling " + b);
      for (int a : expected) assertTrue(cd.dependents(a).contains(b));
    }
    int total = 0;
    for (int a = 0; a < g.n(); a++) total += cd.dependents(a).size();
    int total2 = 0;
    for (int b = 0; b < g.n(); b++) total2 += cd.controllingBlocks(b).size();
    assertEquals(total2, total);
  }

  @Property(tries = 3000)
  void reducibilityMatchesT1T2(@ForAll("anyGraph") TestGraph g) {
    Brute br = new Brute(g);
    boolean reducible = br.reducibleByT1T2();
    Statistics.label("reducible").collect(reducible);
    Optional<Edge<Integer>> bad = Reducibility.findIrreducibleEdge(g.cfg());
    assertEquals(reducible, bad.isEmpty(), "T1/T2 says " + reducible);
    bad.ifPresent(e -> {
      assertTrue(br.reachable(e.from()));
      boolean isEdge = false;
      for (int s : br.succ[e.from()]) if (s == e.to()) isEdge = true;
      assertTrue(isEdge, "is an edge");
      assertTrue(br.reach(e.to(), -1)[e.from()], "closes a cycle");
      assertFalse(br.dominates(e.to(), e.from()), "target does not dominate source");
    });
  }

  @Property(tries = 1000)
  void reducibleGeneratorIsReducible(@ForAll("reducibleGraph") TestGraph g) {
    assertTrue(new Brute(g).reducibleByT1T2(), g.toString());
    assertTrue(Reducibility.findIrreducibleEdge(g.cfg()).isEmpty());
  }

  @Provide Arbitrary<TestGraph> reducibleGraph() { return TestGraph.arbitrary(1, 12, true); }

  @Property(tries = 2000)
  void lengauerTarjanAgreesWithCooperHarveyKennedy(@ForAll("anyGraph") TestGraph g) {
    int[][] succ = g.succ();
    for (int root = 0; root < g.n(); root++) {
      assertEquals(java.util.Arrays.toString(IntGraphs.immediateDominators(g.n(), root, succ)),
          java.util.Arrays.toString(IntGraphs.immediateDominatorsLT(g.n(), root, succ)), "root " + root);
    }
  }
}
