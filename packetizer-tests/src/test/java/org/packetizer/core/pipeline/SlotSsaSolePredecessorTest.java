package org.packetizer.core.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.packetizer.core.ir.Block;
import org.packetizer.core.ir.Function;
import org.packetizer.core.ir.IrBuilder;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.ir.Opcode;
import org.packetizer.core.ir.Type;
import org.packetizer.core.ir.Value;

/**
 * {@link SlotSsa#solePredecessor} and {@link SlotSsa#predecessorsFinal}: a read in a block whose
 * predecessors are declared final takes the value they all deliver at their ends right away (no
 * placeholder load), the result is the one the resolution on the finished graph gives, predecessors
 * that disagree still get a placeholder (a phi), and a declaration the finished graph contradicts is
 * caught by {@link SlotSsa#resolve} instead of leaving a wrong value.
 */
class SlotSsaSolePredecessorTest {
  private static final String DECL = "declare i32 @f(i32, i32, i1, i32)\n";

  static int loads(Function f) {
    int n = 0;
    for (Block bl : f.blocks()) for (Value v : bl.instructions()) if (v.opcode() == Opcode.LOAD) n++;
    return n;
  }

  @Test
  void answersFromThePredecessorAndAgreesWithTheResolution() {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.parseIr(DECL, "t"); IrBuilder b = new IrBuilder(ctx)) {
      Function f = m.function("f").orElseThrow();
      Block entry = f.appendBlock("entry");
      Block thenB = f.appendBlock("then");
      Block elseB = f.appendBlock("else");
      Block mid = f.appendBlock("mid");
      Block last = f.appendBlock("last");
      Block join = f.appendBlock("join");
      Value a = f.param(0);
      Value bb = f.param(1);
      SlotSsa ssa = new SlotSsa(b, f, b.constNull(ctx.ptrType()));
      Type i32 = ctx.i32();
      SlotSsa.Var v = ssa.newVar(i32, "v");
      SlotSsa.Var w = ssa.newVar(i32, "w");
      ssa.init(w, entry, b.i32(7));

      b.atEnd(entry);
      ssa.write(v, a);
      b.condBr(f.param(2), thenB, elseB);
      ssa.solePredecessor(thenB, entry);
      ssa.solePredecessor(elseB, entry);

      b.atEnd(thenB);
      Value x = ssa.read(v, "x");
      assertEquals(a, x, "the predecessor's last write");
      ssa.write(v, bb);
      b.br(mid);
      ssa.solePredecessor(mid, thenB);

      b.atEnd(mid);  // nothing happens to v or w here
      b.br(last);
      ssa.solePredecessor(last, mid);

      b.atEnd(last);
      assertEquals(bb, ssa.read(v, "y"), "two sole predecessors back: the write in 'then'");
      assertEquals(b.i32(7), ssa.read(w, "z"), "the initial value three blocks back");
      b.br(join);

      b.atEnd(elseB);
      b.br(join);

      b.atEnd(join);  // two predecessors: a placeholder, resolved to a phi
      Value r = ssa.read(v, "r");
      Value s = b.add(r, ssa.read(w, "s"), "sum");
      b.ret(s);
      assertEquals(2, loads(f), "placeholders only in the join");

      ssa.resolve();
      assertEquals(0, loads(f));
      assertTrue(f.isValid(), () -> f.print());
      List<Value> phis = join.phis();
      assertEquals(1, phis.size(), () -> f.print());  // v; w is 7 on both ways
      assertTrue(f.print().contains("add i32 %r, 7") || f.print().contains("add i32 %v, 7"), () -> f.print());
    }
  }

  @Test
  void aDeclarationTheFinishedGraphContradictsIsCaught() {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.parseIr(DECL, "t"); IrBuilder b = new IrBuilder(ctx)) {
      Function f = m.function("f").orElseThrow();
      Block entry = f.appendBlock("entry");
      Block other = f.appendBlock("other");
      Block target = f.appendBlock("target");
      SlotSsa ssa = new SlotSsa(b, f, b.constNull(ctx.ptrType()));
      SlotSsa.Var v = ssa.newVar(ctx.i32(), "v");

      b.atEnd(entry);
      ssa.write(v, f.param(0));
      b.condBr(f.param(2), target, other);
      ssa.solePredecessor(target, entry);  // wrong: 'other' branches there too

      b.atEnd(target);
      Value x = ssa.read(v, "x");
      assertEquals(f.param(0), x);
      b.ret(x);

      b.atEnd(other);
      ssa.write(v, f.param(1));
      b.br(target);

      IllegalStateException e = assertThrows(IllegalStateException.class, ssa::resolve);
      assertTrue(e.getMessage().contains("predecessors declared final"), e.getMessage());
    }
  }

  @Test
  void predecessorsThatAgreeAnswerAndPredecessorsThatDisagreeGetAPhi() {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.parseIr(DECL, "t"); IrBuilder b = new IrBuilder(ctx)) {
      Function f = m.function("f").orElseThrow();
      Block entry = f.appendBlock("entry");
      Block left = f.appendBlock("left");
      Block right = f.appendBlock("right");
      Block join = f.appendBlock("join");
      SlotSsa ssa = new SlotSsa(b, f, b.constNull(ctx.ptrType()));
      SlotSsa.Var same = ssa.newVar(ctx.i32(), "same");
      SlotSsa.Var diff = ssa.newVar(ctx.i32(), "diff");

      b.atEnd(entry);
      ssa.write(same, f.param(3));
      ssa.write(diff, f.param(0));
      b.condBr(f.param(2), left, right);
      ssa.solePredecessor(left, entry);
      ssa.solePredecessor(right, entry);
      b.atEnd(left);
      b.br(join);
      b.atEnd(right);
      ssa.write(diff, f.param(1));
      b.br(join);

      b.atEnd(join);
      ssa.predecessorsFinal(join, List.of(left, right));
      Value s = ssa.read(same, "s");
      assertEquals(f.param(3), s, "both ways deliver the entry's write");
      Value d = ssa.read(diff, "d");
      assertEquals(Opcode.LOAD, d.opcode(), "the ways disagree: a placeholder");
      b.ret(b.add(s, d, "sum"));

      ssa.resolve();
      assertEquals(0, loads(f));
      assertTrue(f.isValid(), () -> f.print());
      assertEquals(1, join.phis().size(), () -> f.print());
    }
  }

  /**
   * Two ways bring the same constant through different wrappers (an initial poison, a poison a folded
   * blend wrote): the read answers poison, the resolution keeps a phi of the two, and the check
   * accepts it (it failed the packetization of irr04 with every block guarded, and an llvm-stress case).
   */
  @Test
  void aPhiOfEqualConstantsAgreesWithTheConstant() {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.parseIr(DECL, "t"); IrBuilder b = new IrBuilder(ctx)) {
      Function f = m.function("f").orElseThrow();
      Block entry = f.appendBlock("entry");
      Block left = f.appendBlock("left");
      Block right = f.appendBlock("right");
      Block join = f.appendBlock("join");
      Block after = f.appendBlock("after");
      SlotSsa ssa = new SlotSsa(b, f, b.constNull(ctx.ptrType()));
      SlotSsa.Var v = ssa.newVar(ctx.i32(), "v");
      ssa.init(v, left, b.poison(ctx.i32()));

      b.atEnd(entry);
      b.condBr(f.param(2), left, right);
      b.atEnd(left);
      b.br(join);
      b.atEnd(right);
      ssa.write(v, b.poison(ctx.i32()));
      b.br(join);
      b.atEnd(join);
      ssa.predecessorsFinal(join, List.of(left, right));
      b.br(after);
      ssa.solePredecessor(after, join);
      b.atEnd(after);
      Value x = ssa.read(v, "x");
      assertEquals(b.poison(ctx.i32()), x);
      b.ret(x);

      ssa.resolve();
      assertTrue(f.isValid(), () -> f.print());
    }
  }
}
