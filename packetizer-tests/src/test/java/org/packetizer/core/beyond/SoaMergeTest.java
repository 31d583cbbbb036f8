package org.packetizer.core.beyond;

import static org.junit.jupiter.api.Assertions.*;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
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
 * A struct-of-arrays pointer merged by a select or phi with a pointer that is not struct-of-arrays
 * (issue 14 §2), on {@code beyond/soa_merge.c} compiled with plain {@code -O1}/{@code -O2}: the
 * merged pointer becomes a vector of per-lane pointers. Differential execution at W = 4, 8, 16,
 * unmasked and masked.
 */
class SoaMergeTest {
  static final int RUNS = 30;

  static void check(LlvmModule m, String fn, int w, String kinds, long seed, ParamSpec... specs) {
    for (boolean masked : new boolean[] {false, true}) {
      String simd = fn + "_" + kinds + (masked ? "_m" : "_v") + w;
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
  @CsvSource({"4,-O2", "8,-O2", "16,-O2", "4,-O1", "8,-O1", "16,-O1"})
  void selectOfAStructOfArraysFieldAndAnotherPointer(int w, String opt) {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = IndirectCallTest.compilePlain(ctx, "soa_merge.c", opt)) {
      Type s = KernelChecks.parseType(ctx, "{ float, float, i32 }");
      check(m, "pick", w, "suv", 10 + w, ParamSpec.soaPtr(s, 1, Direction.IN), ParamSpec.uniformPtr(ctx.floatType(), 1, Direction.IN),
          ParamSpec.varying(ValueDomain.floats(-2, 2)));
      check(m, "pick", w, "svv", 20 + w, ParamSpec.soaPtr(s, 1, Direction.IN), ParamSpec.varyingPtr(ctx.floatType(), 1, Direction.IN),
          ParamSpec.varying(ValueDomain.floats(-2, 2)));
      check(m, "put", w, "svvv", 30 + w, ParamSpec.soaPtr(s, 1, Direction.INOUT), ParamSpec.varyingPtr(ctx.floatType(), 1, Direction.INOUT),
          ParamSpec.varying(ValueDomain.floats(-2, 2)), ParamSpec.varying(ValueDomain.floats(-9, 9)));
    }
  }

  /** A pointer carried around a loop that starts at a struct-of-arrays field and switches to another pointer (a phi and a select). */
  @ParameterizedTest(name = "W={0}")
  @CsvSource({"4", "8", "16"})
  void phiAroundALoop(int w) {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = IndirectCallTest.compilePlain(ctx, "soa_merge.c", "-O1")) {
      Type s = KernelChecks.parseType(ctx, "{ float, float, i32 }");
      check(m, "walk", w, "svv", 40 + w, ParamSpec.soaPtr(s, 1, Direction.IN), ParamSpec.varyingPtr(ctx.i32(), 1, Direction.IN),
          ParamSpec.varying(ValueDomain.ints(0, 5)));
    }
  }
}
