package org.packetizer.analysis.divergence;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.statistics.Statistics;
import org.packetizer.analysis.cfg.Brute;
import org.packetizer.analysis.cfg.CfgAnalyses;
import org.packetizer.analysis.cfg.LoopForest;
import org.packetizer.analysis.cfg.StructuredGen;
import org.packetizer.analysis.cfg.TestGraph;
import org.packetizer.analysis.divergence.TestFunction.Val;

/**
 * Control divergence on random reducible CFGs whose branch conditions are uniform or varying
 * parameters and whose join blocks have phis of distinct constants: checks divergent branches,
 * divergent loops, which phis become varying and which blocks may be partial against their
 * definitions (regions computed by brute force).
 */
class DivergenceProperties {

  @Provide Arbitrary<TestGraph> graphs() {
    return net.jqwik.api.Arbitraries.oneOf(TestGraph.arbitrary(2, 12, true), StructuredGen.arbitrary(20, 4));
  }

  @Property(tries = 1500)
  void controlDivergenceFollowsSyncDependence(@ForAll("graphs") TestGraph g, @ForAll long seed) {
    Random r = new Random(seed);
    TestFunction fn = new TestFunction();
    String[] name = new String[g.n()];
    for (int i = 0; i < g.n(); i++) name[i] = fn.block("b" + i);
    int[][] succ = g.succ();
    for (int u = 0; u < g.n(); u++) for (int v : succ[u]) fn.edge(name[u], name[v]);
    Map<Val, Shape> seeds = new HashMap<>();
    Set<String> varyingCond = new HashSet<>();
    Map<String, Val> distinctPhi = new HashMap<>(), samePhi = new HashMap<>();
    List<List<Integer>> preds = new ArrayList<>();
    for (int i = 0; i < g.n(); i++) preds.add(new ArrayList<>());
    for (int u = 0; u < g.n(); u++) for (int v : succ[u]) if (!preds.get(v).contains(u)) preds.get(v).add(u);
    for (int u = 0; u < g.n(); u++) {
      if (new HashSet<>(java.util.Arrays.stream(succ[u]).boxed().toList()).size() >= 2) {
        Val c = fn.param("c" + u);
        if (r.nextBoolean()) seeds.put(c, Shape.UNIFORM); else varyingCond.add(name[u]);
        fn.br(name[u], c);
      }
      if (!preds.get(u).isEmpty()) {
        Object[] pairs = new Object[2 * preds.get(u).size()];
        Object[] same = new Object[pairs.length];
        for (int k = 0; k < preds.get(u).size(); k++) {
          pairs[2 * k] = same[2 * k] = name[preds.get(u).get(k)];
          pairs[2 * k + 1] = fn.c(k);
          same[2 * k + 1] = fn.c(7);
        }
        distinctPhi.put(name[u], fn.phi(name[u], "d" + u, pairs));
        samePhi.put(name[u], fn.phi(name[u], "s" + u, same));
      }
    }
    CfgAnalyses<String> an = CfgAnalyses.of(fn.cfg());
    DivergenceInfo<String, Val> info = DivergenceAnalysis.run(fn, an, seeds, false);
    Brute br = new Brute(g);
    Set<String> expectedDivergent = new LinkedHashSet<>();
    Set<String> forcedBlocks = new HashSet<>(), partial = new HashSet<>();
    Set<LoopForest.Loop<String>> divLoops = new HashSet<>();
    for (int u = 0; u < g.n(); u++) {
      if (!br.reachable(u) || !varyingCond.contains(name[u])) continue;
      expectedDivergent.add(name[u]);
      forcedBlocks.addAll(an.sync().joinPoints(name[u]));
      forcedBlocks.addAll(an.sync().divergentLoopExits(name[u]));
      divLoops.addAll(an.sync().divergentLoops(name[u]));
      int stop = an.pdt().ipdom(name[u]).map(s -> Integer.parseInt(s.substring(1))).orElse(-1);
      for (int x : br.region(u, stop)) partial.add(name[x]);
    }
    for (LoopForest.Loop<String> l : divLoops) partial.addAll(l.blocks());
    assertEquals(expectedDivergent, info.divergentBranches());
    for (LoopForest.Loop<String> l : an.loops().all()) assertEquals(divLoops.contains(l), info.isDivergentLoop(l));
    for (int u = 0; u < g.n(); u++) {
      String b = name[u];
      if (!br.reachable(u)) {
        assertTrue(info.mayBePartial(b));
        continue;
      }
      assertEquals(partial.contains(b), info.mayBePartial(b), "partial " + b);
      Val d = distinctPhi.get(b);
      if (d != null) {
        long reachablePreds = preds.get(u).stream().filter(br::reachable).count();
        boolean expectVarying = forcedBlocks.contains(b) && reachablePreds >= 2;
        assertEquals(expectVarying, info.shape(d).isVarying(), "phi in " + b);
        assertTrue(info.isUniform(samePhi.get(b)), "same-value phi in " + b);
        Statistics.label("phi").collect(expectVarying ? "varying" : "uniform");
      }
    }
    Statistics.label("divergent loops").collect(!divLoops.isEmpty());
  }
}
