package org.packetizer.analysis.cfg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.jgrapht.Graph;
import org.jgrapht.graph.DefaultEdge;
import org.junit.jupiter.api.Test;

/**
 * The CFGs of the thesis figures (Karrenberg 2009), with every analysis result spelled out. Where the
 * text lacks the picture the CFG is the one a C compiler would build from the text/code (noted per
 * figure).
 */
class ThesisFigureTests {

  /** Builds a CFG from "A->B" edge specs; the entry is the first block mentioned. */
  static Cfg<String> cfg(String... edges) {
    Graph<String, DefaultEdge> g = Cfg.newGraph();
    String entry = null;
    for (String e : edges) {
      String[] p = e.split("->");
      String a = p[0].trim();
      if (entry == null) entry = a;
      g.addVertex(a);
      if (p.length > 1) {
        String b = p[1].trim();
        g.addVertex(b);
        g.addEdge(a, b);
      }
    }
    return Cfg.of(g, entry);
  }

  static Set<String> set(String... s) { return Set.of(s); }

  /** Figure 2.1: E is entry and preheader of the loop {A, B, C, D}; A header, D latch, R return. */
  @Test
  void figure2_1_loopWithIfElse() {
    Cfg<String> cfg = cfg("E->A", "A->B", "A->C", "B->D", "C->D", "D->A", "D->R");
    CfgAnalyses<String> an = CfgAnalyses.of(cfg);
    assertEquals(List.of("E", "A", "B", "C", "D", "R"), an.order());
    LoopForest.Loop<String> l = an.loops().topLevel().get(0);
    assertEquals(1, an.loops().all().size());
    assertEquals("A", l.header());
    assertEquals(set("A", "B", "C", "D"), l.blocks());
    assertEquals(List.of("D"), l.latches());
    assertEquals(Optional.of("E"), l.preheader());
    assertEquals(set("R"), l.exitBlocks());
    assertEquals(set("D"), l.exitingBlocks());
    assertEquals(1, an.loops().depth("C"));
    assertEquals(0, an.loops().depth("R"));
    assertEquals(Optional.of("E"), an.dom().idom("A"));
    assertEquals(Optional.of("A"), an.dom().idom("D"));
    assertEquals(Optional.of("D"), an.dom().idom("R"));
    assertEquals(set("A"), an.dom().dominanceFrontier("D"));
    assertEquals(set("D"), an.dom().dominanceFrontier("B"));
    assertEquals(Optional.of("D"), an.pdt().ipdom("A"));
    assertEquals(Optional.of("A"), an.pdt().ipdom("E"));
    assertEquals(Optional.of("R"), an.pdt().ipdom("D"));
    assertEquals(Optional.empty(), an.pdt().ipdom("R"));
    ControlDependence<String> cd = an.controlDependence();
    assertEquals(set("A"), cd.controllingBlocks("B"));
    assertEquals(set("A"), cd.controllingBlocks("C"));
    assertEquals(set("D"), cd.controllingBlocks("A"));
    assertEquals(set("D"), cd.controllingBlocks("D"));
    assertEquals(set(), cd.controllingBlocks("E"));
    assertEquals(set("A", "D"), cd.dependents("D"));
    SyncDependence<String> s = an.sync();
    assertEquals(set("D"), s.joinPoints("A"));
    assertEquals(List.of(), s.divergentLoops("A"), "A's lanes re-converge at D inside the iteration");
    assertEquals(set("B", "C"), s.region("A"));
    assertEquals(set(), s.joinPoints("D"));
    assertEquals(List.of(l), s.divergentLoops("D"));
    assertEquals(set("R"), s.divergentLoopExits("D"));
    assertEquals(set("A", "B", "C", "D"), s.region("D"));
  }

