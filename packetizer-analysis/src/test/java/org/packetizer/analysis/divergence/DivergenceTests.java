package org.packetizer.analysis.divergence;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.packetizer.analysis.cfg.CfgAnalyses;
import org.packetizer.analysis.cfg.LoopForest;
import org.packetizer.analysis.divergence.TestFunction.Val;

/** Control divergence and shapes on small hand-built functions. */
class DivergenceTests {

  static DivergenceInfo<String, Val> run(TestFunction fn, Map<Val, Shape> seeds) {
    return DivergenceAnalysis.run(fn, CfgAnalyses.of(fn.cfg()), seeds, false);
  }

  static LoopForest.Loop<String> loop(DivergenceInfo<String, Val> info, String header) {
    return info.cfg().loops().loopWithHeader(header).orElseThrow();
  }

  /** if (c) x = 1 else x = 2; y = phi(u, u) */
  static TestFunction ifElse(Val[] out) {
    TestFunction fn = new TestFunction();
    Val c = fn.param("c");
    Val u = fn.param("u");
    fn.edge("entry", "then");
    fn.edge("entry", "else");
    fn.edge("then", "join");
    fn.edge("else", "join");
    Val cond = fn.inst("entry", "cond", OpKind.OTHER_PURE, c, fn.c(0));
    fn.br("entry", cond);
    Val t = fn.inst("then", "t", OpKind.ADD, u, fn.c(1));
    Val x = fn.phi("join", "x", "then", fn.c(1), "else", fn.c(2));
    Val y = fn.phi("join", "y", "then", u, "else", u);
    Val z = fn.phi("join", "z", "then", t, "else", u);
    out[0] = c;
    out[1] = u;
    out[2] = x;
    out[3] = y;
    out[4] = z;
    return fn;
  }

  @Test
  void ifElseWithVaryingConditionMakesJoinPhiVarying() {
    Val[] v = new Val[5];
    TestFunction fn = ifElse(v);
    DivergenceInfo<String, Val> info = run(fn, Map.of(v[1], Shape.UNIFORM)); // c not seeded: varying
    assertTrue(info.isDivergentBranch("entry"));
    assertEquals(Shape.VARYING, info.shape(v[2]));
    assertEquals("phi at join of divergent branch in block entry", info.reason(v[2]));
    assertTrue(info.isUniform(v[3]), "same incoming value on both paths");
    assertEquals(Shape.VARYING, info.shape(v[4]));
    assertEquals(Set.of("join"), info.divergentJoins());
    assertTrue(info.mayBePartial("then"));
    assertTrue(info.mayBePartial("else"));
    assertFalse(info.mayBePartial("entry"));
    assertFalse(info.mayBePartial("join"));
    assertEquals("parameter seeded varying (no shape given)", info.reason(v[0]));
  }

  @Test
  void ifElseWithUniformConditionStaysUniform() {
    Val[] v = new Val[5];
    TestFunction fn = ifElse(v);
    DivergenceInfo<String, Val> info = run(fn, Map.of(v[0], Shape.UNIFORM, v[1], Shape.UNIFORM));
    assertFalse(info.isDivergentBranch("entry"));
    assertTrue(info.isUniform(v[2]));
    assertTrue(info.isUniform(v[4]));
    assertEquals(Shape.uniform(1), info.shape(v[2]), "join of the constants 1 and 2");
    assertFalse(info.mayBePartial("then"));
    assertTrue(info.divergentJoins().isEmpty());
    assertEquals("uniform", info.reason(v[2]));
  }

  @Test
  void entryMaskPartialMakesEveryBlockPartial() {
    Val[] v = new Val[5];
    TestFunction fn = ifElse(v);
    DivergenceInfo<String, Val> info =
        DivergenceAnalysis.run(fn, CfgAnalyses.of(fn.cfg()), Map.of(v[0], Shape.UNIFORM, v[1], Shape.UNIFORM), true);
    for (String b : List.of("entry", "then", "else", "join")) assertTrue(info.mayBePartial(b), b);
    assertTrue(info.isUniform(v[2]));
  }

