package org.packetizer.core.beyond;

import static org.junit.jupiter.api.Assertions.*;

import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.packetizer.core.Packetizer;
import org.packetizer.core.api.PacketizerOptions;
import org.packetizer.core.check.ParamSpec;
import org.packetizer.core.check.ParamSpec.Direction;
import org.packetizer.core.check.ValueDomain;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;

/**
 * Loads from varying addresses emitted as W scalar loads ({@code beyond/lane_loads.c}, plain
 * {@code -O1}/{@code -O2}): a varying root plus uniform offsets (neighbours of a per-lane grid point,
 * bytes of a per-lane string in a loop with per-lane trip counts, 16-bit loads through per-lane
 * pointers under divergent branches, a field of an array of structs). Differential at W=4, 8, 16,
 * unmasked and masked, on x86-64-v2 (SSE: no gather instruction), haswell (AVX2 without fast gathers)
 * and znver4 (fast gathers, scalar loads for 1- and 2-byte elements), every buffer between guard pages
 * (an inactive lane that read its own address would fault). Structure, on the packet IR: no gather,
 * one extraction of the root per lane shared by the nine neighbour loads, and under a partial mask
 * one select per lane to the private zero constant, and a row of neighbours {@code c[-2..1]} one
 * 16-byte load per lane and a transpose (before: a gather per load; a branchy gather expansion).
 */
class LaneLoadsTest {
  static Stream<Arguments> cases() {
    return PlainC.widthCpuOptCases();
  }

  @ParameterizedTest(name = "W={0} {1} {2}")
  @MethodSource("cases")
  void agreesWithScalar(int w, String cpu, String opt) {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = PlainC.compile(ctx, "lane_loads.c", opt)) {
      ParamSpec x = ParamSpec.varying(ValueDomain.ints(-1000, 1000));
      TableLookupTest.check(m, "neighbours", w, cpu, "uvv", 10 + w, ParamSpec.uniformPtr(ctx.floatType(), 16 * 16, Direction.IN), x, x);
      TableLookupTest.check(m, "bytes_loop", w, cpu, "uvv", 20 + w, ParamSpec.uniformPtr(ctx.i8(), 64, Direction.IN),
          ParamSpec.varying(ValueDomain.ints(0, 63)), ParamSpec.varying(ValueDomain.ints(0, 80)));
      TableLookupTest.check(m, "shorts_divergent", w, cpu, "vv", 30 + w, ParamSpec.varyingPtr(ctx.i16(), 32, Direction.IN),
          ParamSpec.varying(ValueDomain.ints(-40, 40)));
      TableLookupTest.check(m, "fields", w, cpu, "uv", 40 + w,
          ParamSpec.uniformPtr(ctx.structType(List.of(ctx.doubleType(), ctx.i32(), ctx.i16(), ctx.i8()), false), 32, Direction.IN), x);
      TableLookupTest.check(m, "stencil5", w, cpu, "uvv", 50 + w, ParamSpec.uniformPtr(ctx.floatType(), 16 * 16, Direction.IN), x, x);
      TableLookupTest.check(m, "row_store", w, cpu, "vv", 60 + w, ParamSpec.varyingPtr(ctx.i32(), 24, Direction.INOUT), x);
    }
  }

  /** The packet IR at W=8 on haswell (and stencil5 on SSE and znver4 too): no gather; the neighbours share one root extraction per lane; masked byte loads select. */
  @Test
  void structure() {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = PlainC.compile(ctx, "lane_loads.c", "-O2")) {
      var r = new Packetizer(PacketizerOptions.builder().width(8).params("uvv").targetCpu("haswell").build()).run(m, "neighbours", "nb8");
      String nb = m.function("nb8").orElseThrow().print();
      assertEquals(0, TableLookupTest.count(nb, "gather"), nb);
      assertEquals(8, TableLookupTest.count(nb, "extractelement <8 x ptr>"), nb);
      // (9 x 8 per lane, and the 9 scalar loads of the all-lanes-equal variant: DynamicVariantsTest)
      assertEquals(9 * 8 + 9, TableLookupTest.count(nb, "load float"), nb);
      assertTrue(r.remarks().stream().anyMatch(k -> k.message().contains("became 8 scalar loads at each lane's")), () -> r.remarks().toString());
      // (byte windows off: the subject is the per-lane loads; clang's remainder loop would get windows, ByteWindowTest)
      ByteWindowTest.withKnob("false", () -> new Packetizer(PacketizerOptions.builder().width(8).params("uvv").targetCpu("haswell").build()).run(m, "bytes_loop", "bl8"));
      String bl = m.function("bl8").orElseThrow().print();
      assertEquals(0, TableLookupTest.count(bl, "gather"), bl);
      // (clang -O2 unrolls the loop by 4: five loads of a byte per lane, each through a select)
      int loads = TableLookupTest.count(bl, "load i8");
      assertTrue(loads >= 8 && loads % 8 == 0, bl);
      assertEquals(loads, TableLookupTest.count(bl, "ptr @__packetizer.inactive.lane"), bl);
      // a row of five neighbours: one 16-byte load per lane for c[-2..1] and a transpose, c[2] and the column per lane
      // (and on znver4, fast gathers, at W8 and W16: the addresses are a vector of 64-bit pointers, not a
      // uniform base plus 32-bit offsets, so they are not gathers there either; issue 16, stencil W16 0.73x)
      for (String wc : List.of("4 x86-64-v2", "8 haswell", "8 znver4", "16 znver4")) {
        int w = Integer.parseInt(wc.split(" ")[0]);
        String cpu = wc.split(" ")[1];
        String name = "s5_" + w + "_" + cpu.replace('-', '_');
        var s5r = new Packetizer(PacketizerOptions.builder().width(w).params("uvv").targetCpu(cpu).build()).run(m, "stencil5", name);
        String s5 = m.function(name).orElseThrow().print();
        assertEquals(0, TableLookupTest.count(s5, "gather"), s5);
        assertEquals(w, TableLookupTest.count(s5, "load <4 x float>"), s5);
        // (plus, where the 7 loads pay for dynamic variants' test, the all-equal variant's 7 scalar loads, and on
        // AVX-512, whose all-equal test is on the narrow offsets, the two-valued variant's 2 x 7: TwoValuedVariantTest)
        assertEquals(3 * w + (w == 4 ? 0 : 7) + (cpu.equals("znver4") ? 14 : 0), TableLookupTest.count(s5, "load float"), s5);
        if (cpu.equals("znver4")) {
          assertTrue(s5r.remarks().stream().anyMatch(k -> k.message().contains("a vector of 64-bit pointers, not a uniform base plus 32-bit offsets")),
              () -> s5r.remarks().toString());
        }
      }
    }
  }
}
