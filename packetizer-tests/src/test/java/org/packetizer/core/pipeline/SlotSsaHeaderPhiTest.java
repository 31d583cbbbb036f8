package org.packetizer.core.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.function.BiConsumer;
import org.junit.jupiter.api.Test;
import org.packetizer.core.ir.Block;
import org.packetizer.core.ir.Function;
import org.packetizer.core.ir.IrBuilder;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.ir.Value;

/**
 * {@code -Dpacketizer.headerPhiShortcut} (issue 16, twenty-third round): {@link SlotSsa#resolve} makes no
 * candidate phi at a block with a retreating in-edge when no block of the loops through it writes the
 * variable ({@link SlotSsa#loopEnds}): the retreating edges bring the block's own entry value. Each case
 * builds the same function with the knob on and off and compares the resolved text (the shortcut only
 * leaves out phis the trivial-phi pass would remove), and checks where the phis must stay: a write in an
 * inner latch that comes after the outer latch in reverse postorder, and an irreducible cycle entered
 * from two blocks (its retreating edge's target does not dominate the source).
 */
class SlotSsaHeaderPhiTest {
  private static final String DECL = "declare i32 @f(i32, i32, i1, i1)\n";

  /** What one build gives: the resolved function's text, the phis per block name, the counters. */
  private record Built(String text, java.util.Map<String, Integer> phis, int candidates, int skipped) {}

