package org.packetizer.core.beyond;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.packetizer.core.Packetizer;
import org.packetizer.core.api.PacketizationResult;
import org.packetizer.core.api.PacketizerOptions;
import org.packetizer.core.api.Remark;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;

/**
 * {@link PacketizerOptions#remarkInstructions()}: without the texts the remarks are the same (kind,
 * function, block, message, order; in the result and in the sink) and the packet function is the same,
 * only the instruction text is null, except for a cross-lane race, whose warning keeps the text it has
 * with them. On {@code beyond/shared.c} compiled by the bundled clang at -O1/-O2: a race
 * ({@code ticket}), divergent control flow with stores ({@code set_paths}, {@code set_last}).
 */
class RemarkInstructionsTest {

  record Run(PacketizationResult result, List<Remark> sunk, String packetIr) {}

  static Run packetize(String opt, String fn, int w, String kinds, boolean texts) {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = IndirectCallTest.compilePlain(ctx, "shared.c", opt)) {
      List<Remark> sunk = new ArrayList<>();
      PacketizerOptions o = PacketizerOptions.builder().width(w).params(kinds).remarks(sunk::add).remarkInstructions(texts).build();
      assertEquals(texts, o.remarkInstructions());
      assertEquals(texts, o.toBuilder().build().remarkInstructions());
      PacketizationResult r = new Packetizer(o).run(m, fn, fn + "_v" + w);
      return new Run(r, sunk, m.function(fn + "_v" + w).orElseThrow().print());
    }
  }

  @ParameterizedTest(name = "{0} W={1}")
  @CsvSource({"-O2,4", "-O2,8", "-O2,16", "-O1,8"})
  void withoutTextsTheRemarksAndTheCodeAreTheSameAndRacesKeepTheirText(String opt, int w) {
    int named = 0, races = 0;
    for (String[] f : new String[][] {{"ticket", "v"}, {"set_paths", "vv"}, {"set_last", "v"}}) {
      Run with = packetize(opt, f[0], w, f[1], true);
      Run without = packetize(opt, f[0], w, f[1], false);
      assertEquals(with.packetIr(), without.packetIr(), f[0]);
      assertEquals(with.result().remarks(), with.sunk(), f[0]);
      assertEquals(without.result().remarks(), without.sunk(), f[0]);
      List<Remark> a = with.result().remarks(), b = without.result().remarks();
      assertEquals(a.size(), b.size(), () -> a + "\n" + b);
      for (int i = 0; i < a.size(); i++) {
        Remark x = a.get(i), y = b.get(i);
        assertEquals(x.kind(), y.kind(), x::toLine);
        assertEquals(x.function(), y.function(), x::toLine);
        assertEquals(x.block(), y.block(), x::toLine);
        assertEquals(x.message(), y.message(), x::toLine);
        if (x.kind() == Remark.Kind.CROSS_LANE_RACE) {
          races++;
          assertNotNull(x.instruction(), x::toLine);
          assertTrue(x.instruction().contains("store i32") && x.instruction().contains("@counter"), x::toLine);
          assertEquals(x.instruction(), y.instruction(), y::toLine);
        } else {
          if (x.instruction() != null) named++;
          assertNull(y.instruction(), y::toLine);
        }
      }
    }
    assertEquals(1, races, "ticket's race");
    assertTrue(named > 0, "some remark names an instruction when texts are asked for");
  }
}
