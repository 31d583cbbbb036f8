package org.packetizer.core.beyond;

import static org.junit.jupiter.api.Assertions.*;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
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
 * Per-lane loads as broadcasts from memory and blends (issue 16, twentieth round): on Intel cores with AVX the W loads
 * of a per-lane group become, per lane, a splat of the loaded element behind {@code llvm.arithmetic.fence} and an
 * immediate blend ({@code vbroadcastss/sd} + {@code vblendps/pd}, no shuffle-port insert), instead of inserts. Kernels of
 * {@code beyond/lane_blends.c} (a 9-point stencil: windows plus five single loads per lane; ints, doubles and 64-bit ints
 * two rows of 32 apart, too far for a window) compiled by the bundled clang at {@code -O1} / {@code -O2}, at W4/W8 on haswell
 * and x86-64-v3 (the new form), x86-64-v2 (no AVX: inserts) and znver4 (AMD: inserts), unmasked and masked.
 *
 * <p>Differential on every lane against the scalar function: random points, all lanes at one point, consecutive points,
 * the ends; masked: inactive lanes' indices 1-4 KB outside the buffer, in the guard page behind it. Every buffer lies
 * between guard pages. {@link #structure} fails with {@code -Dpacketizer.laneBlends=false}.
 */
class LaneBlendsTest {
  static final int GW = 24, N = GW * GW, RW = 32, M = 16 * RW;

  static Stream<Arguments> cases() {
    List<Arguments> out = new ArrayList<>();
    for (int w : new int[] {4, 8}) for (String cpu : new String[] {"haswell", "x86-64-v3", "x86-64-v2", "znver4"}) for (String o : new String[] {"-O1", "-O2"}) {
      out.add(Arguments.of(w, cpu, o));
    }
    return out.stream();
  }

  static boolean expectBlends(String cpu) {
    return cpu.equals("haswell") || cpu.equals("x86-64-v3");
  }

  static String packetize(LlvmModule m, String fn, String kinds, int w, String cpu, boolean masked, List<String> remarks) {
    String simd = fn + "_" + cpu.replace('-', '_') + (masked ? "_m" : "_v") + w;
    new Packetizer(PacketizerOptions.builder().valueNames(true).width(w).params(kinds).masked(masked).targetCpu(cpu).verifyEachPhase(true)
        .remarks(x -> remarks.add(x.message())).build()).run(m, fn, simd);
    return simd;
  }

  static void check(LlvmModule m, String fn, String kinds, int w, String cpu, ParamSpec buffer, List<ParamSpec> idxSpecs,
      NarrowGathersTest.Points pts, long seed) {
    for (boolean masked : new boolean[] {false, true}) {
      List<String> remarks = new ArrayList<>();
      String simd = packetize(m, fn, kinds, w, cpu, masked, remarks);
      String ir = m.function(simd).orElseThrow().print();
      boolean blends = remarks.stream().anyMatch(x -> x.contains("broadcasts from memory and") && x.contains("blends, not inserts"));
      assertEquals(expectBlends(cpu), blends, () -> simd + ": " + remarks + "\n" + ir);
      assertEquals(expectBlends(cpu), ir.contains("@llvm.arithmetic.fence"), () -> simd + "\n" + ir);
      NarrowGathersTest.checkLanes(m, fn, simd, w, masked, buffer, idxSpecs, pts, seed);
    }
  }

  /** (x, y) per lane, x in [0, RW-1], y in [ylo, yhi]; an inactive lane's x reaches 1-4 KB outside the buffer of M elements. */
  static NarrowGathersTest.Points rows(long ylo, long yhi, int elemBytes) {
    return new NarrowGathersTest.Points() {
      public long[][] packet(int p, int w, SplittableRandom r) {
        return new long[][] {NarrowGathersTest.lanes(p, w, r, 0, RW - 1), NarrowGathersTest.lanes(p / 2, w, r, ylo, yhi)};
      }

      public long[] wild(SplittableRandom r) {
        return new long[] {DynamicVariantsTest.wild(r, M, elemBytes), 0};
      }
    };
  }

  @ParameterizedTest(name = "W={0} {1} {2}")
  @MethodSource("cases")
  void agreesWithScalar(int w, String cpu, String opt) {
    Assumptions.assumeTrue(NarrowGathersTest.hostHas(cpu.equals("x86-64-v2") ? "sse4_2" : "avx2"), "SKIPPED (LOUD): the host cannot run " + cpu + " code");
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = PlainC.compile(ctx, "lane_blends.c", opt)) {
      ValueDomain ints = ValueDomain.ints(-100000, 100000);
      check(m, "grid9", "uvv", w, cpu, ParamSpec.uniformPtr(ctx.floatType(), N, Direction.IN),
          List.of(ParamSpec.varying(ints), ParamSpec.varying(ints)), new NarrowGathersTest.Points() {
            public long[][] packet(int p, int w2, SplittableRandom r) {
              return new long[][] {NarrowGathersTest.lanes(p, w2, r, 2, GW - 3), NarrowGathersTest.lanes(p / 2, w2, r, 2, GW - 3)};
            }

            public long[] wild(SplittableRandom r) {
              return new long[] {DynamicVariantsTest.wild(r, N, 4), r.nextLong(2, GW - 2)};
            }
          }, 10 + w);
      // taps_*: rows of 32, 16 rows; x in [0, 31], y two rows from either end (taps_l: from the last two)
      check(m, "taps_i", "uvv", w, cpu, ParamSpec.uniformPtr(ctx.i32(), M, Direction.IN), List.of(ParamSpec.varying(ints), ParamSpec.varying(ints)),
          rows(2, 13, 4), 20 + w);
      check(m, "taps_d", "uvv", w, cpu, ParamSpec.uniformPtr(ctx.doubleType(), M, Direction.IN), List.of(ParamSpec.varying(ints), ParamSpec.varying(ints)),
          rows(2, 13, 8), 30 + w);
      check(m, "taps_l", "uvv", w, cpu, ParamSpec.uniformPtr(ctx.i64(), M, Direction.IN), List.of(ParamSpec.varying(ints), ParamSpec.varying(ints)),
          rows(0, 13, 8), 40 + w);
    }
  }

  /**
   * The form in the IR: grid9 at W8 on haswell has five single loads per lane as splats behind the fence and blends (40
   * fences, no insertelement into a packet), the windows as before; taps_i's ints travel as floats and the packet is
   * cast back; x86-64-v2, znver4, the size mode and the knob {@code false} keep the inserts; the knob {@code true} takes znver4 too. The
   * remark names the decision.
   */
  @Test
  void structure() {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = PlainC.compile(ctx, "lane_blends.c", "-O2")) {
      List<String> remarks = new ArrayList<>();
      new Packetizer(PacketizerOptions.builder().valueNames(true).width(8).params("uvv").targetCpu("haswell").remarks(x -> remarks.add(x.message()))
          .build()).run(m, "grid9", "g8");
      String g8 = m.function("g8").orElseThrow().print();
      assertEquals(40, NarrowGathersTest.count(g8, "call <8 x float> @llvm.arithmetic.fence.v8f32"), g8);
      assertEquals(0, NarrowGathersTest.count(g8, "insertelement <8 x float> %"), g8);
      assertTrue(g8.contains("load <4 x float>"), g8);
      assertTrue(remarks.stream().anyMatch(x -> x.contains("per-lane loads: 8 broadcasts from memory and 7 blends, not inserts")
          && x.contains("the target (haswell) is an Intel core, where every insert takes the one shuffle port")), remarks::toString);
      new Packetizer(PacketizerOptions.builder().valueNames(true).width(8).params("uvv").targetCpu("haswell").build()).run(m, "taps_i", "i8");
      String i8 = m.function("i8").orElseThrow().print();
      assertEquals(24, NarrowGathersTest.count(i8, "call <8 x float> @llvm.arithmetic.fence.v8f32"), i8);
      assertTrue(i8.contains("bitcast <8 x float>") && i8.contains("to <8 x i32>"), i8);
      for (String cpu : new String[] {"x86-64-v2", "znver4"}) {
        new Packetizer(PacketizerOptions.builder().valueNames(true).width(8).params("uvv").targetCpu(cpu).build()).run(m, "grid9", "o8" + cpu.replace('-', '_'));
        String o8 = m.function("o8" + cpu.replace('-', '_')).orElseThrow().print();
        assertTrue(!o8.contains("arithmetic.fence") && o8.contains("insertelement <8 x float> %"), o8);
      }
      Knobs.with("packetizer.laneBlends", "false", () -> new Packetizer(PacketizerOptions.builder().valueNames(true).width(8).params("uvv")
          .targetCpu("haswell").build()).run(m, "grid9", "f8"));
      String f8 = m.function("f8").orElseThrow().print();
      assertTrue(!f8.contains("arithmetic.fence") && f8.contains("insertelement <8 x float> %"), f8);
      new Packetizer(PacketizerOptions.builder().valueNames(true).width(8).params("uvv").targetCpu("haswell")
          .optimize(PacketizerOptions.Optimize.SIZE).build()).run(m, "grid9", "s8");
      String s8 = m.function("s8").orElseThrow().print();
      assertTrue(!s8.contains("arithmetic.fence"), s8);
      Knobs.with("packetizer.laneBlends", "true", () -> new Packetizer(PacketizerOptions.builder().valueNames(true).width(8).params("uvv")
          .targetCpu("znver4").build()).run(m, "grid9", "t8"));
      String t8 = m.function("t8").orElseThrow().print();
      assertEquals(40, NarrowGathersTest.count(t8, "call <8 x float> @llvm.arithmetic.fence.v8f32"), t8);
    }
  }
}
