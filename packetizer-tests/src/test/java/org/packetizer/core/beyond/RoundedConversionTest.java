package org.packetizer.core.beyond;

import static org.junit.jupiter.api.Assertions.*;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.packetizer.core.Packetizer;
import org.packetizer.core.api.PacketizerOptions;
import org.packetizer.core.check.ParamSpec;
import org.packetizer.core.check.ValueDomain;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;

/**
 * Rounded floats converted to int ({@code (int)floorf(x)}, {@code ceilf}, {@code rintf},
 * {@code nearbyintf}) as one AVX-512 conversion with an embedded rounding mode per 16 lanes
 * ({@code widen.RoundedConversions}, knob {@code -Dpacketizer.roundedConversions}). Foreign code:
 * {@code beyond/rounded_conversions.c} compiled by the bundled clang with plain -O1/-O2 and
 * {@code -march=} the target (a checkerboard's cell, ceil, ties of rint and nearbyint, a floor also
 * used as a float, roundings under a divergent branch and in a loop with a varying trip count).
 * Differential at W=4, 8, 16 on x86-64-v2, haswell and znver4 and at W=32 on znver4 (two conversions
 * per rounding), unmasked and masked packet functions, each lane against the scalar function; with the
 * knob on (the default) and off on znver4.
 */
class RoundedConversionTest {

  static Stream<Arguments> cases() {
    List<Arguments> out = new ArrayList<>(PlainC.widthCpuOptCases().toList());
    out.add(Arguments.of(32, "znver4", "-O1"));
    out.add(Arguments.of(32, "znver4", "-O2"));
    return out.stream();
  }

  /** The functions and how many of their roundings are used only as i32 (each becomes one conversion per 16 lanes). */
  static final Map<String, Integer> CONVERSIONS = Map.of("checker_cell", 2, "ceil_int", 1, "rint_int", 1, "nearby_int", 2,
      "floor_twice", 0, "floor_branch", 2, "floor_loop", 1);

