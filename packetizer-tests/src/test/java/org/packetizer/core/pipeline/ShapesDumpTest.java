package org.packetizer.core.pipeline;

import static org.junit.jupiter.api.Assertions.*;

import org.junit.jupiter.api.Test;
import org.packetizer.core.Packetizer;
import org.packetizer.core.api.PacketizationResult;
import org.packetizer.core.api.PacketizerOptions;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;

/**
 * {@link PacketizationResult#shapesDump()}, the API side of {@code packetize --print-shapes}: one line
 * per block with what the analysis decided, one line per named value with its shape. The expected
 * text follows from the analysis' definitions: a loop whose exit depends on a varying value is
 * divergent and its body may run with a partial mask; its counter is uniform while the lanes that
 * still run agree on it, its value after the loop is not (temporal divergence); a uniform loop keeps
 * its branch; a linear index into a uniform base is linear with the element size as stride.
 */
class ShapesDumpTest {
  static final String IR = """
      define i32 @escape(float %x, ptr %p, i64 %i, i32 %n) {
      entry:
        %q = getelementptr inbounds float, ptr %p, i64 %i
        %b = load float, ptr %q, align 4
        br label %uloop
      uloop:
        %j = phi i32 [ 0, %entry ], [ %j.next, %uloop ]
        %j.next = add i32 %j, 1
        %more = icmp slt i32 %j.next, %n
        br i1 %more, label %uloop, label %vloop
      vloop:
        %k = phi i32 [ 0, %uloop ], [ %k.next, %vloop ]
        %v = phi float [ %x, %uloop ], [ %v.next, %vloop ]
        %v.next = fmul float %v, %b
        %k.next = add i32 %k, 1
        %c = fcmp ogt float %v.next, 1.0
        br i1 %c, label %vloop, label %exit
      exit:
        %r = add i32 %k.next, %j.next
        ret i32 %r
      }
      """;

  @Test
  void theDumpSaysWhatTheAnalysisDecided() {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.parseIr(IR, "shapes.ll")) {
      PacketizationResult r = new Packetizer(PacketizerOptions.builder().width(8).params("vula4u").build())
          .run(m, "escape", "escape8");
      String d = r.shapesDump();
      assertTrue(d.startsWith("shapes @escape -> @escape8 (width 8, params vula4u)\n"), d);
      assertTrue(d.contains("  %q: linear(4)"), d);
      assertTrue(d.contains("block %uloop: full mask, loop header (uniform loop), uniform branch kept"), d);
      assertTrue(d.contains("  %j: uniform"), d);
      assertTrue(d.contains("block %vloop: partial mask, loop header (divergent loop), divergent branch"), d);
      assertTrue(d.contains("  %k: uniform"), d);
      assertTrue(d.contains("  %v: varying"), d);
      assertTrue(d.contains("block %exit: full mask"), d);
      assertTrue(d.contains("  %r: varying"), d);
      // every block of the result's analysis appears, in order, once
      int at = -1;
      for (PacketizationResult.BlockInfo b : r.blockInfo()) {
        int i = d.indexOf("block %" + b.name() + ":");
        assertTrue(i > at, b.name() + " in order:\n" + d);
        at = i;
      }
    }
  }
}