  /** Figure 4.6: A branches to B and C, B falls through to C. */
  @Test
  void figure4_6_ifThen() {
    CfgAnalyses<String> an = CfgAnalyses.of(cfg("A->B", "A->C", "B->C"));
    assertEquals(List.of("A", "B", "C"), an.order());
    assertEquals(set("C"), an.sync().joinPoints("A"));
    assertEquals(set("B"), an.sync().region("A"));
    assertEquals(Optional.of("C"), an.pdt().ipdom("A"));
    assertEquals(set("A"), an.controlDependence().controllingBlocks("B"));
    assertEquals(set(), an.controlDependence().controllingBlocks("C"));
    assertTrue(an.loops().all().isEmpty());
  }

  /**
   * Figure 4.11 (built from the caption): loop H with two paths A and B that join at C; A can also
   * leave the loop (X1), the latch C leaves through X2; both exits reach the return R.
   */
  @Test
  void figure4_11_multiExitLoop() {
    CfgAnalyses<String> an = CfgAnalyses.of(
        cfg("E->H", "H->A", "H->B", "A->C", "A->X1", "B->C", "C->H", "C->X2", "X1->R", "X2->R"));
    assertEquals(List.of("E", "H", "A", "B", "C", "X1", "X2", "R"), an.order());
    LoopForest.Loop<String> l = an.loops().loopOf("A").orElseThrow();
    assertEquals(set("H", "A", "B", "C"), l.blocks());
    assertEquals(set("X1", "X2"), l.exitBlocks());
    assertEquals(set("A", "C"), l.exitingBlocks());
    assertEquals(List.of("C"), l.latches());
    SyncDependence<String> s = an.sync();
    assertEquals(set("C", "R"), s.joinPoints("H"));
    assertEquals(List.of(l), s.divergentLoops("H"));
    assertEquals(set("R"), s.joinPoints("A"), "exits X1 and X2 of the divergent loop meet at R");
    assertEquals(set("X1", "X2"), s.divergentLoopExits("A"));
    assertEquals(set("R"), s.joinPoints("C"));
    assertEquals(set("X1", "X2"), s.divergentLoopExits("C"));
    assertEquals(set("H", "A", "B", "C", "X1", "X2"), s.region("H"));
  }

  /**
   * Figure 4.12 (built from the caption): loop B with an if/else (C / D) joining at the latch F; C
   * also leaves the loop to E, F to G; E and G meet at H.
   */
  @Test
  void figure4_12_multiExitLoopWithIfElse() {
    CfgAnalyses<String> an = CfgAnalyses.of(
        cfg("A->B", "B->C", "B->D", "C->E", "C->F", "D->F", "F->B", "F->G", "E->H", "G->H"));
    assertEquals(List.of("A", "B", "C", "D", "F", "E", "G", "H"), an.order());
    LoopForest.Loop<String> l = an.loops().loopOf("B").orElseThrow();
    assertEquals(set("B", "C", "D", "F"), l.blocks());
    assertEquals(Optional.of("A"), l.preheader());
    assertEquals(set("E", "G"), l.exitBlocks());
    SyncDependence<String> s = an.sync();
    assertEquals(set("F", "H"), s.joinPoints("B"));
    assertEquals(set("H"), s.joinPoints("C"));
    assertEquals(set("H"), s.joinPoints("F"));
    for (String b : List.of("B", "C", "F")) {
      assertEquals(List.of(l), s.divergentLoops(b), b);
      assertEquals(set("E", "G"), s.divergentLoopExits(b), b);
    }
  }

  /** The CFG clang builds for Figure 4.14's scalarFn (for-loops unrotated: test in the header). */
  static Cfg<String> figure4_14() {
    return cfg("entry->for.cond",
        "for.cond->for.body", "for.cond->for.end",
        "for.body->if.then", "for.body->if.else",
        "if.then->if.end",
        "if.else->if.then2", "if.else->if.else2",
        "if.then2->if.end2",
        "if.else2->if.then3", "if.else2->if.else3",
        "if.then3->if.end3", "if.else3->if.end3",
        "if.end3->if.end2", "if.end2->if.end",
        "if.end->for.cond4",
        "for.cond4->for.body5", "for.cond4->for.end6",
        "for.body5->if.then6", "for.body5->if.else6",
        "if.then6->if.end7", "if.else6->if.end7",
        "if.end7->for.inc", "for.inc->for.cond4",
        "for.end6->for.inc8", "for.inc8->for.cond",
        "for.end");
  }

