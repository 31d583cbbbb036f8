package org.packetizer.core.beyond;

import static org.junit.jupiter.api.Assertions.*;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.packetizer.core.Packetizer;
import org.packetizer.core.api.PacketizerOptions;
import org.packetizer.core.check.CheckResult;
import org.packetizer.core.check.DifferentialCheck;
import org.packetizer.core.check.ParamSpec;
import org.packetizer.core.check.ValueDomain;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;

/**
 * Calls that become one scalar call per lane (math intrinsics without a vector instruction in the
 * bit-exact {@code --vector-math intrinsics} mode, and calls without side effects that have no
 * vector route) run only for the active lanes under a partial mask: a loop over the mask's set bits
 * ({@code beyond/active_lanes.c}, plain {@code -O1}/{@code -O2}, with and without
 * {@code -fno-math-errno}). Differential, bit for bit, at W=4, 8, 16, unmasked and masked; structure:
 * the packet function of a call under a divergent branch has no vector libm intrinsic left (before:
 * {@code llvm.exp.v8f32}, i.e. W libm calls whatever the mask) and one scalar call in a loop.
 */
class ActiveLanesCallTest {
  static Stream<Arguments> cases() {
    List<Arguments> out = new ArrayList<>();
    for (int w : new int[] {4, 8, 16}) for (String o : new String[] {"-O1", "-O2", "-O2 -fno-math-errno"}) out.add(Arguments.of(w, o));
    return out.stream();
  }

  static LlvmModule compile(LlvmContext ctx, String opt) {
    String[] parts = opt.split(" ");
    String[] extra = java.util.Arrays.copyOfRange(parts, 1, parts.length);
    return PlainC.compile(ctx, "active_lanes.c", parts[0], extra);
  }

  static void check(LlvmModule m, String fn, int w, String kinds, long seed, ParamSpec... specs) {
    for (boolean masked : new boolean[] {false, true}) {
      String simd = fn + "_" + kinds + (masked ? "_m" : "_v") + w;
      new Packetizer(PacketizerOptions.builder().width(w).params(kinds).masked(masked).targetCpu("haswell")
          .vectorMath(PacketizerOptions.VectorMath.INTRINSICS).verifyEachPhase(true).build()).run(m, fn, simd);
      List<ParamSpec> ps = new ArrayList<>(List.of(specs));
      if (masked) ps.add(ParamSpec.mask());
      try (DifferentialCheck c = DifferentialCheck.builder(m, fn, simd, w).params(ps).build()) {
        CheckResult r = c.runMany(AtomicsTest.RUNS, seed + (masked ? 1000 : 0));
        assertTrue(r.passed(), () -> simd + ":\n" + r.report() + "\n" + m.function(simd).orElseThrow().print());
        assertTrue(r.lanesCompared() > 0);
      }
    }
  }