  /**
   * for (i = 0; i < n; i++) {} with varying n: the counter is uniform inside, its LCSSA phi at the
   * exit and any other use after the loop are varying.
   */
  @Test
  void divergentLoopExitMakesLiveOutsVarying() {
    TestFunction fn = new TestFunction();
    Val n = fn.param("n");
    fn.edge("entry", "header");
    fn.edge("header", "body");
    fn.edge("header", "exit");
    fn.edge("body", "header");
    Val i = fn.phi("header", "i", "entry", fn.c(0));
    Val cmp = fn.inst("header", "cmp", OpKind.OTHER_PURE, i, n);
    fn.br("header", cmp);
    Val inext = fn.inst("body", "inext", OpKind.ADD, i, fn.c(1));
    fn.addIncoming(i, "body", inext);
    Val lcssa = fn.phi("exit", "i.lcssa", "header", i);
    Val direct = fn.inst("exit", "direct", OpKind.ADD, i, fn.c(5));
    Val after = fn.inst("exit", "after", OpKind.ADD, lcssa, fn.c(1));
    DivergenceInfo<String, Val> info = run(fn, Map.of());
    assertTrue(info.isUniform(i), "the active lanes agree on the counter");
    assertTrue(info.isUniform(inext));
    assertEquals(Shape.VARYING, info.shape(cmp));
    assertTrue(info.isDivergentBranch("header"));
    assertTrue(info.isDivergentLoop(loop(info, "header")));
    assertEquals(Shape.VARYING, info.shape(lcssa));
    assertEquals("phi at exit of divergent loop with header header (divergent branch in block header)",
        info.reason(lcssa));
    assertEquals(Shape.VARYING, info.shape(direct));
    assertEquals("live out of divergent loop with header header (uses %i defined inside)", info.reason(direct));
    assertEquals(Shape.VARYING, info.shape(after));
    assertEquals("operand %i.lcssa is varying", info.reason(after));
    assertTrue(info.mayBePartial("header"));
    assertTrue(info.mayBePartial("body"));
    assertFalse(info.mayBePartial("entry"));
    assertFalse(info.mayBePartial("exit"));
    assertEquals(Set.of("exit"), info.divergentLoopExits());
  }

  /** A loop with a uniform trip count nested in a loop with a varying one. */
  @Test
  void uniformLoopNestedInDivergentLoop() {
    TestFunction fn = new TestFunction();
    Val n = fn.param("n"); // varying
    Val m = fn.param("m"); // uniform
    fn.edge("entry", "h1");
    fn.edge("h1", "pre2");
    fn.edge("h1", "x1");
    fn.edge("pre2", "h2");
    fn.edge("h2", "b2");
    fn.edge("h2", "x2");
    fn.edge("b2", "h2");
    fn.edge("x2", "h1");
    Val i = fn.phi("h1", "i", "entry", fn.c(0));
    fn.br("h1", fn.inst("h1", "c1", OpKind.OTHER_PURE, i, n));
    Val j = fn.phi("h2", "j", "pre2", fn.c(0));
    fn.br("h2", fn.inst("h2", "c2", OpKind.OTHER_PURE, j, m));
    Val jn = fn.inst("b2", "jn", OpKind.ADD, j, fn.c(1));
    fn.addIncoming(j, "b2", jn);
    Val jl = fn.phi("x2", "j.lcssa", "h2", j);
    Val in = fn.inst("x2", "in", OpKind.ADD, i, jl);
    fn.addIncoming(i, "x2", in);
    Val il = fn.phi("x1", "i.lcssa", "h1", i);
    DivergenceInfo<String, Val> info = run(fn, Map.of(m, Shape.UNIFORM));
    assertTrue(info.isDivergentLoop(loop(info, "h1")));
    assertFalse(info.isDivergentLoop(loop(info, "h2")));
    assertFalse(info.isDivergentBranch("h2"));
    for (Val u : List.of(i, j, jn, jl, in)) assertTrue(info.isUniform(u), u.toString());
    assertEquals(Shape.VARYING, info.shape(il));
    for (String b : List.of("h1", "pre2", "h2", "b2", "x2")) assertTrue(info.mayBePartial(b), b);
    assertFalse(info.mayBePartial("x1"));
    assertFalse(info.mayBePartial("entry"));
  }