  /**
   * Builds {@code f} with the blocks {@code names} through {@code body}, resolves, and checks it is valid
   * and free of placeholder loads; the knob is set while the {@link SlotSsa} is made.
   */
  private static Built build(boolean shortcut, String[] names, BiConsumer<Ctx, SlotSsa> body) {
    String old = System.setProperty("packetizer.headerPhiShortcut", Boolean.toString(shortcut));
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.parseIr(DECL, "t"); IrBuilder b = new IrBuilder(ctx)) {
      Function f = m.function("f").orElseThrow();
      Block[] blocks = new Block[names.length];
      for (int i = 0; i < names.length; i++) blocks[i] = f.appendBlock(names[i]);
      SlotSsa ssa = new SlotSsa(b, f, b.constNull(ctx.ptrType()));
      if (old == null) System.clearProperty("packetizer.headerPhiShortcut");
      else System.setProperty("packetizer.headerPhiShortcut", old);
      body.accept(new Ctx(ctx, b, f, blocks), ssa);
      ssa.resolve();
      assertEquals(0, SlotSsaSolePredecessorTest.loads(f), () -> f.print());
      assertTrue(f.isValid(), () -> f.print());
      java.util.Map<String, Integer> phis = new java.util.TreeMap<>();
      for (Block bl : blocks) phis.put(bl.name(), bl.phis().size());
      return new Built(f.print(), phis, ssa.candidatePhis(), ssa.skippedHeaderPhis());
    } finally {
      if (old == null) System.clearProperty("packetizer.headerPhiShortcut");
      else System.setProperty("packetizer.headerPhiShortcut", old);
    }
  }

  private record Ctx(LlvmContext ctx, IrBuilder b, Function f, Block[] bl) {
    Value p(int i) { return f.param(i); }
  }

  /**
   * A loop that never writes {@code v}: with the shortcut no candidate phi is made at its header, without
   * it one is made and found trivial; the resolved function is the same, with no phi.
   */
  @Test
  void aLoopThatNeverWritesTheVariableGetsNoCandidatePhi() {
    String[] names = {"entry", "header", "body", "exit"};
    BiConsumer<Ctx, SlotSsa> body = (c, ssa) -> {
      SlotSsa.Var v = ssa.newVar(c.ctx().i32(), "v");
      SlotSsa.Var x = ssa.newVar(c.ctx().i32(), "x");
      IrBuilder b = c.b();
      b.atEnd(c.bl()[0]);
      ssa.write(v, c.p(0));
      ssa.write(x, c.p(1));
      b.br(c.bl()[1]);
      b.atEnd(c.bl()[1]);
      Value vh = ssa.read(v, "vh");
      Value xh = ssa.read(x, "xh");
      ssa.write(x, b.add(xh, vh, "xn"));
      b.condBr(c.p(2), c.bl()[2], c.bl()[3]);
      b.atEnd(c.bl()[2]);
      b.br(c.bl()[1]);
      b.atEnd(c.bl()[3]);
      b.ret(b.add(ssa.read(v, "ve"), ssa.read(x, "xe"), "r"));
    };
    Built on = build(true, names, body);
    Built off = build(false, names, body);
    assertEquals(off.text(), on.text(), "the same resolution");
    assertTrue(on.skipped() >= 1, () -> "the shortcut fired: " + on);
    assertTrue(on.candidates() < off.candidates(), () -> "fewer candidates: " + on + " / " + off);
    assertEquals(0, off.skipped());
    // x is written in the loop: its phi at the header stays; v's is gone
    assertEquals(1, on.phis().get("header"), on::text);
  }

  /**
   * An outer loop whose inner loop's latch comes after the outer latch in reverse postorder (the inner
   * header's first successor is the inner latch) and is the only block that writes {@code v}: the outer
   * header's phi stays. Taking the outer loop's extent from its latches alone would miss that write and
   * read the entry's value in every iteration.
   */
  @Test
  void aWriteInAnInnerLatchAfterTheOuterLatchKeepsTheOuterPhi() {
    String[] names = {"entry", "outer", "inner", "innerlatch", "outerlatch", "exit"};
    BiConsumer<Ctx, SlotSsa> body = (c, ssa) -> {
      SlotSsa.Var v = ssa.newVar(c.ctx().i32(), "v");
      IrBuilder b = c.b();
      Block[] bl = c.bl();
      b.atEnd(bl[0]);
      ssa.write(v, c.p(0));
      b.br(bl[1]);
      b.atEnd(bl[1]);
      Value vo = ssa.read(v, "vo");
      b.call(c.f(), java.util.List.of(vo, vo, c.p(2), c.p(3)), "use");
      b.br(bl[2]);
      b.atEnd(bl[2]);
      b.condBr(c.p(2), bl[3], bl[4]);  // the inner latch first: it comes last in reverse postorder
      b.atEnd(bl[3]);
      ssa.write(v, c.p(1));
      b.br(bl[2]);
      b.atEnd(bl[4]);
      b.condBr(c.p(3), bl[1], bl[5]);
      b.atEnd(bl[5]);
      b.ret(ssa.read(v, "ve"));
    };
    Built on = build(true, names, body);
    Built off = build(false, names, body);
    assertEquals(off.text(), on.text(), "the same resolution");
    assertEquals(1, on.phis().get("outer"), () -> "v changes around the outer loop:\n" + on.text());
    assertEquals(1, on.phis().get("inner"), on::text);
  }

  /**
   * An irreducible cycle: the entry branches to {@code a} and to {@code c}, c writes {@code v} and goes to
   * {@code b}, and a and b branch to each other. In reverse postorder b → a is the retreating edge, but a
   * does not dominate b (entry → c → b), so the value b brings is not a's own: a keeps its phi.
   */
  @Test
  void anIrreducibleCycleKeepsItsPhi() {
    String[] names = {"entry", "a", "c", "b", "exit"};
    BiConsumer<Ctx, SlotSsa> body = (c, ssa) -> {
      SlotSsa.Var v = ssa.newVar(c.ctx().i32(), "v");
      IrBuilder b = c.b();
      Block[] bl = c.bl();
      b.atEnd(bl[0]);
      ssa.write(v, c.p(0));
      b.condBr(c.p(2), bl[1], bl[2]);  // a first: a, b, then c in the depth-first walk
      b.atEnd(bl[1]);
      Value va = ssa.read(v, "va");
      b.call(c.f(), java.util.List.of(va, va, c.p(2), c.p(3)), "use");
      b.br(bl[3]);
      b.atEnd(bl[2]);
      ssa.write(v, c.p(1));
      b.br(bl[3]);
      b.atEnd(bl[3]);
      b.condBr(c.p(3), bl[1], bl[4]);
      b.atEnd(bl[4]);
      b.ret(ssa.read(v, "ve"));
    };
    Built on = build(true, names, body);
    Built off = build(false, names, body);
    assertEquals(off.text(), on.text(), "the same resolution");
    assertEquals(1, on.phis().get("a"), () -> "a is reached with v from c through b:\n" + on.text());
    assertEquals(0, on.skipped(), "no retreating edge the shortcut may leave out");
  }

  /** {@link SlotSsa#loopEnds} on the two shapes above, by hand. */
  @Test
  void loopEndsByHand() {
    // entry 0 -> outer 1 -> inner 2 -> {innerlatch 3, outerlatch 4}; 3 -> 2; 4 -> {1, exit 5}
    int[][] pred = {{}, {0, 4}, {1, 3}, {2}, {2}, {4}};
    int[] rpo = {0, 1, 2, 4, 5, 3};
    int[] rpoIndex = {0, 1, 2, 5, 3, 4};
    int[] end = SlotSsa.loopEnds(pred, rpo, rpoIndex, 6);
    assertEquals(5, end[1], "the outer loop reaches the inner latch, last in reverse postorder");
    assertEquals(5, end[2]);
    assertEquals(-1, end[0]);
    assertEquals(-1, end[4], "no retreating edge into the outer latch");
    // entry 0 -> {a 1, c 2}; a -> b 3; c -> b; b -> {a, exit 4}: reverse postorder entry, c, a, b, exit
    int[][] pred2 = {{}, {0, 3}, {0}, {1, 2}, {3}};
    int[] rpo2 = {0, 2, 1, 3, 4};
    int[] rpoIndex2 = {0, 2, 1, 3, 4};
    int[] end2 = SlotSsa.loopEnds(pred2, rpo2, rpoIndex2, 5);
    assertEquals(-1, end2[1], "a does not dominate b");
  }
}
