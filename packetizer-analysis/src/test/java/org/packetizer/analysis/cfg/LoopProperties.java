package org.packetizer.analysis.cfg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.statistics.Statistics;

/** Loop forest and linearization order against their definitions. */
class LoopProperties {

  @Provide Arbitrary<TestGraph> reducibleGraph() { return TestGraph.arbitrary(1, 12, true); }

  @Provide Arbitrary<TestGraph> anyGraph() { return TestGraph.arbitrary(1, 12, false); }

  @Property(tries = 2000)
  void loopsAreNaturalLoops(@ForAll("reducibleGraph") TestGraph g) {
    Brute br = new Brute(g);
    Cfg<Integer> cfg = g.cfg();
    LoopForest<Integer> lf = LoopForest.compute(cfg, DominatorTree.compute(cfg));
    Set<Integer> headers = br.headers();
    Statistics.label("loops").collect(Math.min(headers.size(), 3));
    assertEquals(headers.size(), lf.all().size());
    Map<Integer, LoopForest.Loop<Integer>> byHeader = new HashMap<>();
    for (LoopForest.Loop<Integer> l : lf.all()) byHeader.put(l.header(), l);
    assertEquals(headers, new TreeSet<>(byHeader.keySet()));
    for (int h : headers) {
      LoopForest.Loop<Integer> l = byHeader.get(h);
      Set<Integer> blocks = br.naturalLoop(h);
      assertEquals(blocks, new TreeSet<>(l.blocks()), "blocks of " + h);
      assertEquals(h, l.blocks().iterator().next(), "header first");
      assertEquals(br.latches(h), new TreeSet<>(l.latches()));
      for (int b = 0; b < g.n(); b++) {
        assertEquals(blocks.contains(b), l.contains(b));
        assertEquals(br.latches(h).contains(b), l.isLatch(b));
      }
      Set<Integer> exiting = new TreeSet<>();
      for (int u : blocks) for (int v : br.succ[u]) if (!blocks.contains(v)) exiting.add(u);
      assertEquals(exiting, new TreeSet<>(l.exitingBlocks()));
      assertEquals(br.exits(blocks), new TreeSet<>(l.exitBlocks()));
      // parent: the smallest other loop containing this one
      Integer parent = null;
      int parentSize = Integer.MAX_VALUE;
      for (int h2 : headers) {
        Set<Integer> b2 = br.naturalLoop(h2);
        if (h2 != h && b2.containsAll(blocks) && b2.size() < parentSize) { parent = h2; parentSize = b2.size(); }
      }
      assertEquals(Optional.ofNullable(parent), l.parent().map(LoopForest.Loop::header));
      int depth = 0;
      for (int h2 : headers) if (br.naturalLoop(h2).containsAll(blocks)) depth++;
      assertEquals(depth, l.depth());
      for (LoopForest.Loop<Integer> c : l.children()) assertSame(l, c.parent().orElseThrow());
      // preheader: unique reachable out-of-loop predecessor with exactly one successor edge
      List<Integer> outside = new ArrayList<>();
      for (int p : br.preds.get(h)) if (br.reachable(p) && !blocks.contains(p)) outside.add(p);
      Optional<Integer> pre = outside.size() == 1 && br.succ[outside.get(0)].length == 1
          ? Optional.of(outside.get(0)) : Optional.empty();
      assertEquals(pre, l.preheader(), "preheader of " + h);
    }
    // loopOf = innermost (smallest) loop, depth = number of loops containing b
    for (int b = 0; b < g.n(); b++) {
      Integer inner = null;
      int size = Integer.MAX_VALUE, depth = 0;
      for (int h : headers) {
        Set<Integer> bl = br.naturalLoop(h);
        if (bl.contains(b)) {
          depth++;
          if (bl.size() < size) { inner = h; size = bl.size(); }
        }
      }
      assertEquals(Optional.ofNullable(inner), lf.loopOf(b).map(LoopForest.Loop::header), "loopOf " + b);
      assertEquals(depth, lf.depth(b));
      assertEquals(headers.contains(b), lf.isHeader(b));
    }
    // all(): parents before children, each loop once; topLevel = loops without parent
    List<LoopForest.Loop<Integer>> all = lf.all();
    for (int i = 0; i < all.size(); i++) {
      int fi = i;
      all.get(i).parent().ifPresent(p -> assertTrue(all.indexOf(p) < fi));
    }
    List<LoopForest.Loop<Integer>> top = new ArrayList<>();
    for (LoopForest.Loop<Integer> l : all) if (l.parent().isEmpty()) top.add(l);
    assertEquals(new HashSet<>(top), new HashSet<>(lf.topLevel()));
    // back edges
    for (int u = 0; u < g.n(); u++) {
      for (int v : br.succ[u]) {
        assertEquals(br.reachable(u) && br.dominates(v, u), lf.isBackEdge(u, v), "back edge " + u + "->" + v);
      }
    }
  }

  @Property(tries = 1500)
  void irreducibleGraphsAreRejected(@ForAll("anyGraph") TestGraph g) {
    Brute br = new Brute(g);
    Cfg<Integer> cfg = g.cfg();
    DominatorTree<Integer> dom = DominatorTree.compute(cfg);
    if (br.reducibleByT1T2()) {
      LoopForest.compute(cfg, dom);
      Statistics.label("irreducible").collect(false);
      return;
    }
    Statistics.label("irreducible").collect(true);
    IrreducibleCfgException e = assertThrows(IrreducibleCfgException.class, () -> LoopForest.compute(cfg, dom));
    int from = (Integer) e.edge().from(), to = (Integer) e.edge().to();
    assertTrue(br.reach(to, -1)[from]);
    assertFalse(br.dominates(to, from));
    assertTrue(e.getMessage().contains(from + " -> " + to), e.getMessage());
  }

  @Property(tries = 2000)
  void linearizationOrderIsLoopContiguousTopologicalOrder(@ForAll("reducibleGraph") TestGraph g) {
    Brute br = new Brute(g);
    Cfg<Integer> cfg = g.cfg();
    LoopForest<Integer> lf = LoopForest.compute(cfg, DominatorTree.compute(cfg));
    List<Integer> order = LinearizationOrder.compute(cfg, lf);
    assertEquals(new TreeSet<>(br.reachableNodes()), new TreeSet<>(order));
    assertEquals(order.size(), new HashSet<>(order).size(), "no duplicates");
    assertEquals(0, order.get(0), "entry first");
    for (int u : br.reachableNodes()) {
      for (int v : br.succ[u]) {
        if (!br.dominates(v, u)) {
          assertTrue(order.indexOf(u) < order.indexOf(v), "forward edge " + u + "->" + v + " in " + order);
        }
      }
    }
    for (int h : br.headers()) {
      Set<Integer> blocks = br.naturalLoop(h);
      int first = order.indexOf(h);
      for (int i = first; i < first + blocks.size(); i++) {
        assertTrue(blocks.contains(order.get(i)), "loop of " + h + " contiguous in " + order);
      }
      // a loop with a preheader follows it directly
      lf.loopWithHeader(h).orElseThrow().preheader()
          .ifPresent(p -> assertEquals(order.indexOf(p) + 1, first, "after preheader"));
    }
    assertEquals(order, LinearizationOrder.compute(cfg, lf), "deterministic");
    Cfg<Integer> again = g.cfg();
    assertEquals(order, LinearizationOrder.compute(again, LoopForest.compute(again, DominatorTree.compute(again))));
  }
}
