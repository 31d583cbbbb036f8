package org.packetizer.analysis.divergence;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.packetizer.analysis.cfg.CfgAnalyses;
import org.packetizer.analysis.divergence.TestFunction.Val;

/** Divergence propagating through a long chain must stay linear and must not recurse. */
class DivergenceScaleTests {

  @Test
  void divergenceFlowsThroughTwentyThousandDiamonds() {
    int k = 20_000;
    TestFunction fn = new TestFunction();
    Val c = fn.param("c");
    String cur = fn.block("d0");
    Val cond = c;
    Val[] phis = new Val[k];
    for (int i = 0; i < k; i++) {
      String t = "t" + i, e = "e" + i, j = "d" + (i + 1);
      fn.edge(cur, t);
      fn.edge(cur, e);
      fn.edge(t, j);
      fn.edge(e, j);
      fn.br(cur, cond);
      phis[i] = fn.phi(j, "x" + i, t, fn.c(1), e, fn.c(2));
      cond = phis[i]; // the join's phi is the next diamond's branch condition
      cur = j;
    }
    CfgAnalyses<String> an = CfgAnalyses.of(fn.cfg());
    DivergenceInfo<String, Val> info = assertTimeoutPreemptively(Duration.ofSeconds(30),
        () -> DivergenceAnalysis.run(fn, an, Map.of(), false));
    assertEquals(k, info.divergentBranches().size());
    assertEquals(Shape.VARYING, info.shape(phis[k - 1]));
    assertTrue(info.mayBePartial("t" + (k - 1)));
    assertTrue(!info.mayBePartial("d" + k));
    DivergenceInfo<String, Val> uniform = DivergenceAnalysis.run(fn, an, Map.of(c, Shape.UNIFORM), false);
    assertTrue(uniform.divergentBranches().isEmpty());
    assertTrue(uniform.isUniform(phis[k - 1]));
  }
}