  @ParameterizedTest(name = "W={0} {1} {2}")
  @MethodSource("cases")
  void agreesWithScalar(int w, String cpu, String opt) {
    for (String knob : cpu.equals("znver4") ? new String[] {"true", "false"} : new String[] {"true"}) {
      Knobs.with("packetizer.roundedConversions", knob, () -> {
        try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = PlainC.compile(ctx, "rounded_conversions.c", opt, "-march=" + cpu)) {
          // (integral values now and then: x * 0.5 is then a tie of rint and nearbyint half the time; and 0, -0, +-1, the ends)
          ParamSpec x = ParamSpec.varying(ValueDomain.floats(-300, 300));
          ParamSpec small = ParamSpec.varying(ValueDomain.floats(-3, 3));
          long seed = 7L * w + (knob.equals("true") ? 0 : 500);
          TableLookupTest.check(m, "checker_cell", w, cpu, "vv", seed + 1, small, x);
          TableLookupTest.check(m, "ceil_int", w, cpu, "v", seed + 2, x);
          TableLookupTest.check(m, "rint_int", w, cpu, "v", seed + 3, x);
          TableLookupTest.check(m, "nearby_int", w, cpu, "v", seed + 4, x);
          TableLookupTest.check(m, "floor_twice", w, cpu, "v", seed + 5, x);
          TableLookupTest.check(m, "floor_branch", w, cpu, "vv", seed + 6, x, small);
          TableLookupTest.check(m, "floor_loop", w, cpu, "vv", seed + 7, small, ParamSpec.varying(ValueDomain.ints(0, 40)));
        }
      });
    }
  }

  private static String packetize(LlvmModule m, String fn, int w, String cpu) {
    return packetize(m, fn, w, cpu, "");
  }

  private static String packetize(LlvmModule m, String fn, int w, String cpu, String suffix) {
    String name = fn + "_" + cpu.replace('-', '_') + "_" + w + suffix;
    new Packetizer(PacketizerOptions.builder().width(w).params(fn.equals("checker_cell") || fn.equals("floor_branch") || fn.equals("floor_loop")
        ? "vv" : "v").targetCpu(cpu).build()).run(m, fn, name);
    return m.function(name).orElseThrow().print();
  }

  static final String CONVERSION = "@llvm.x86.avx512.mask.cvtps2dq.512(";

  /**
   * The structure: on znver4 at W16 one conversion per rounding used only as i32 (none for the floor
   * also used as a float), two at W32, and no {@code fptosi} of those roundings left; none at W8 (no
   * embedded rounding at 256 bits), on haswell (no AVX-512), or with the knob off; a function whose own attributes
   * are x86-64 under a znver4 option gets them too, its packet function carrying the option's CPU (before the nineteenth
   * round it kept x86-64, and the conversions were left out since a JIT compiles it by its attributes).
   */
  @Test
  void structure() {
    try (LlvmContext ctx = LlvmContext.create()) {
      for (String opt : List.of("-O1", "-O2")) {
        // (clang's own vectorizer and unroller off: at -O2 they copy floor_loop's rounding into vector and unrolled loops)
        try (LlvmModule m = PlainC.compile(ctx, "rounded_conversions.c", opt, "-march=znver4", "-fno-vectorize", "-fno-slp-vectorize",
            "-fno-unroll-loops")) {
          for (var e : CONVERSIONS.entrySet()) {
            String fn = e.getKey();
            int n = e.getValue();
            String w16 = packetize(m, fn, 16, "znver4");
            assertEquals(n, TableLookupTest.count(w16, "call <16 x i32> " + CONVERSION), fn + " " + opt + "\n" + w16);
            if (n > 0) assertFalse(w16.contains("fptosi <16 x float>"), fn + " " + opt + "\n" + w16);
            else assertTrue(w16.contains("fptosi <16 x float>"), fn + " " + opt + "\n" + w16);
            String w32 = packetize(m, fn, 32, "znver4");
            assertEquals(2 * n, TableLookupTest.count(w32, "call <16 x i32> " + CONVERSION), fn + " " + opt + "\n" + w32);
            assertEquals(0, TableLookupTest.count(packetize(m, fn, 8, "znver4"), CONVERSION), fn);
            Knobs.with("packetizer.roundedConversions", "false", () -> {
              String off = packetize(m, fn, 16, "znver4", "_off");
              assertEquals(0, TableLookupTest.count(off, CONVERSION), fn + " knob off\n" + off);
            });
          }
        }
        try (LlvmModule m = PlainC.compile(ctx, "rounded_conversions.c", opt, "-march=haswell")) {
          for (String fn : CONVERSIONS.keySet()) assertEquals(0, TableLookupTest.count(packetize(m, fn, 16, "haswell"), CONVERSION), fn);
        }
        // a generic function (clang's x86-64 attributes) under a znver4 option: the packet function is the option's
        // (RunTarget: it carries target-cpu znver4, so the conversions LLVM compiles for it are legal), the user's keeps
        // its own attributes; the same conversions as for a znver4 bitcode
        try (LlvmModule m = PlainC.compile(ctx, "rounded_conversions.c", opt, "-march=x86-64", "-fno-vectorize",
            "-fno-slp-vectorize", "-fno-unroll-loops")) {
          for (var e : CONVERSIONS.entrySet()) {
            String fn = e.getKey();
            String w16 = packetize(m, fn, 16, "znver4");
            assertEquals(e.getValue(), TableLookupTest.count(w16, "call <16 x i32> " + CONVERSION), fn + " " + opt + "\n" + w16);
            String name = fn + "_znver4_16";
            assertEquals("znver4", m.function(name).orElseThrow().stringAttribute("target-cpu").orElse(""), fn);
            assertEquals("x86-64", m.function(fn).orElseThrow().stringAttribute("target-cpu").orElse(""), fn);
          }
        }
      }
    }
  }
}
