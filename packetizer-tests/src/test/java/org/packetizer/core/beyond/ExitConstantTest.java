package org.packetizer.core.beyond;

import static org.junit.jupiter.api.Assertions.*;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.packetizer.core.Packetizer;
import org.packetizer.core.api.PacketizerOptions;
import org.packetizer.core.api.Remark;
import org.packetizer.core.check.ParamSpec;
import org.packetizer.core.check.ValueDomain;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;

/**
 * A divergent loop's exit value that is a constant on some exiting edges ({@code return -1.0f} after a
 * miss, issue 16, eleventh round): the exit phi's variable starts with the constant on every entry into
 * the loop and those edges write nothing ({@code BlendGenerator.exitConstant}). Foreign C ({@code
 * beyond/exit_constants.c}, plain -O1 and -O2), differential at W=4, 8, 16 on x86-64-v2, haswell and
 * znver4, unmasked and masked: march's hit/miss loop with a uniform step limit (-1 .. 40), a search with
 * two different constants and a per-iteration value, the search nested in a loop with per-lane trip
 * counts (the constant must be back on every entry into the inner loop), and constants leaving from a
 * nested loop past both loops (a double, with -0.0). Structure: march's constant is a blend in the loop
 * with {@code -Dpacketizer.exitConstants=false} and none by default.
 */
class ExitConstantTest {
  @ParameterizedTest(name = "W={0} {1} {2}")
  @MethodSource("org.packetizer.core.beyond.PlainC#widthCpuOptCases")
  void agreesWithScalar(int w, String cpu, String opt) {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = PlainC.compile(ctx, "exit_constants.c", opt)) {
      ParamSpec big = ParamSpec.varying(ValueDomain.ints(-100000, 100000));
      TableLookupTest.check(m, "march_miss", w, cpu, "vvu", 10 + w,
          ParamSpec.varying(ValueDomain.floats(-4, 4)), ParamSpec.varying(ValueDomain.floats(-1, 1)),
          ParamSpec.uniform(ValueDomain.ints(-1, 40)));
      TableLookupTest.check(m, "search", w, cpu, "vv", 20 + w, big, big);
      TableLookupTest.check(m, "nested_search", w, cpu, "vv", 30 + w, big, big);
      TableLookupTest.check(m, "two_level", w, cpu, "vv", 40 + w,
          ParamSpec.varying(ValueDomain.floats(-3, 3)), ParamSpec.varying(ValueDomain.ints(0, 7)));
    }
  }

  @Test
  void theMissConstantIsNoBlendInTheLoop() {
    for (boolean on : new boolean[] {true, false}) {
      Knobs.with("packetizer.exitConstants", Boolean.toString(on), () -> {
        try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = PlainC.compile(ctx, "exit_constants.c", "-O2")) {
          new Packetizer(PacketizerOptions.builder().width(8).params("vvu").targetCpu("haswell").build())
              .run(m, "march_miss", "march_miss_s8");
          String ir = m.function("march_miss_s8").orElseThrow().print();
          long blends = ir.lines().filter(l -> l.contains(" select ") && l.contains("splat (float -1.000000e+00)")).count();
          assertEquals(on ? 0 : 1, blends, () -> "knob " + on + ":\n" + ir);
        }
      });
    }
  }

  /**
   * The uniform step limit is split off into a branch by default only where the leaving arm writes
   * nothing: march's -1.0 (an exit constant), not bounded_sum's or collatz_limited's value, which the
   * leaving lanes compute in their last iteration ({@code split_exit.c}).
   */
  @Test
  void theLimitIsSplitByDefaultOnlyWhereTheLeavingArmWritesNothing() {
    String split = "uniform part of a divergent loop's exit condition kept as a branch";
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule a = PlainC.compile(ctx, "exit_constants.c", "-O2");
        LlvmModule b = PlainC.compile(ctx, "split_exit.c", "-O2")) {
      record Case(LlvmModule m, String fn, String params, int splits) {}
      for (Case c : List.of(new Case(a, "march_miss", "vvu", 1), new Case(b, "march_limited", "vvu", 1),
          new Case(b, "bounded_sum", "vvu", 0), new Case(b, "collatz_limited", "vu", 0))) {
        List<Remark> remarks = new ArrayList<>();
        new Packetizer(PacketizerOptions.builder().width(8).params(c.params()).targetCpu("haswell").remarks(remarks::add).build())
            .run(c.m(), c.fn(), c.fn() + "_d8");
        String ir = c.m().function(c.fn() + "_d8").orElseThrow().print();
        assertEquals(c.splits(), (int) remarks.stream().filter(r -> r.message().startsWith(split)).count(), () -> c.fn() + ":\n" + ir);
      }
    }
  }
}
