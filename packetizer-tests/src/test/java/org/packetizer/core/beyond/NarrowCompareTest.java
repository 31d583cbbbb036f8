package org.packetizer.core.beyond;

import static org.junit.jupiter.api.Assertions.*;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.packetizer.core.Packetizer;
import org.packetizer.core.api.PacketizerOptions;
import org.packetizer.core.check.ParamSpec;
import org.packetizer.core.check.ParamSpec.Direction;
import org.packetizer.core.check.ValueDomain;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;

/**
 * 64-bit compares of a uniform value with the non-negative zero extension of a varying 32-bit value
 * ({@code beyond/narrow_compare.c}, plain {@code -O1}/{@code -O2}; issue 16, strhash's exit compare
 * {@code iv == zext(len)}) are done in 32 bits against the uniform value clamped to 2^31, on targets
 * without mask registers. Differential at W=4, 8, 16, unmasked and masked, on x86-64-v2, haswell and
 * znver4 (not narrowed there), with uniform values on both sides of 2^31 and 2^32 and varying ones up
 * to 2^31 - 1. Structure: on haswell a remark for each, and no {@code <8 x i64>} compare left where
 * every compare has the shape; on znver4 only a loop counter's compare ({@code hash_to}), carried as a
 * 32-bit vector counter (issue 16, eleventh round). {@code scan_from}: a counter from a uniform start
 * near 2^31 and 2^32, whose clamped vector counter is a select on the scalar counter.
 */
class NarrowCompareTest {
  @ParameterizedTest(name = "W={0} {1} {2}")
  @MethodSource("org.packetizer.core.beyond.LaneLoadsTest#cases")
  void agreesWithScalar(int w, String cpu, String opt) {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = PlainC.compile(ctx, "narrow_compare.c", opt)) {
      TableLookupTest.check(m, "cmp_wide", w, cpu, "uv", 10 + w, ParamSpec.uniform(ValueDomain.ints(-8, 40)),
          ParamSpec.varying(ValueDomain.ints(-4, 40)));
      TableLookupTest.check(m, "hash_to", w, cpu, "uv", 20 + w, ParamSpec.uniformPtr(ctx.i8(), 64, Direction.IN),
          ParamSpec.varying(ValueDomain.ints(-100, 100)));
      // a counter from a uniform start near 2^31 and 2^32 (the clamped vector counter's select, both arms)
      TableLookupTest.check(m, "scan_from", w, cpu, "uuv", 30 + w, ParamSpec.uniformPtr(ctx.i8(), 32, Direction.IN),
          ParamSpec.uniform(ValueDomain.ints(0, 7)), ParamSpec.varying(ValueDomain.ints(-2, 30)));
    }
  }

  /**
   * The clamped counter of {@code scan_from} (a uniform start) is a vector phi stepped by an add and a
   * select on the scalar counter's compare with 2^31 (CounterBroadcasts.scalarClamp), no vector umin;
   * with {@code -Dpacketizer.vectorCounters.clamp=vector} the umin stays.
   */
  @Test
  void clampedCounterIsASelectOnTheScalarCounter() {
    for (String opt : List.of("-O1", "-O2")) {
      for (String clamp : List.of("scalar", "vector")) {
        String before = System.getProperty("packetizer.vectorCounters.clamp");
        System.setProperty("packetizer.vectorCounters.clamp", clamp);
        try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = PlainC.compile(ctx, "narrow_compare.c", opt)) {
          new Packetizer(PacketizerOptions.builder().width(8).params("uuv").targetCpu("haswell").build()).run(m, "scan_from", "scan_h8");
          String ir = m.function("scan_h8").orElseThrow().print();
          boolean select = ir.matches("(?s).*= select i1 %[\\w.]+, <8 x i32> %[\\w.]+, <8 x i32> splat \\(i32 -2147483648\\).*");
          boolean umin = ir.contains("@llvm.umin.v8i32(");
          assertEquals(clamp.equals("scalar"), select, () -> clamp + " " + opt + " " + ir);
          assertEquals(clamp.equals("vector"), umin, () -> clamp + " " + opt + " " + ir);
        } finally {
          if (before == null) System.clearProperty("packetizer.vectorCounters.clamp");
          else System.setProperty("packetizer.vectorCounters.clamp", before);
        }
      }
    }
  }

  @Test
  void comparesAre32BitWithoutMaskRegisters() {
    for (String opt : List.of("-O1", "-O2")) {
      try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = PlainC.compile(ctx, "narrow_compare.c", opt)) {
        for (String fn : List.of("cmp_wide", "hash_to")) {
          var r = new Packetizer(PacketizerOptions.builder().width(8).params("uv").targetCpu("haswell").build()).run(m, fn, fn + "_h8");
          String ir = m.function(fn + "_h8").orElseThrow().print();
          // (hash_to at -O2: clang unrolls by 4; the unrolled loop compares against len & ~3 and the
          // remainder loop's counter starts where that one stopped, a varying value: neither has the shape)
          if (fn.equals("hash_to") && opt.equals("-O2")) continue;
          assertEquals(0, TableLookupTest.count(ir, "icmp eq <8 x i64>") + TableLookupTest.count(ir, "icmp ult <8 x i64>")
              + TableLookupTest.count(ir, "icmp ugt <8 x i64>"), () -> opt + " " + ir);
          assertTrue(r.remarks().stream().anyMatch(k -> k.message().startsWith("compare of 64-bit values done in 32 bits")),
              () -> opt + " " + r.remarks());
          // mask registers (znver4): the 64-bit compares of cmp_wide stay; hash_to's loop counter is
          // narrowed and carried as a 32-bit vector (ArithmeticWidener.narrowCounterCompares)
          var z = new Packetizer(PacketizerOptions.builder().width(8).params("uv").targetCpu("znver4").build()).run(m, fn, fn + "_z8");
          boolean counter = fn.equals("hash_to");
          assertEquals(counter, z.remarks().stream().anyMatch(k -> k.message().startsWith("compare of 64-bit values")), () -> z.remarks().toString());
          String zir = m.function(fn + "_z8").orElseThrow().print();
          assertEquals(counter ? 0 : 1, Math.min(1, TableLookupTest.count(zir, "icmp eq <8 x i64>") + TableLookupTest.count(zir, "icmp ult <8 x i64>")
              + TableLookupTest.count(zir, "icmp ugt <8 x i64>") + TableLookupTest.count(zir, "icmp ne <8 x i64>")), () -> zir);
          if (counter) assertTrue(zir.contains("icmp eq <8 x i32>"), () -> zir);
        }
      }
    }
  }
}