  @Test
  void figure4_14_complexControlFlow() {
    CfgAnalyses<String> an = CfgAnalyses.of(figure4_14());
    assertEquals(List.of("entry", "for.cond", "for.body", "if.then", "if.else", "if.then2", "if.else2",
        "if.then3", "if.else3", "if.end3", "if.end2", "if.end",
        "for.cond4", "for.body5", "if.then6", "if.else6", "if.end7", "for.inc",
        "for.end6", "for.inc8", "for.end"), an.order());
    LoopForest.Loop<String> outer = an.loops().topLevel().get(0);
    assertEquals(1, an.loops().topLevel().size());
    assertEquals("for.cond", outer.header());
    assertEquals(List.of("for.inc8"), outer.latches());
    assertEquals(Optional.of("entry"), outer.preheader());
    assertEquals(set("for.end"), outer.exitBlocks());
    assertEquals(set("for.cond"), outer.exitingBlocks());
    assertEquals(19, outer.blocks().size());
    LoopForest.Loop<String> inner = outer.children().get(0);
    assertEquals(1, outer.children().size());
    assertEquals("for.cond4", inner.header());
    assertEquals(set("for.cond4", "for.body5", "if.then6", "if.else6", "if.end7", "for.inc"), inner.blocks());
    assertEquals(Optional.of("if.end"), inner.preheader());
    assertEquals(List.of("for.inc"), inner.latches());
    assertEquals(set("for.end6"), inner.exitBlocks());
    assertEquals(2, inner.depth());
    assertEquals(List.of(outer, inner), an.loops().all());
    assertEquals(2, an.loops().depth("if.then6"));
    assertEquals(1, an.loops().depth("if.then3"));
    SyncDependence<String> s = an.sync();
    assertEquals(set("if.end"), s.joinPoints("for.body"));
    assertEquals(set("if.end2"), s.joinPoints("if.else"));
    assertEquals(set("if.end3"), s.joinPoints("if.else2"));
    assertEquals(set("if.end7"), s.joinPoints("for.body5"));
    assertEquals(set(), s.joinPoints("for.cond4"));
    assertEquals(List.of(inner), s.divergentLoops("for.cond4"), "lanes re-converge at for.end6");
    assertEquals(set("for.end6"), s.divergentLoopExits("for.cond4"));
    assertEquals(List.of(outer), s.divergentLoops("for.cond"));
    assertEquals(set("for.end"), s.divergentLoopExits("for.cond"));
    assertEquals(List.of(), s.divergentLoops("for.body"));
    assertEquals(set("if.then", "if.else", "if.then2", "if.else2", "if.then3", "if.else3", "if.end3", "if.end2"),
        s.region("for.body"));
    assertEquals(outer.blocks(), s.region("for.cond"));
    assertEquals(Optional.of("if.end"), an.pdt().ipdom("for.body"));
    ControlDependence<String> cd = an.controlDependence();
    assertEquals(set("for.cond", "for.cond4"), cd.controllingBlocks("for.cond4"));
    assertEquals(set("for.body5"), cd.controllingBlocks("if.then6"));
    assertEquals(set("if.else2"), cd.controllingBlocks("if.else3"));
    assertEquals(set("for.cond"), cd.controllingBlocks("if.end"));
  }

  @Test
  void irreducibleLoopIsRejectedWithItsEdge() {
    Cfg<String> cfg = cfg("E->A", "E->B", "A->B", "B->A", "B->X");
    IrreducibleCfgException e = assertThrows(IrreducibleCfgException.class, () -> CfgAnalyses.of(cfg));
    assertEquals(new Edge<>("B", "A"), e.edge());
    assertEquals(Optional.of(new Edge<>("B", "A")), Reducibility.findIrreducibleEdge(cfg));
  }