  /** A loop with a varying trip count nested in a loop with a uniform one. */
  @Test
  void divergentLoopNestedInUniformLoop() {
    TestFunction fn = new TestFunction();
    Val n = fn.param("n"); // uniform
    Val m = fn.param("m"); // varying
    fn.edge("entry", "h1");
    fn.edge("h1", "pre2");
    fn.edge("h1", "x1");
    fn.edge("pre2", "h2");
    fn.edge("h2", "b2");
    fn.edge("h2", "x2");
    fn.edge("b2", "h2");
    fn.edge("x2", "h1");
    Val i = fn.phi("h1", "i", "entry", fn.c(0));
    fn.br("h1", fn.inst("h1", "c1", OpKind.OTHER_PURE, i, n));
    Val j = fn.phi("h2", "j", "pre2", fn.c(0));
    fn.br("h2", fn.inst("h2", "c2", OpKind.OTHER_PURE, j, m));
    Val jn = fn.inst("b2", "jn", OpKind.ADD, j, fn.c(1));
    fn.addIncoming(j, "b2", jn);
    Val jl = fn.phi("x2", "j.lcssa", "h2", j);
    Val in = fn.inst("x2", "in", OpKind.ADD, i, fn.c(1));
    fn.addIncoming(i, "x2", in);
    Val il = fn.phi("x1", "i.lcssa", "h1", i);
    DivergenceInfo<String, Val> info = run(fn, Map.of(n, Shape.UNIFORM));
    assertFalse(info.isDivergentLoop(loop(info, "h1")), "lanes meet again at x2 in every outer iteration");
    assertTrue(info.isDivergentLoop(loop(info, "h2")));
    assertTrue(info.isUniform(i));
    assertTrue(info.isUniform(j));
    assertTrue(info.isUniform(il));
    assertEquals(Shape.VARYING, info.shape(jl));
    assertTrue(info.mayBePartial("h2"));
    assertTrue(info.mayBePartial("b2"));
    assertFalse(info.mayBePartial("x2"));
    assertFalse(info.mayBePartial("h1"));
  }

