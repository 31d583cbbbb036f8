package org.packetizer.core.beyond;

import static org.junit.jupiter.api.Assertions.*;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.packetizer.core.Packetizer;
import org.packetizer.core.api.PacketizerOptions;
import org.packetizer.core.api.Remark;
import org.packetizer.core.check.CheckResult;
import org.packetizer.core.check.DifferentialCheck;
import org.packetizer.core.check.ParamSpec;
import org.packetizer.core.check.ValueDomain;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;

/**
 * The cost model of the any-lane test (issue 16; {@code beyond/cost_model.c}, plain clang -O1/-O2
 * -fno-math-errno, haswell): a small block under a divergent branch whose estimated cost reaches
 * the test's — an {@code erff} call (a libm call per lane), an integer division by a varying divisor
 * (no vector division: per lane) — is skipped when no lane takes the branch, with a remark giving
 * the estimate; under the former instruction-count threshold (40) these blocks of three to five
 * instructions ran for no lane. Differential at W=4, 8, 16 (random inputs: the branch is taken in
 * some lanes, and at times in all or none).
 */
class CostModelTest {
  @ParameterizedTest(name = "W={0} {1}")
  @CsvSource({"4,-O1", "4,-O2", "8,-O1", "8,-O2", "16,-O1", "16,-O2"})
  void costlySmallBlocksAreSkippedAndAgreeWithScalar(int w, String opt) {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = PlainC.compile(ctx, "cost_model.c", opt, "-fno-math-errno")) {
      check(m, "cost_call", "v", w, 11 + w, true, ParamSpec.varying(ValueDomain.floats(-4.0, 6.0)));
      // the division costs 5 per lane: 20 at W4 stays below the test's 40
      check(m, "cost_div", "vv", w, 23 + w, w >= 8, ParamSpec.varying(ValueDomain.ints(-100, 100)),
          ParamSpec.varying(ValueDomain.ints(-1000, 1000)));
    }
  }

  private static void check(LlvmModule m, String fn, String kinds, int w, long seed, boolean skipped, ParamSpec... specs) {
    String simd = fn + "_v" + w;
    List<Remark> remarks = new ArrayList<>();
    new Packetizer(PacketizerOptions.builder().width(w).params(kinds).targetCpu("haswell").vectorMath(PacketizerOptions.VectorMath.INTRINSICS)
        .verifyEachPhase(true).remarks(remarks::add).build()).run(m, fn, simd);
    boolean remark = remarks.stream().anyMatch(r -> r.kind() == Remark.Kind.SKIP_IF_EMPTY && r.message().contains("estimated cost"));
    assertEquals(skipped, remark, () -> simd + ": " + remarks);
    try (DifferentialCheck c = DifferentialCheck.builder(m, fn, simd, w).params(List.of(specs)).build()) {
      CheckResult r = c.runMany(AtomicsTest.RUNS, seed);
      assertTrue(r.passed(), () -> simd + ":\n" + r.report() + "\n" + m.function(simd).orElseThrow().print());
      assertTrue(r.lanesCompared() > 0);
    }
  }
}
