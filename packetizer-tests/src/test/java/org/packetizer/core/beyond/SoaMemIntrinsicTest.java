package org.packetizer.core.beyond;

import static org.junit.jupiter.api.Assertions.*;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.packetizer.core.api.PacketizationException;
import org.packetizer.core.Packetizer;
import org.packetizer.core.api.PacketizerOptions;
import org.packetizer.core.check.CheckResult;
import org.packetizer.core.check.DifferentialCheck;
import org.packetizer.core.check.KernelChecks;
import org.packetizer.core.check.ParamSpec;
import org.packetizer.core.check.ParamSpec.Direction;
import org.packetizer.core.check.ValueDomain;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.ir.Type;

/**
 * Struct-of-arrays pointers passed to {@code llvm.memcpy}/{@code llvm.memset} (issue 14 §2), on
 * {@code beyond/soa_copy.c} compiled with plain {@code -O2}/{@code -O1}: struct assignments between
 * struct-of-arrays objects, from a shared struct into them, out of them into each lane's own struct,
 * with all lanes and under divergent control (masked), and memsets. Differential execution at
 * W = 4, 8, 16: every lane's object, field by field.
 */
class SoaMemIntrinsicTest {
  static final int RUNS = 30;

  static Type particle(LlvmContext ctx) { return KernelChecks.parseType(ctx, "{ float, float, float, i32, double }"); }

  static void check(LlvmModule m, String fn, int w, String kinds, boolean alsoMasked, long seed, ParamSpec... specs) {
    for (boolean masked : alsoMasked ? new boolean[] {false, true} : new boolean[] {false}) {
      String simd = fn + (masked ? "_m" : "_v") + w;
      new Packetizer(PacketizerOptions.builder().width(w).params(kinds).masked(masked).verifyEachPhase(true).build()).run(m, fn, simd);
      List<ParamSpec> ps = new ArrayList<>(List.of(specs));
      if (masked) ps.add(ParamSpec.mask());
      try (DifferentialCheck c = DifferentialCheck.builder(m, fn, simd, w).params(ps).build()) {
        CheckResult res = c.runMany(RUNS, seed + (masked ? 1000 : 0));
        assertTrue(res.passed(), () -> fn + " W=" + w + (masked ? " masked" : "") + ":\n" + res.report() + "\n"
            + m.function(simd).orElseThrow().print());
      }
    }
  }

  @ParameterizedTest(name = "W={0} {1}")
  @CsvSource({"4,-O2", "8,-O2", "16,-O2", "8,-O1"})
  void structAssignments(int w, String opt) {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = IndirectCallTest.compilePlain(ctx, "soa_copy.c", opt)) {
      Type p = particle(ctx);
      check(m, "copy_in", w, "su", true, 10 + w, ParamSpec.soaPtr(p, 1, Direction.OUT), ParamSpec.uniformPtr(p, 1, Direction.IN));
      check(m, "copy_out", w, "vs", true, 20 + w, ParamSpec.varyingPtr(p, 1, Direction.OUT), ParamSpec.soaPtr(p, 1, Direction.IN));
      check(m, "copy_soa", w, "ss", true, 30 + w, ParamSpec.soaPtr(p, 1, Direction.INOUT), ParamSpec.soaPtr(p, 1, Direction.IN));
      check(m, "copy_soa_if", w, "ssv", true, 40 + w, ParamSpec.soaPtr(p, 1, Direction.INOUT), ParamSpec.soaPtr(p, 1, Direction.IN),
          ParamSpec.varying(ValueDomain.floats(-2, 2)));
      check(m, "copy_out_if", w, "vsv", true, 50 + w, ParamSpec.varyingPtr(p, 1, Direction.INOUT), ParamSpec.soaPtr(p, 1, Direction.IN),
          ParamSpec.varying(ValueDomain.floats(-2, 2)));
    }
  }

  @ParameterizedTest(name = "W={0}")
  @CsvSource({"4", "8", "16"})
  void memsetOfAStructOfArraysObject(int w) {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = IndirectCallTest.compilePlain(ctx, "soa_copy.c", "-O2")) {
      Type p = particle(ctx);
      check(m, "clear", w, "s", false, 60 + w, ParamSpec.soaPtr(p, 1, Direction.INOUT));
      check(m, "fill", w, "su", false, 70 + w, ParamSpec.soaPtr(p, 1, Direction.INOUT), ParamSpec.uniform(ValueDomain.ints(0, 255)));
    }
  }

  /** What has no known layout is refused with the function, block, instruction and the reason. */
  @ParameterizedTest(name = "W={0}")
  @CsvSource({"4", "8"})
  void copiesWithoutAKnownLayoutAreRefusedClearly(int w) {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = IndirectCallTest.compilePlain(ctx, "soa_copy.c", "-O2")) {
      String before = m.toIr();
      PacketizationException masked = assertThrows(PacketizationException.class, () -> new Packetizer(PacketizerOptions.builder().width(w)
          .params("s").masked(true).build()).run(m, "clear", "clear_masked"));
      assertTrue(masked.getMessage().contains("memset") && masked.getMessage().contains("!tbaa.struct"), masked::getMessage);
      assertEquals("clear", masked.function().orElseThrow());
      assertTrue(masked.block().isPresent() && masked.instruction().orElseThrow().contains("llvm.memset"), masked::getMessage);
      PacketizationException array = assertThrows(PacketizationException.class, () -> new Packetizer(PacketizerOptions.builder().width(w)
          .params("su").build()).run(m, "copy_array_field", "copy_array_field_v"));
      assertTrue(array.getMessage().contains("byte 4") && array.getMessage().contains("array or union"), array::getMessage);
      assertEquals(before, m.toIr(), "the module is unchanged");
    }
  }
}
