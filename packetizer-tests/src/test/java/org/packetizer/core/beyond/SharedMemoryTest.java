package org.packetizer.core.beyond;

import static org.junit.jupiter.api.Assertions.*;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.packetizer.core.api.PacketizationResult;
import org.packetizer.core.Packetizer;
import org.packetizer.core.api.PacketizerOptions;
import org.packetizer.core.api.Remark;
import org.packetizer.core.check.CheckResult;
import org.packetizer.core.check.DifferentialCheck;
import org.packetizer.core.check.ParamSpec;
import org.packetizer.core.check.ParamSpec.Direction;
import org.packetizer.core.check.ValueDomain;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;

/**
 * Memory at uniform addresses shared by the lanes (issue 14 §2: stores by different lanes to one
 * location under divergent control flow; globals), on {@code beyond/shared.c} compiled with plain
 * {@code -O1}/{@code -O2}. The semantics are W calls in lane order: the globals (compared byte by
 * byte after the scalar runs and after the packet run, from the same initial contents), the uniform
 * buffer, and every lane's result must match, at W = 4, 8, 16, unmasked and masked. What cannot be
 * reproduced (a lane reading what lower lanes wrote) is reported as a cross-lane race.
 */
class SharedMemoryTest {
  static final int RUNS = 40;

  static PacketizationResult packetize(LlvmModule m, String fn, String simd, int w, String kinds, boolean masked) {
    return new Packetizer(PacketizerOptions.builder().width(w).params(kinds).masked(masked).verifyEachPhase(true).build())
        .run(m, fn, simd);
  }

  static void check(LlvmModule m, String fn, int w, String kinds, long seed, List<String> globals, ParamSpec... specs) {
    for (boolean masked : new boolean[] {false, true}) {
      String simd = fn + (masked ? "_m" : "_v") + w;
      PacketizationResult r = packetize(m, fn, simd, w, kinds, masked);
      assertTrue(r.remarks().stream().noneMatch(x -> x.kind() == Remark.Kind.CROSS_LANE_RACE), r::summary);
      List<ParamSpec> ps = new ArrayList<>(List.of(specs));
      if (masked) ps.add(ParamSpec.mask());
      var b = DifferentialCheck.builder(m, fn, simd, w).params(ps);
      for (String g : globals) b.global(g.split(":")[0], Integer.parseInt(g.split(":")[1]));
      try (DifferentialCheck c = b.build()) {
        CheckResult res = c.runMany(RUNS, seed + (masked ? 1000 : 0));
        assertTrue(res.passed(), () -> fn + " W=" + w + (masked ? " masked" : "") + ":\n" + res.report() + "\n"
            + m.function(simd).orElseThrow().print());
      }
    }
  }

  @ParameterizedTest(name = "W={0} {1}")
  @CsvSource({"4,-O2", "8,-O2", "16,-O2", "8,-O1"})
  void countersIncrementedByEachLane(int w, String opt) {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = IndirectCallTest.compilePlain(ctx, "shared.c", opt)) {
      check(m, "count", w, "v", 10 + w, List.of("counter:4"), ParamSpec.varying(ValueDomain.ints(-3, 8)));
      check(m, "count_loop", w, "v", 20 + w, List.of("wide_counter:8"), ParamSpec.varying(ValueDomain.ints(-2, 9)));
      check(m, "bits", w, "v", 30 + w, List.of("hist_or:4"), ParamSpec.varying(ValueDomain.ints(-40, 40)));
      check(m, "via_pointer", w, "uv", 40 + w, List.of(), ParamSpec.uniformPtr(ctx.i32(), 1, Direction.INOUT),
          ParamSpec.varying(ValueDomain.ints(-1000, 1000)));
    }
  }

  /** g += x in floating point: an ordered pass over the lanes, bit for bit (also clang's fmuladd contraction). */
  @ParameterizedTest(name = "W={0} {1}")
  @CsvSource({"4,-O2", "8,-O2", "16,-O2", "16,-O1"})
  void floatingPointAccumulationInLaneOrder(int w, String opt) {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = IndirectCallTest.compilePlain(ctx, "shared.c", opt)) {
      check(m, "accumulate", w, "v", 50 + w, List.of("facc:4"), ParamSpec.varying(ValueDomain.floats(-1e6, 1e6)));
      check(m, "accumulate_d", w, "v", 60 + w, List.of("dacc:8"), ParamSpec.varying(ValueDomain.floats(-1e9, 1e9)));
    }
  }

  /** Stores of different values by different lanes: the highest lane that writes has the last word. */
  @ParameterizedTest(name = "W={0} {1}")
  @CsvSource({"4,-O2", "8,-O2", "16,-O2", "4,-O1"})
  void highestWritingLaneWins(int w, String opt) {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = IndirectCallTest.compilePlain(ctx, "shared.c", opt)) {
      check(m, "set_last", w, "v", 70 + w, List.of("last_id:4"), ParamSpec.varying(ValueDomain.ints(-9, 9)));
      check(m, "set_two", w, "v", 80 + w, List.of("last_id:4"), ParamSpec.varying(ValueDomain.ints(-9, 9)));
      check(m, "set_paths", w, "vv", 85 + w, List.of("last_id:4"), ParamSpec.varyingPtr(ctx.i32(), 2, Direction.INOUT),
          ParamSpec.varying(ValueDomain.ints(-9, 9)));
    }
  }

  /** A global written and read back by the same lane. */
  @ParameterizedTest(name = "W={0} {1}")
  @CsvSource({"4,-O2", "8,-O2", "16,-O2", "8,-O1"})
  void globalWrittenAndReadBackByTheSameLane(int w, String opt) {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = IndirectCallTest.compilePlain(ctx, "shared.c", opt)) {
      check(m, "reread", w, "vv", 90 + w, List.of("scratch:4"), ParamSpec.varyingPtr(ctx.i32(), 2, Direction.INOUT),
          ParamSpec.varying(ValueDomain.ints(-9, 9)));
    }
  }

  /** A lane reading what a lower lane wrote cannot be reproduced: a remark names the race. */
  @ParameterizedTest(name = "W={0}")
  @CsvSource({"4", "8", "16"})
  void crossLaneReadIsReportedAsARace(int w) {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = IndirectCallTest.compilePlain(ctx, "shared.c", "-O2")) {
      PacketizationResult r = packetize(m, "ticket", "ticket_v" + w, w, "v", false);
      Remark race = r.remarks().stream().filter(x -> x.kind() == Remark.Kind.CROSS_LANE_RACE).findFirst()
          .orElseThrow(() -> new AssertionError(r.summary()));
      assertEquals("ticket", race.function());
      assertNotNull(race.block());
      assertTrue(race.instruction().contains("store i32") && race.instruction().contains("@counter"), race::toLine);
      assertTrue(race.message().contains("@counter") && race.message().contains("before the same lane writes it"), race::toLine);
    }
  }
}
