package org.packetizer.core.beyond;

import static org.junit.jupiter.api.Assertions.*;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
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
 * A divergent loop's exit test that joins a per-lane condition with a uniform step limit ({@code i <
 * limit && !done}, clang's {@code select c, u, false} / {@code select c, true, u} at the latch; issue
 * 16, march): the uniform part is a real branch and only the varying part goes into the lane masks
 * ({@code Linearizer.emitSplitLatchExit}). Foreign C ({@code beyond/split_exit.c}, plain -O1 and -O2),
 * differential at W=4, 8, 16 on x86-64-v2, haswell and znver4, unmasked and masked: per-lane trip counts
 * that hit and miss the limit, limits -1, 0, 1 and up to 40 (the domain's edges), the limit tested
 * first or second, a live value changing every iteration, and the limited loop nested in a divergent
 * loop. Structure: one split per limited latch with {@code -Dpacketizer.splitLatchExits=true}, none
 * without (the default: the split is opt-in, measured slower on march at W8 in the JIT).
 */
class SplitExitTest {
  @ParameterizedTest(name = "W={0} {1} {2}")
  @MethodSource("org.packetizer.core.beyond.PlainC#widthCpuOptCases")
  void agreesWithScalar(int w, String cpu, String opt) {
    // (the split is opt-in: see Linearizer.splitLatchExits)
    Knobs.with("packetizer.splitLatchExits", "true", () -> {
      try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = PlainC.compile(ctx, "split_exit.c", opt)) {
        ParamSpec limit = ParamSpec.uniform(ValueDomain.ints(-1, 40));
        ParamSpec small = ParamSpec.varying(ValueDomain.ints(-60, 60));
        ParamSpec big = ParamSpec.varying(ValueDomain.ints(-100000, 100000));
        TableLookupTest.check(m, "collatz_limited", w, cpu, "vu", 10 + w, small, limit);
        TableLookupTest.check(m, "march_limited", w, cpu, "vvu", 20 + w,
            ParamSpec.varying(ValueDomain.floats(-4, 4)), ParamSpec.varying(ValueDomain.floats(-1, 1)), limit);
        TableLookupTest.check(m, "bounded_sum", w, cpu, "vvu", 30 + w, big, big, limit);
        TableLookupTest.check(m, "nested_limited", w, cpu, "vvu", 40 + w, small, big, ParamSpec.uniform(ValueDomain.ints(-1, 12)));
      }
    });
  }

  private static final String SPLIT = "uniform part of a divergent loop's exit condition kept as a branch";

  /** Limited latches per function (nested_limited: the inner loop; its outer latch joins two varying tests). */
  private static final Map<String, String> PARAMS = Map.of(
      "collatz_limited", "vu", "march_limited", "vvu", "bounded_sum", "vvu", "nested_limited", "vvu");

  @Test
  void theUniformLimitIsABranch() {
    Map<String, Integer> expected = Map.of("collatz_limited", 1, "march_limited", 1, "bounded_sum", 1, "nested_limited", 1);
    // (exit constants off: march_limited's -1.0 is then a blend on the leave arm, which keeps that arm as
    // a block of its own; with them, the default, it is empty and folded: ExitConstantTest)
    for (boolean on : new boolean[] {true, false}) {
      Knobs.with("packetizer.exitConstants", "false", () -> Knobs.with("packetizer.splitLatchExits", Boolean.toString(on), () -> {
        try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = PlainC.compile(ctx, "split_exit.c", "-O2")) {
          for (var e : expected.entrySet()) {
            String fn = e.getKey();
            List<Remark> remarks = new ArrayList<>();
            new Packetizer(PacketizerOptions.builder().valueNames(true).width(8).params(PARAMS.get(fn)).targetCpu("haswell").remarks(remarks::add).build())
                .run(m, fn, fn + "_s8");
            String ir = m.function(fn + "_s8").orElseThrow().print();
            long splits = remarks.stream().filter(r -> r.message().startsWith(SPLIT)).count();
            String where = fn + " knob " + on + ":\n" + ir;
            assertEquals(on ? e.getValue() : 0, (int) splits, where);
            assertEquals(on, ir.contains(".leave:"), where);
            assertEquals(on, ir.contains(".stay:"), where);
          }
        }
      }));
    }
  }
}