  /**
   * Thesis Figure 4.14's scalarFn with a and b varying: the outer loop (i &lt; y) is divergent, the
   * inner loop (j &lt; 100) and the branch i &lt; j are uniform, the z phis are varying.
   */
  @Test
  void figure4_14_scalarFn() {
    TestFunction fn = new TestFunction();
    Val a = fn.param("a"), b = fn.param("b"), color = fn.param("color");
    String[] edges = {"entry->for.cond", "for.cond->for.body", "for.cond->for.end", "for.body->if.then",
        "for.body->if.else", "if.then->if.end", "if.else->if.then2", "if.else->if.else2", "if.then2->if.end2",
        "if.else2->if.then3", "if.else2->if.else3", "if.then3->if.end3", "if.else3->if.end3",
        "if.end3->if.end2", "if.end2->if.end", "if.end->for.cond4", "for.cond4->for.body5",
        "for.cond4->for.end6", "for.body5->if.then6", "for.body5->if.else6", "if.then6->if.end7",
        "if.else6->if.end7", "if.end7->for.inc", "for.inc->for.cond4", "for.end6->for.inc8",
        "for.inc8->for.cond"};
    for (String e : edges) fn.edge(e.split("->")[0], e.split("->")[1]);
    Val x = fn.inst("entry", "x", OpKind.OTHER_PURE, a, b); // float add
    Val xx = fn.inst("entry", "xx", OpKind.OTHER_PURE, x, x);
    Val y = fn.inst("entry", "y", OpKind.OTHER_PURE, xx, b);
    Val i = fn.phi("for.cond", "i", "entry", fn.c(0));
    Val z = fn.phi("for.cond", "z", "entry", y);
    fn.br("for.cond", fn.inst("for.cond", "cmp", OpKind.OTHER_PURE, i, y));
    Val z1 = fn.inst("for.body", "z1", OpKind.OTHER_PURE, z, a);
    fn.br("for.body", fn.inst("for.body", "cmp1", OpKind.OTHER_PURE, z1, a, x));
    Val z2 = fn.inst("if.then", "z2", OpKind.OTHER_PURE, z1, a);
    Val z3 = fn.inst("if.else", "z3", OpKind.OTHER_PURE, z1, b);
    fn.br("if.else", fn.inst("if.else", "cmp2", OpKind.OTHER_PURE, a, b));
    Val z4 = fn.inst("if.then2", "z4", OpKind.OTHER_PURE, z3, b);
    Val z5 = fn.inst("if.else2", "z5", OpKind.OTHER_PURE, z3, y);
    fn.br("if.else2", fn.inst("if.else2", "cmp3", OpKind.OTHER_PURE, b, a));
    Val z6 = fn.inst("if.then3", "z6", OpKind.OTHER_PURE, a, fn.c(3));
    Val z7 = fn.inst("if.else3", "z7", OpKind.OTHER_PURE, z5, fn.c(1));
    Val z8 = fn.phi("if.end3", "z8", "if.then3", z6, "if.else3", z7);
    Val z9 = fn.phi("if.end2", "z9", "if.then2", z4, "if.end3", z8);
    Val z10 = fn.phi("if.end", "z10", "if.then", z2, "if.end2", z9);
    Val j = fn.phi("for.cond4", "j", "if.end", fn.c(0));
    Val z11 = fn.phi("for.cond4", "z11", "if.end", z10);
    fn.br("for.cond4", fn.inst("for.cond4", "cmp4", OpKind.OTHER_PURE, j, fn.c(100)));
    Val ij = fn.inst("for.body5", "cmp5", OpKind.OTHER_PURE, i, j);
    fn.br("for.body5", ij);
    Val z12 = fn.inst("if.then6", "z12", OpKind.OTHER_PURE, z11, a);
    Val z13 = fn.inst("if.else6", "z13", OpKind.OTHER_PURE, z11, fn.global("13.2f"));
    Val z14 = fn.phi("if.end7", "z14", "if.then6", z12, "if.else6", z13);
    Val jn = fn.inst("for.inc", "jn", OpKind.ADD, j, fn.c(1));
    fn.addIncoming(j, "for.inc", jn);
    fn.addIncoming(z11, "for.inc", z14);
    Val z15 = fn.phi("for.end6", "z15", "for.cond4", z11);
    Val in = fn.inst("for.inc8", "in", OpKind.ADD, i, fn.c(1));
    fn.addIncoming(i, "for.inc8", in);
    fn.addIncoming(z, "for.inc8", z15);
    Val zl = fn.phi("for.end", "z.lcssa", "for.cond", z);
    Val res = fn.inst("for.end", "res", OpKind.OTHER_PURE, zl, y);
    Val store = fn.inst("for.end", "store", OpKind.OTHER, res, color);
    DivergenceInfo<String, Val> info = run(fn, Map.of(color, Shape.uniform(16)));
    assertEquals(Set.of("for.cond", "for.body", "if.else", "if.else2"), info.divergentBranches());
    assertTrue(info.isDivergentLoop(loop(info, "for.cond")));
    assertFalse(info.isDivergentLoop(loop(info, "for.cond4")));
    for (Val u : List.of(i, j, jn, in, ij)) assertTrue(info.isUniform(u), u.toString());
    for (Val u : List.of(z, z8, z9, z10, z11, z14, z15, zl, res, store)) {
      assertEquals(Shape.VARYING, info.shape(u), u.toString());
    }
    assertEquals(Set.of("if.end3", "if.end2", "if.end"), info.divergentJoins());
    assertEquals(Set.of("for.end"), info.divergentLoopExits());
    for (String blk : List.of("for.cond", "for.body", "if.then3", "for.cond4", "for.body5", "if.then6", "for.inc8")) {
      assertTrue(info.mayBePartial(blk), blk);
    }
    assertFalse(info.mayBePartial("entry"));
    assertFalse(info.mayBePartial("for.end"));
    assertEquals("phi at join of divergent branch in block if.else2", info.reason(z8));
    assertTrue(info.reason(y).startsWith("operand %xx is varying"), info.reason(y));
  }

