package org.packetizer.core.beyond;

import static org.junit.jupiter.api.Assertions.*;

import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
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
 * Per-lane loads under a divergent loop's partial mask with a second copy for an all-active mask
 * ({@code MemoryWidener.allActiveFastPath}, knob {@code -Dpacketizer.allActiveLaneLoads=true}, off by
 * default: issue 16, strhash; faster with coherent inputs, slower with random ones). The knob is turned
 * on for this class. Foreign code: {@code beyond/mask_bits.c} compiled by the bundled clang with plain
 * -O1/-O2 (clang -O2 unrolls the byte loops, so several per-lane loads share a block). Differential at
 * W=4, 8, 16, unmasked and masked (a caller's mask: the loop's mask is then partial from its first
 * iteration), on x86-64-v2, haswell and znver4, every buffer between guard pages: lanes of length 0,
 * lanes leaving at every iteration, a store in the loop, nested loops with a branch.
 */
class AllActiveLaneLoadsTest {
  private static String before;

  @BeforeAll
  static void on() {
    before = System.getProperty("packetizer.allActiveLaneLoads");
    System.setProperty("packetizer.allActiveLaneLoads", "true");
  }

  @AfterAll
  static void restore() {
    if (before == null) System.clearProperty("packetizer.allActiveLaneLoads");
    else System.setProperty("packetizer.allActiveLaneLoads", before);
  }

  @ParameterizedTest(name = "W={0} {1} {2}")
  @MethodSource("org.packetizer.core.beyond.LaneLoadsTest#cases")
  void agreesWithScalar(int w, String cpu, String opt) {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = PlainC.compile(ctx, "mask_bits.c", opt)) {
      TableLookupTest.check(m, "fnv_bytes", w, cpu, "uvv", 110 + w, ParamSpec.uniformPtr(ctx.i8(), 128, Direction.IN),
          ParamSpec.varying(ValueDomain.ints(0, 63)), ParamSpec.varying(ValueDomain.ints(-2, 64)));
      TableLookupTest.check(m, "run_length", w, cpu, "uvv", 120 + w, ParamSpec.uniformPtr(ctx.i8(), 96, Direction.IN),
          ParamSpec.varying(ValueDomain.ints(0, 63)), ParamSpec.varying(ValueDomain.ints(0, 32)));
      TableLookupTest.check(m, "nested_rows", w, cpu, "uvv", 130 + w, ParamSpec.uniformPtr(ctx.i16(), 64, Direction.IN),
          ParamSpec.varying(ValueDomain.ints(-1, 8)), ParamSpec.varying(ValueDomain.ints(-1, 8)));
      TableLookupTest.check(m, "copy_bumped", w, cpu, "uuvv", 140 + w, ParamSpec.uniformPtr(ctx.i8(), 128, Direction.IN),
          ParamSpec.uniformPtr(ctx.i8(), 128, Direction.INOUT), ParamSpec.varying(ValueDomain.ints(0, 63)), ParamSpec.varying(ValueDomain.ints(0, 64)));
    }
  }

  /**
   * The structure: a test of the mask's bits against all ones, a block whose W loads read the lanes'
   * addresses directly (no select of the dummy slot), a block whose loads go through the selects, and
   * a phi of the two packets. W4 on x86-64-v2 and W8 on haswell, clang -O1 (one byte per iteration).
   */
  @Test
  void allActiveCopyHasNoSelects() {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = PlainC.compile(ctx, "mask_bits.c", "-O1")) {
      for (String wc : List.of("4 x86-64-v2", "8 haswell")) {
        int w = Integer.parseInt(wc.split(" ")[0]);
        String cpu = wc.split(" ")[1];
        String name = "fnv_all_" + w;
        new Packetizer(PacketizerOptions.builder().valueNames(true).width(w).params("uvv").targetCpu(cpu).build()).run(m, "fnv_bytes", name);
        String f = m.function(name).orElseThrow().print();
        int at = f.indexOf(".all:");
        assertTrue(at > 0, f);
        String all = f.substring(at, f.indexOf("\n\n", at));
        assertEquals(w, TableLookupTest.count(all, "load i8, ptr"), f);
        assertEquals(0, TableLookupTest.count(all, "select"), f);
        int so = f.indexOf(".some:");
        assertTrue(so > 0, f);
        String some = f.substring(so, f.indexOf("\n\n", so));
        assertEquals(w, TableLookupTest.count(some, "ptr @__packetizer.inactive.lane"), f);
        assertTrue(java.util.regex.Pattern.compile("icmp eq i" + w + " %[\\w.]+, -1").matcher(f).find(), f);
        assertTrue(f.contains(" = phi <" + w + " x i8> "), f);
      }
    }
  }
}
