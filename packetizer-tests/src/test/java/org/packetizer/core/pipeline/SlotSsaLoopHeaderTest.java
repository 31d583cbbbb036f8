package org.packetizer.core.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.packetizer.core.ir.Block;
import org.packetizer.core.ir.Function;
import org.packetizer.core.ir.IrBuilder;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.ir.Opcode;
import org.packetizer.core.ir.Value;

/**
 * {@link SlotSsa#predecessorsFinal} on a loop header once its back edge exists (the linearizer declares
 * it when it leaves the loop): a later read walks through the loop, and the walk, coming back to a
 * block it is inside of, adds no value for that way. A variable the loop never writes is answered at
 * once (no placeholder); one the loop writes on some way is not (a placeholder, then a phi), and the
 * resolution agrees with every answer.
 */
class SlotSsaLoopHeaderTest {
  private static final String DECL = "declare i32 @f(i32, i32, i1, i1)\n";

  /** The placeholder loads left in {@code f} (shared with {@link SlotSsaSolePredecessorTest}). */
  private static int loads(Function f) { return SlotSsaSolePredecessorTest.loads(f); }

  /**
   * An outer loop resets {@code acc} at its header (an initial value, as a block's mask accumulator);
   * an inner loop inside it never writes it. After the inner loop, a read takes the reset value through
   * the inner loop's header, whose back edge leads back into the walk.
   */
  @Test
  void aVariableTheInnerLoopNeverWritesIsAnsweredThroughItsHeader() {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.parseIr(DECL, "t"); IrBuilder b = new IrBuilder(ctx)) {
      Function f = m.function("f").orElseThrow();
      Block entry = f.appendBlock("entry");
      Block outer = f.appendBlock("outer");
      Block inner = f.appendBlock("inner");
      Block after = f.appendBlock("after");
      Block exit = f.appendBlock("exit");
      SlotSsa ssa = new SlotSsa(b, f, b.constNull(ctx.ptrType()));
      SlotSsa.Var acc = ssa.newVar(ctx.i32(), "acc");
      SlotSsa.Var x = ssa.newVar(ctx.i32(), "x");
      ssa.init(acc, outer, b.i32(0));

      b.atEnd(entry);
      ssa.write(x, f.param(0));
      b.br(outer);

      b.atEnd(outer);  // outer header: its back edge comes later
      b.br(inner);

      b.atEnd(inner);  // inner header and latch: writes x, not acc
      Value xi = ssa.read(x, "xi");
      ssa.write(x, b.add(xi, f.param(1), "xn"));
      b.condBr(f.param(2), inner, after);
      // the inner loop is complete: both edges into its header exist
      ssa.predecessorsFinal(inner, List.of(outer, inner));
      ssa.solePredecessor(after, inner);

      b.atEnd(after);
      Value a = ssa.read(acc, "a");
      assertEquals(b.i32(0), a, "the outer header's reset, through the inner loop");
      ssa.write(acc, b.add(a, f.param(1), "a1"));
      Value xa = ssa.read(x, "xa");
      assertNotEquals(f.param(0), xa, "the inner loop writes x: not the entry's value");
      b.condBr(f.param(3), outer, exit);

      b.atEnd(exit);
      Value r = ssa.read(acc, "r");
      b.ret(b.add(r, xa, "sum"));
      int before = loads(f);

      ssa.resolve();
      assertEquals(0, loads(f));
      assertTrue(f.isValid(), () -> f.print());
      assertTrue(before <= 2, () -> "placeholders: " + before + "\n" + f.print());
      assertTrue(f.print().contains("%a1 = add i32 0, %1"), () -> f.print());
    }
  }

  /**
   * A loop whose body writes the variable on one way only: after the loop the ways disagree (the
   * entry's value around no iteration, the write after one), so the read is a placeholder and the
   * resolution makes phis; taking the entry's value here would be wrong code.
   */
  @Test
  void aVariableTheLoopWritesOnOneWayIsNotAnsweredEarly() {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.parseIr(DECL, "t"); IrBuilder b = new IrBuilder(ctx)) {
      Function f = m.function("f").orElseThrow();
      Block entry = f.appendBlock("entry");
      Block header = f.appendBlock("header");
      Block write = f.appendBlock("write");
      Block latch = f.appendBlock("latch");
      Block exit = f.appendBlock("exit");
      SlotSsa ssa = new SlotSsa(b, f, b.constNull(ctx.ptrType()));
      SlotSsa.Var v = ssa.newVar(ctx.i32(), "v");

      b.atEnd(entry);
      ssa.write(v, f.param(0));
      b.br(header);

      b.atEnd(header);
      b.condBr(f.param(2), write, latch);
      ssa.solePredecessor(write, header);

      b.atEnd(write);
      ssa.write(v, f.param(1));
      b.br(latch);

      b.atEnd(latch);
      ssa.predecessorsFinal(latch, List.of(header, write));
      b.condBr(f.param(3), header, exit);
      ssa.predecessorsFinal(header, List.of(entry, latch));
      ssa.solePredecessor(exit, latch);

      b.atEnd(exit);
      Value r = ssa.read(v, "r");
      assertEquals(Opcode.LOAD, r.opcode(), "the ways around the loop disagree: a placeholder");
      b.ret(r);

      ssa.resolve();
      assertEquals(0, loads(f));
      assertTrue(f.isValid(), () -> f.print());
      assertEquals(1, header.phis().size(), () -> f.print());
      assertEquals(1, latch.phis().size(), () -> f.print());
    }
  }
}