  @ParameterizedTest(name = "W={0} {1}")
  @MethodSource("cases")
  void agreesWithScalarBitForBit(int w, String opt) {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = compile(ctx, opt)) {
      check(m, "exp_divergent", w, "v", 10 + w, ParamSpec.varying(ValueDomain.floats(-2, 2)));
      check(m, "exp_march", w, "vv", 50 + w, ParamSpec.varying(ValueDomain.floats(-1, 3)), ParamSpec.varying(ValueDomain.ints(0, 40)));
      check(m, "exp_march", w, "vu", 60 + w, ParamSpec.varying(ValueDomain.floats(-1, 3)), ParamSpec.uniform(ValueDomain.ints(0, 40)));
      check(m, "sin_loop", w, "vv", 20 + w, ParamSpec.varying(ValueDomain.floats(-1, 3)),
          ParamSpec.varying(ValueDomain.ints(0, 100)));
      check(m, "pow_log_divergent", w, "vv", 30 + w, ParamSpec.varying(ValueDomain.floats(0, 4)),
          ParamSpec.varying(ValueDomain.floats(-3, 3)));
      check(m, "lround_divergent", w, "v", 40 + w, ParamSpec.varying(ValueDomain.floats(-100, 100)));
    }
  }

  /**
   * A call that allows approximate functions ({@code afn}: clang's {@code -ffast-math},
   * {@code -fapprox-func}) takes glibc's vector variant even in the bit-exact mode, as GCC uses
   * libmvec only under {@code -ffast-math}; without the flag the same source stays exact (above).
   * Within 8 ULP of the scalar libm (glibc documents 4 for libmvec), W=4, 8, 16, unmasked and masked.
   */
  @ParameterizedTest(name = "W={0} {1}")
  @MethodSource("approxCases")
  void approximateCallsTakeLibmvec(int w, String opt) {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = compile(ctx, opt)) {
      for (String fn : List.of("exp_divergent", "pow_log_divergent")) {
        for (boolean masked : new boolean[] {false, true}) {
          String simd = fn + (masked ? "_m" : "_v") + w;
          String kinds = fn.equals("exp_divergent") ? "v" : "vv";
          new Packetizer(PacketizerOptions.builder().width(w).params(kinds).masked(masked).targetCpu("haswell")
              .vectorMath(PacketizerOptions.VectorMath.INTRINSICS).verifyEachPhase(true).build()).run(m, fn, simd);
          String ir = m.function(simd).orElseThrow().print();
          assertTrue(ir.contains("@_ZGV"), () -> ir);
          List<ParamSpec> ps = new ArrayList<>();
          ps.add(ParamSpec.varying(ValueDomain.floats(0, 4)));
          if (kinds.equals("vv")) ps.add(ParamSpec.varying(ValueDomain.floats(-3, 3)));
          if (masked) ps.add(ParamSpec.mask());
          try (DifferentialCheck c = DifferentialCheck.builder(m, fn, simd, w).params(ps).ulps(8).build()) {
            CheckResult r = c.runMany(AtomicsTest.RUNS, 70 + w + (masked ? 1000 : 0));
            assertTrue(r.passed(), () -> simd + ":\n" + r.report() + "\n" + ir);
            assertTrue(r.lanesCompared() > 0);
          }
        }
      }
    }
  }

  /**
   * In the libmvec mode a vector library call under a partial mask is skipped when no lane is active
   * (plain {@code -O1}/{@code -O2}: with errno the calls stay under their branches). Within 8 ULP of
   * the scalar libm, W=4, 8, 16, unmasked and masked; the IR has the any-lane test.
   */
  @ParameterizedTest(name = "W={0} {1}")
  @MethodSource("cases")
  void libraryCallsSkipPacketsWithoutActiveLanes(int w, String opt) {
    if (opt.contains("math-errno")) return; // (clang then speculates the calls: no branch left to test)
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = compile(ctx, opt)) {
      for (String fn : List.of("exp_divergent", "pow_log_divergent")) {
        for (boolean masked : new boolean[] {false, true}) {
          String simd = fn + "_lib" + (masked ? "_m" : "_v") + w;
          String kinds = fn.equals("exp_divergent") ? "v" : "vv";
          new Packetizer(PacketizerOptions.builder().valueNames(true).width(w).params(kinds).masked(masked).targetCpu("haswell")
              .vectorMath(PacketizerOptions.VectorMath.LIBMVEC).verifyEachPhase(true).build()).run(m, fn, simd);
          String ir = m.function(simd).orElseThrow().print();
          // the any-lane test is the call's own ("any.call") or, when the cost model of the any-lane
          // test skips the whole block around the call, the block's ("any.bbN"): either way a packet
          // without active lanes makes no library call
          assertTrue(ir.contains("@_ZGV") && (ir.contains("%any.call") || ir.matches("(?s).*%any\\.bb\\d+(\\.not)? = .*")), () -> ir);
          List<ParamSpec> ps = new ArrayList<>();
          ps.add(ParamSpec.varying(ValueDomain.floats(0, 4)));
          if (kinds.equals("vv")) ps.add(ParamSpec.varying(ValueDomain.floats(-3, 3)));
          if (masked) ps.add(ParamSpec.mask());
          try (DifferentialCheck c = DifferentialCheck.builder(m, fn, simd, w).params(ps).ulps(8).build()) {
            CheckResult r = c.runMany(AtomicsTest.RUNS, 90 + w + (masked ? 1000 : 0));
            assertTrue(r.passed(), () -> simd + ":\n" + r.report() + "\n" + ir);
            assertTrue(r.lanesCompared() > 0);
          }
        }
      }
    }
  }

  static Stream<Arguments> approxCases() {
    List<Arguments> out = new ArrayList<>();
    for (int w : new int[] {4, 8, 16}) for (String o : new String[] {"-O2 -ffast-math", "-O1 -fno-math-errno -fapprox-func"}) out.add(Arguments.of(w, o));
    return out.stream();
  }

  /**
   * The structure: no vector libm intrinsic under the partial mask, one scalar call in a loop over
   * the lanes (powf; expf has had a vector route since the glibc-exact helper of issue 16: it gets
   * the helper, with the mask, and no lane loop of its own).
   */
  @Test
  void onlyActiveLanesCall() {
    for (int w : new int[] {4, 8, 16}) {
      // (plain -O2: with errno the powf call stays under its branch; -fno-math-errno would speculate it)
      // (x86-64-v2, no FMA: powf has no exact vector route there, so the lane loop; since the nineteenth round the run
      // decides for the options' CPU, and haswell's FMA takes the glibc-exact powf helper, as for a -march=haswell module)
      try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = compile(ctx, "-O2")) {
        new Packetizer(PacketizerOptions.builder().width(w).params("vv").targetCpu("x86-64-v2")
            .vectorMath(PacketizerOptions.VectorMath.INTRINSICS).build()).run(m, "pow_log_divergent", "p" + w);
        String ir = m.function("p" + w).orElseThrow().print();
        assertFalse(ir.contains("@llvm.pow.v"), () -> ir);
        assertEquals(1, TableLookupTest.count(ir, "call float @llvm.pow.f32("), () -> ir);
        assertTrue(ir.contains("@llvm.cttz.i" + w), () -> ir);
      }
      try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = compile(ctx, "-O2 -fno-math-errno")) {
        new Packetizer(PacketizerOptions.builder().width(w).params("vu").targetCpu("haswell")
            .vectorMath(PacketizerOptions.VectorMath.INTRINSICS).build()).run(m, "exp_march", "e" + w);
        String e = m.function("e" + w).orElseThrow().print();
        assertFalse(e.contains("@llvm.exp."), () -> e);
        assertEquals(1, TableLookupTest.count(e, "@__packetizer_glibc_expf_v" + w + "_"), () -> e);
      }
    }
  }
}