  @Test
  void linearAddressesThroughGepAndLoopCounter() {
    TestFunction fn = new TestFunction();
    Val base = fn.param("base"); // uniform pointer aligned to 64
    Val tid = fn.param("tid"); // consecutive, lane 0 a multiple of 8
    fn.edge("entry", "h");
    fn.edge("h", "body");
    fn.edge("h", "exit");
    fn.edge("body", "h");
    Val i = fn.phi("h", "i", "entry", fn.c(0));
    fn.br("h", fn.inst("h", "c", OpKind.OTHER_PURE, i, fn.c(100)));
    Val idx = fn.inst("body", "idx", OpKind.ADD, tid, i);
    Val idx64 = fn.inst("body", "idx64", OpKind.SEXT, idx);
    Val p = fn.gep("body", "p", base, idx64, 4);
    Val q = fn.gep("body", "q", base, tid, 4, fn.c(2), 16); // base + tid*4 + 32
    Val scaled = fn.inst("body", "scaled", OpKind.MUL, tid, fn.c(3));
    Val shifted = fn.inst("body", "shifted", OpKind.SHL, tid, fn.c(2));
    Val neg = fn.inst("body", "neg", OpKind.SUB, fn.c(0), tid);
    Val zero = fn.inst("body", "zero", OpKind.SUB, tid, tid);
    Val prod = fn.inst("body", "prod", OpKind.MUL, tid, i);
    Val ld = fn.inst("body", "ld", OpKind.LOAD, p);
    Val ldu = fn.inst("body", "ldu", OpKind.LOAD, base);
    Val slot = fn.alloca("entry", "slot", 24);
    Val in = fn.inst("body", "in", OpKind.ADD, i, fn.c(1));
    fn.addIncoming(i, "body", in);
    DivergenceInfo<String, Val> info = run(fn, Map.of(base, Shape.uniform(64), tid, Shape.linear(1, 8)));
    assertTrue(info.isUniform(i));
    assertEquals(Shape.linear(1), info.shape(idx));
    assertEquals(Shape.linear(1), info.shape(idx64));
    assertEquals(Shape.linear(4, 4), info.shape(p), "i is not known to be aligned");
    assertEquals(Shape.linear(4, 32), info.shape(q), "min(64, 8*4, 32)");
    assertEquals(Shape.linear(3, 8), info.shape(scaled));
    assertEquals(Shape.linear(4, 32), info.shape(shifted));
    assertEquals(Shape.linear(-1, 8), info.shape(neg));
    assertEquals(Shape.uniform(8), info.shape(zero));
    assertEquals(Shape.VARYING, info.shape(prod));
    assertEquals("product of linear and non-constant operands %tid, %i", info.reason(prod));
    assertEquals(Shape.VARYING, info.shape(ld));
    assertEquals("load from non-uniform address %p (linear(4), align 4)", info.reason(ld));
    assertTrue(info.isUniform(ldu));
    assertEquals(Shape.linear(24), info.shape(slot));
    assertEquals("alloca: one private slot per lane (linear(24))", info.reason(slot));
    assertEquals(Shape.uniform(4096), info.shape(fn.c(0)));
    assertEquals(Shape.uniform(4), info.shape(fn.c(12)));
    assertFalse(info.isDivergentLoop(loop(info, "h")));
  }

