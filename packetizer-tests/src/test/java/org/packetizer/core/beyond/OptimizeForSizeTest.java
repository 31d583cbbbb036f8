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

  static final String LANE_LOOP = "a loop over the ";

  /**
   * Functions whose packetized body is more than 2.5 times their machine code ({@code beyond/size_lanes.c}:
   * nine neighbour loads of a per-lane point; a byte loop with per-lane start and trip count) become,
   * optimizing for size, a loop over the lanes running the scalar code (the remark says so), and agree
   * with the scalar function on every lane, the buffers between guard pages; with a mask parameter too
   * (inactive lanes skip the scalar code), and a function whose only stores go to its own local array
   * (a histogram: alloca, memset, stores at a data-dependent index); a function that stores through a
   * pointer it is given keeps its packetized body (no such remark) and agrees too.
   */
  @ParameterizedTest(name = "W={0} {1} {2}")
  @MethodSource("stencilCases")
  void overBudgetFunctionsRunTheScalarCodeOnEachLane(int w, String cpu, String opt) {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = PlainC.compile(ctx, "size_lanes.c", opt)) {
      ParamSpec x = ParamSpec.varying(ValueDomain.ints(-100000, 100000));
      ParamSpec grid = ParamSpec.uniformPtr(ctx.floatType(), 24 * 24, Direction.IN);
      // (masked on AVX-512, grid9's nine loads are masked hardware gathers, within the budget: no lane loop)
      lanes(m, "grid9", w, cpu, "uvv", true, !cpu.equals("znver4"), 60 + w, grid, x, x);
      lanes(m, "fnv_bytes", w, cpu, "uvv", true, true, 70 + w, ParamSpec.uniformPtr(ctx.i8(), 64, Direction.IN),
          ParamSpec.varying(ValueDomain.ints(0, 63)), ParamSpec.varying(ValueDomain.ints(0, 80)));
      lanes(m, "grid9_to", w, cpu, "vuvv", false, false, 80 + w, ParamSpec.varyingPtr(ctx.floatType(), 1, Direction.OUT), grid, x, x);
      lanes(m, "grid9d", w, cpu, "uvv", true, !cpu.equals("znver4"), 100 + w, ParamSpec.uniformPtr(ctx.doubleType(), 24 * 24, Direction.IN),
          ParamSpec.varying(ValueDomain.ints(-100000, 100000)), ParamSpec.varying(ValueDomain.ints(-30000, 30000)));
      lanes(m, "byte_classes", w, cpu, "uvv", true, true, 90 + w, ParamSpec.uniformPtr(ctx.i8(), 64, Direction.IN),
          ParamSpec.varying(ValueDomain.ints(0, 63)), ParamSpec.varying(ValueDomain.ints(0, 80)));
    }
  }

  static void lanes(LlvmModule m, String fn, int w, String cpu, String kinds, boolean laneLoop, boolean maskedLaneLoop, long seed,
      ParamSpec... specs) {
    for (boolean masked : new boolean[] {false, true}) {
      String simd = fn + "_" + cpu.replace('-', '_') + (masked ? "_m" : "_v") + w;
      PacketizationResult r = new Packetizer(PacketizerOptions.builder().width(w).params(kinds).masked(masked).targetCpu(cpu).verifyEachPhase(true)
          .optimize(PacketizerOptions.Optimize.SIZE).build()).run(m, fn, simd);
      String ir = m.function(simd).orElseThrow().print();
      boolean looped = r.remarks().stream().anyMatch(k -> k.message().contains(LANE_LOOP + w + " lanes"));
      assertEquals(masked ? maskedLaneLoop : laneLoop, looped, () -> simd + ": " + r.remarks() + "\n" + ir);
      List<ParamSpec> ps = new ArrayList<>(List.of(specs));
      if (masked) ps.add(ParamSpec.mask());
      try (DifferentialCheck c = DifferentialCheck.builder(m, fn, simd, w).params(ps).build()) {
        CheckResult res = c.runMany(AtomicsTest.RUNS, seed + (masked ? 1000 : 0));
        assertTrue(res.passed(), () -> simd + ":\n" + res.report() + "\n" + ir);
        assertTrue(res.lanesCompared() > 0);
      }
    }
  }
}
