package org.packetizer.core.beyond;

import static org.junit.jupiter.api.Assertions.*;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.packetizer.core.Packetizer;
import org.packetizer.core.api.PacketizationResult;
import org.packetizer.core.api.PacketizerOptions;
import org.packetizer.core.check.CheckResult;
import org.packetizer.core.check.DifferentialCheck;
import org.packetizer.core.check.ParamSpec;
import org.packetizer.core.check.ParamSpec.Direction;
import org.packetizer.core.check.ValueDomain;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;

/**
 * Packet functions optimized for size ({@link PacketizerOptions.Optimize#SIZE}, issue 16's code-growth
 * goal) on foreign C compiled by the bundled clang at {@code -O1} and {@code -O2}: {@code beyond/optimize_size.c}
 * (expf, logf, powf, a sine and cosine of one argument, under full and partial masks) in the bit-exact
 * mode, where SIZE calls libm on each lane in a loop instead of the glibc-exact helpers, and the
 * stencils of {@code beyond/dynamic_variants.c}, which get no dynamic variants under SIZE (every lane
 * pattern and mask of {@link DynamicVariantsTest}, guard pages around every buffer). Differential,
 * bit-identical, at W=4, 8, 16, with and without a mask parameter; each packetization must say in
 * its remarks that it optimized for size (so that a SIZE option that is ignored fails here).
 * The machine-code growth is asserted by {@code bench.OptimizeForSizeGrowthTest}.
 */
class OptimizeForSizeTest {
  static final ValueDomain POSITIVE = ValueDomain.floats(0.05, 60.0);

  static Stream<Arguments> cases() {
    return AtomicsTest.widthsAndLevels();
  }

  @ParameterizedTest(name = "W={0} {1}")
  @MethodSource("cases")
  void mathAgreesWithScalar(int w, String opt) {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = PlainC.compile(ctx, "optimize_size.c", opt)) {
      check(m, "price", w, 10 + w, ParamSpec.varying(POSITIVE), ParamSpec.varying(POSITIVE), ParamSpec.varying(ValueDomain.floats(0.01, 3.0)));
      check(m, "tree", w, 20 + w, ParamSpec.varying(POSITIVE), ParamSpec.varying(POSITIVE), ParamSpec.varying(ValueDomain.floats(0.01, 3.0)));
      // (|a| and |a*y| up to 200: lanes inside and outside the exact sinf/cosf fast range of the speed mode)
      check(m, "ray", w, 30 + w, ParamSpec.varying(ValueDomain.floats(-200.0, 200.0)), ParamSpec.varying(ValueDomain.floats(-1.0, 1.0)),
          ParamSpec.varying(ValueDomain.floats(-1.0, 1.0)));
    }
  }

  static void check(LlvmModule m, String fn, int w, long seed, ParamSpec... specs) {
    for (boolean masked : new boolean[] {false, true}) {
      String simd = fn + (masked ? "_m" : "_v") + w;
      PacketizationResult r = new Packetizer(PacketizerOptions.builder().width(w).params("vvv").masked(masked).verifyEachPhase(true)
          .vectorMath(PacketizerOptions.VectorMath.INTRINSICS).optimize(PacketizerOptions.Optimize.SIZE).build()).run(m, fn, simd);
      String ir = m.function(simd).orElseThrow().print();
      assertFalse(ir.contains("@__packetizer_"), () -> simd + " calls an exact math helper:\n" + ir);
      assertTrue(r.remarks().stream().anyMatch(k -> k.message().contains("optimizing for size")), () -> simd + ": " + r.remarks());
      List<ParamSpec> ps = new ArrayList<>(List.of(specs));
      if (masked) ps.add(ParamSpec.mask());
      try (DifferentialCheck c = DifferentialCheck.builder(m, fn, simd, w).params(ps).build()) {
        CheckResult res = c.runMany(AtomicsTest.RUNS, seed + (masked ? 1000 : 0));
        assertTrue(res.passed(), () -> simd + ":\n" + res.report() + "\n" + ir);
        assertTrue(res.lanesCompared() > 0);
      }
    }
  }

  static Stream<Arguments> stencilCases() {
    return PlainC.widthCpuOptCases();
  }

  @ParameterizedTest(name = "W={0} {1} {2}")
  @MethodSource("stencilCases")
  void stencilsWithoutVariantsAgreeWithScalar(int w, String cpu, String opt) {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = PlainC.compile(ctx, "dynamic_variants.c", opt)) {
      ParamSpec grid = ParamSpec.uniformPtr(ctx.floatType(), DynamicVariantsTest.N, Direction.IN);
      for (String fn : List.of("stencil9", "stencil9_guarded")) {
        DynamicVariantsTest.check(m, fn, w, cpu, "uv", grid, DynamicVariantsTest.N, 4, DynamicVariantsTest.LO, DynamicVariantsTest.HI,
            50 + w, PacketizerOptions.Optimize.SIZE);
        for (String suffix : List.of("_v", "_m")) {
          String ir = m.function(fn + "_" + cpu.replace('-', '_') + suffix + w).orElseThrow().print();
          assertFalse(ir.contains(".consecutive:") || ir.contains(".same:"), () -> fn + " has dynamic variants under SIZE:\n" + ir);
        }
      }
    }
  }
}