  @Test
  void selfLoopsParallelEdgesUnreachableAndNoExit() {
    // A has a self-loop, B branches twice to C (parallel edges), D is unreachable, C loops forever
    Cfg<String> cfg = cfg("A->A", "A->B", "B->C", "B->C", "C->C2", "C2->C", "D->C");
    CfgAnalyses<String> an = CfgAnalyses.of(cfg);
    assertEquals(List.of("A", "B", "C", "C2"), an.order());
    assertTrue(!an.isReachable("D"));
    assertEquals(Optional.empty(), an.loops().loopOf("D"));
    assertEquals(set(), an.sync().joinPoints("B"), "both edges go to C: not a branch");
    assertEquals(set("C2"), an.pdt().virtualExitPredecessors(), "one representative for the infinite loop");
    assertEquals(Optional.of("C2"), an.pdt().ipdom("C"));
    assertEquals(set("A"), an.loops().loopOf("A").orElseThrow().blocks());
    assertEquals(List.of("A"), an.loops().loopOf("A").orElseThrow().latches());
    assertEquals(Optional.empty(), an.loops().loopOf("A").orElseThrow().preheader(), "entry header");
    assertEquals(set(), an.dom().dominanceFrontier("D"));
    assertEquals(List.of(), an.dom().children("D"));
    assertTrue(an.dom().dominates("D", "D"));
    assertTrue(!an.dom().dominates("A", "D"));
    // unreachable or unknown blocks never crash
    assertThrows(IllegalArgumentException.class, () -> an.dom().nearestCommonDominator("A", "D"));
    assertThrows(IllegalArgumentException.class, () -> an.pdt().nearestCommonPostDominator("nope", "A"));
    for (String b : List.of("D", "nope")) {
      assertEquals(Optional.empty(), an.dom().idom(b));
      assertEquals(Optional.empty(), an.pdt().ipdom(b));
      assertEquals(set(), an.pdt().postDominanceFrontier(b));
      assertEquals(Optional.empty(), an.loops().loopOf(b));
      assertEquals(0, an.loops().depth(b));
      assertEquals(set(), an.sync().joinPoints(b));
      assertEquals(set(), an.sync().region(b));
      assertEquals(set(), an.controlDependence().controllingBlocks(b));
      assertTrue(!an.pdt().postDominates("C", b) && !an.dom().dominates("A", b));
    }
    assertTrue(!an.loops().loopOf("C").orElseThrow().contains("nope"));
    List<String> loops = new ArrayList<>();
    for (LoopForest.Loop<String> l : an.loops().all()) loops.add(l.header());
    assertEquals(List.of("A", "C"), loops);
    assertEquals(set("B"), an.sync().divergentLoopExits("A"), "lanes leave the self-loop at different iterations");
    assertEquals(set(), an.sync().joinPoints("A"));
  }

  /**
   * Lanes leave the inner loop H at different iterations because of B; inside the loop a uniform branch
   * Q picks the exit X1 (leaving the outer loop too) or goes on to C, which leaves through X2 (next outer
   * iteration) — possibly differently in different iterations. Q post-dominates B, yet the outer loop
   * is divergent because of B.
   */
  @Test
  void uniformExitChoiceInsideDivergentLoopMakesOuterLoopDivergent() {
    CfgAnalyses<String> an = CfgAnalyses.of(cfg("E->H0", "H0->H", "H->B", "B->A", "B->Q", "A->H",
        "Q->X1", "Q->C", "C->X2", "C->A", "X2->H0", "X1->R"));
    LoopForest.Loop<String> inner = an.loops().loopWithHeader("H").orElseThrow();
    LoopForest.Loop<String> outer = an.loops().loopWithHeader("H0").orElseThrow();
    assertEquals(set("H", "B", "A", "Q", "C"), inner.blocks());
    assertEquals(Optional.of("Q"), an.pdt().ipdom("B"));
    assertEquals(List.of(inner, outer), an.sync().divergentLoops("B"));
    assertEquals(set("X1", "X2"), an.sync().divergentLoopExits("B"));
    assertEquals(set("A"), an.sync().joinPoints("B"), "B->A and B->Q->C->A");
  }
}