  @Test
  void selectsCallsCustomShapesAndUnreachableCode() {
    TestFunction fn = new TestFunction();
    Val v = fn.param("v"), u = fn.param("u");
    fn.edge("entry", "exit");
    fn.edge("dead", "exit");
    Val same = fn.inst("entry", "same", OpKind.SELECT, v, u, u);
    Val sel = fn.inst("entry", "sel", OpKind.SELECT, v, u, fn.c(1));
    Val usel = fn.inst("entry", "usel", OpKind.SELECT, u, u, fn.c(1));
    Val pure = fn.call("entry", "pure", true, u);
    Val impure = fn.call("entry", "impure", false, u);
    Val ld = fn.inst("entry", "ld", OpKind.LOAD, u);
    fn.setCustomShape(ld, cur -> Optional.of(Shape.VARYING));
    Val d = fn.inst("dead", "d", OpKind.ADD, u, u);
    Val phi = fn.phi("exit", "phi", "entry", u, "dead", d);
    DivergenceInfo<String, Val> info = run(fn, Map.of(u, Shape.UNIFORM));
    assertTrue(info.isUniform(same));
    assertEquals(Shape.VARYING, info.shape(sel));
    assertEquals("select on non-uniform condition %v", info.reason(sel));
    assertTrue(info.isUniform(usel));
    assertTrue(info.isUniform(pure));
    assertEquals(Shape.VARYING, info.shape(impure));
    assertEquals("call with side effects or unknown purity", info.reason(impure));
    assertEquals(Shape.VARYING, info.shape(ld));
    assertEquals("shape varying from SsaFunction.customShape", info.reason(ld));
    assertEquals(Shape.VARYING, info.shape(d));
    assertEquals("defined in unreachable block dead", info.reason(d));
    assertTrue(info.isUniform(phi), "the unreachable incoming value is ignored");
    assertTrue(info.mayBePartial("dead"));
    assertFalse(info.mayBePartial("exit"));
  }

  /** A branch that becomes divergent only because a phi at the join of another divergent branch does. */
  @Test
  void divergenceFeedsBackThroughBranches() {
    TestFunction fn = new TestFunction();
    Val c = fn.param("c");
    fn.edge("entry", "a");
    fn.edge("entry", "b");
    fn.edge("a", "j");
    fn.edge("b", "j");
    fn.edge("j", "t");
    fn.edge("j", "e");
    fn.edge("t", "k");
    fn.edge("e", "k");
    fn.br("entry", c);
    Val x = fn.phi("j", "x", "a", fn.c(1), "b", fn.c(2));
    fn.br("j", x);
    Val y = fn.phi("k", "y", "t", fn.c(1), "e", fn.c(2));
    DivergenceInfo<String, Val> info = run(fn, Map.of());
    assertTrue(info.isDivergentBranch("j"));
    assertEquals(Shape.VARYING, info.shape(y));
    assertEquals(Set.of("entry", "j"), info.divergentBranches());
    DivergenceInfo<String, Val> uni = run(fn, Map.of(c, Shape.UNIFORM));
    assertTrue(uni.isUniform(y));
    assertTrue(uni.divergentBranches().isEmpty());
  }

  @Test
  void multiWayTerminatorWithoutConditionIsDivergent() {
    TestFunction fn = new TestFunction();
    fn.edge("entry", "a");
    fn.edge("entry", "b");
    fn.edge("entry", "c");
    fn.edge("a", "j");
    fn.edge("b", "j");
    fn.edge("c", "j");
    Val x = fn.phi("j", "x", "a", fn.c(1), "b", fn.c(2), "c", fn.c(3));
    DivergenceInfo<String, Val> info = run(fn, Map.of());
    assertTrue(info.isDivergentBranch("entry"));
    assertEquals(Shape.VARYING, info.shape(x));
  }

  /** A loop-carried value that adds a linear value every iteration becomes varying. */
  @Test
  void loopCarriedLinearAccumulationIsVarying() {
    TestFunction fn = new TestFunction();
    Val tid = fn.param("tid");
    fn.edge("entry", "h");
    fn.edge("h", "h");
    fn.edge("h", "exit");
    Val acc = fn.phi("h", "acc", "entry", fn.c(0));
    Val next = fn.inst("h", "next", OpKind.ADD, acc, tid);
    fn.addIncoming(acc, "h", next);
    Val k = fn.phi("h", "k", "entry", tid);
    Val kn = fn.inst("h", "kn", OpKind.ADD, k, fn.c(4));
    fn.addIncoming(k, "h", kn);
    fn.br("h", fn.inst("h", "c", OpKind.OTHER_PURE, kn, fn.c(64)));
    DivergenceInfo<String, Val> info = run(fn, Map.of(tid, Shape.linear(1)));
    assertEquals(Shape.VARYING, info.shape(acc), "0, tid, 2*tid, ...: strides differ between iterations");
    assertEquals(Shape.linear(1), info.shape(k), "tid + 4*iteration keeps stride 1");
    assertEquals(Shape.linear(1), info.shape(kn));
    assertTrue(info.isDivergentBranch("h"));
  }
}
