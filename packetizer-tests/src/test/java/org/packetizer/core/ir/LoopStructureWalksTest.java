package org.packetizer.core.ir;

import static org.junit.jupiter.api.Assertions.*;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The walks over a function's loops and blocks that issue 16's packetization-time rounds rewrote:
 * {@link LoopAlign#innermostLatches} (which loops count as innermost, asked over each loop's body) and
 * {@link FunctionCloner#cloneInModule} (operands, phis and block references remapped through maps keyed
 * by native address). Generated functions hold many loop nests of known shape: the expected innermost
 * latches are known by construction, not read from the code under test.
 */
class LoopStructureWalksTest {

  /** Appends a loop nest of {@code depth} levels (1 = a plain loop) with {@code inner} loops in sequence at the bottom. */
  private static void nest(StringBuilder ir, String id, int depth, int inner, String from, String to, List<String> innermost) {
    // head_<id>: the nest's header at this level; its body holds the next level (or the inner loops)
    String h = "h_" + id;
    String latch = "l_" + id;
    ir.append("  br label %").append(h).append("\n");
    ir.append(h).append(":\n  %i_").append(id).append(" = phi i32 [ 0, %").append(from).append(" ], [ %n_").append(id)
        .append(", %").append(latch).append(" ]\n");
    if (depth == 1 && inner == 0) {
      // a plain loop: the header is its own latch's predecessor
      ir.append("  br label %").append(latch).append("\n");
      innermost.add(latch);
    } else if (depth == 1) {
      String prev = h;
      for (int k = 0; k < inner; k++) {
        String cid = id + "_" + k;
        nest(ir, cid, 1, 0, prev, null, innermost);
        prev = "x_" + cid;
        ir.append("x_").append(cid).append(":\n");
      }
      ir.append("  br label %").append(latch).append("\n");
    } else {
      nest(ir, id + "_d", depth - 1, inner, h, null, innermost);
      ir.append("x_").append(id).append("_d:\n  br label %").append(latch).append("\n");
    }
    ir.append(latch).append(":\n  %n_").append(id).append(" = add i32 %i_").append(id).append(", 1\n  %c_").append(id)
        .append(" = icmp slt i32 %n_").append(id).append(", %t\n  br i1 %c_").append(id).append(", label %").append(h)
        .append(", label %").append(to != null ? to : "x_" + id).append("\n");
  }

  /** A function of {@code nests} loop nests of random depth (1..3) and inner-loop count (0..3) in sequence. */
  private static String function(int nests, long seed, List<String> innermost) {
    Random r = new Random(seed);
    StringBuilder ir = new StringBuilder("define i32 @f(i32 %t) {\nentry:\n");
    String from = "entry";
    for (int n = 0; n < nests; n++) {
      String id = "n" + n;
      int depth = 1 + r.nextInt(3);
      int inner = r.nextInt(4);
      nest(ir, id, depth, inner, from, null, innermost);
      from = "x_" + id;
      ir.append(from).append(":\n");
    }
    ir.append("  ret i32 %t\n}\n");
    return ir.toString();
  }

  private static List<String> names(List<Block> blocks) {
    List<String> out = new ArrayList<>();
    for (Block b : blocks) out.add(b.name());
    return out;
  }

  @Test
  void innermostLatchesOfManyNests() {
    for (long seed = 1; seed <= 6; seed++) {
      List<String> expected = new ArrayList<>();
      String ir = function(60, seed, expected);
      try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.parseIr(ir, "nests")) {
        assertTrue(m.verify().isEmpty(), () -> m.verify().get());
        Function f = m.function("f").orElseThrow();
        // (the order is the depth-first search's order of headers, which visits the nests in sequence and
        // a nest's loops in the order they come: the order built above)
        assertEquals(expected, names(LoopAlign.innermostLatches(f)), ir);
        assertTrue(LoopAlign.hasLoop(f));
      }
    }
  }

  @Test
  void anOuterLoopIsInnermostWhenItsOnlyInnerLoopIsCold() {
    // outer loop h_o around one inner loop h_i; marked cold, the inner loop does not count and the outer
    // loop is innermost; unmarked, the inner one is
    String ir = """
        define i32 @f(i32 %t) {
        entry:
          br label %h_o
        h_o:
          %i = phi i32 [ 0, %entry ], [ %n, %l_o ]
          br label %h_i
        h_i:
          %j = phi i32 [ 0, %h_o ], [ %m, %l_i ]
          br label %l_i
        l_i:
          %m = add i32 %j, 1
          %c = icmp slt i32 %m, %t
          br i1 %c, label %h_i, label %l_o
        l_o:
          %n = add i32 %i, 1
          %d = icmp slt i32 %n, %t
          br i1 %d, label %h_o, label %x
        x:
          ret i32 %t
        }
        """;
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.parseIr(ir, "cold")) {
      Function f = m.function("f").orElseThrow();
      assertEquals(List.of("l_i"), names(LoopAlign.innermostLatches(f)));
      Block li = f.blocks().stream().filter(b -> b.name().equals("l_i")).findFirst().orElseThrow();
      LoopAlign.markColdLaneLoop(li.terminator());
      assertEquals(List.of("l_o"), names(LoopAlign.innermostLatches(f)));
      assertEquals(1, LoopAlign.unmarkColdLaneLoops(f));
      assertEquals(List.of("l_i"), names(LoopAlign.innermostLatches(f)));
    }
  }

  @Test
  void clonedFunctionOfManyNestsPrintsAsTheOriginal() {
    List<String> ignored = new ArrayList<>();
    String ir = function(40, 7, ignored);
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.parseIr(ir, "clone")) {
      Function f = m.function("f").orElseThrow();
      Function g = FunctionCloner.cloneInModule(m, f, "g");
      assertTrue(m.verify().isEmpty(), () -> m.verify().get());
      // every operand, phi edge and branch target remapped into g: the body prints the same
      String body = f.print().substring(f.print().indexOf('{'));
      String copy = g.print().substring(g.print().indexOf('{'));
      assertEquals(body, copy);
      // and nothing of g refers to f's values or blocks
      for (Block b : g.blocks()) {
        for (Value i : b.instructions()) {
          for (int k = 0; k < i.numOperands(); k++) {
            Value op = i.operand(k);
            if (op != null && op.isInstruction()) assertEquals(g, op.block().orElseThrow().parent(), i.print());
          }
        }
      }
    }
  }
}
