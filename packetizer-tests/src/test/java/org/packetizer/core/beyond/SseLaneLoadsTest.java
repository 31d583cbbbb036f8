package org.packetizer.core.beyond;

import static org.junit.jupiter.api.Assertions.*;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.packetizer.core.Packetizer;
import org.packetizer.core.api.PacketizerOptions;
import org.packetizer.core.check.ParamSpec;
import org.packetizer.core.check.ParamSpec.Direction;
import org.packetizer.core.check.ValueDomain;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;

/**
 * Per-lane loads on SSE4.1 without AVX as shifted 16-byte loads and blends (issue 16, twenty-second round; with
 * {@code -Dpacketizer.sseLaneLoads=shifted} only: timed slower than the inserts on this project's Intel host): at W4 on
 * x86-64-v2 (and nehalem), a lane's element as the 16 bytes from its address minus 4k behind {@code llvm.arithmetic.fence}
 * and an immediate blend, where the window lies inside the bytes every lane reads off the same root in the block. Kernels
 * of {@code beyond/lane_blends.c} by the bundled clang {@code -O1}/{@code -O2}: the 9-point stencil and ints two rows
 * apart; differential on every lane against the scalar function (buffers between guard pages; masked: inactive lanes'
 * indices 1-4 KB outside the buffer, where the route is not taken). {@link #structure}: the windows per load, the knob's
 * three settings, the size mode, AVX targets.
 */
class SseLaneLoadsTest {
  static final int GW = LaneBlendsTest.GW, N = LaneBlendsTest.N, M = LaneBlendsTest.M;

  @ParameterizedTest(name = "{0} {1}")
  @CsvSource({"x86-64-v2, -O1", "x86-64-v2, -O2", "nehalem, -O2"})
  void agreesWithScalar(String cpu, String opt) {
    Assumptions.assumeTrue(NarrowGathersTest.hostHas("sse4_2"), "SKIPPED (LOUD): the host cannot run " + cpu + " code");
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = PlainC.compile(ctx, "lane_blends.c", opt)) {
      ValueDomain ints = ValueDomain.ints(-100000, 100000);
      for (boolean masked : new boolean[] {false, true}) {
        List<String> remarks = new ArrayList<>();
        String g = shifted(() -> LaneBlendsTest.packetize(m, "grid9", "uvv", 4, cpu, masked, remarks));
        assertEquals(!masked, remarks.stream().anyMatch(x -> x.contains("lanes as shifted 16-byte loads and blends")), remarks::toString);
        NarrowGathersTest.checkLanes(m, "grid9", g, 4, masked, ParamSpec.uniformPtr(ctx.floatType(), N, Direction.IN),
            List.of(ParamSpec.varying(ints), ParamSpec.varying(ints)), new NarrowGathersTest.Points() {
              public long[][] packet(int p, int w2, SplittableRandom r) {
                return new long[][] {NarrowGathersTest.lanes(p, w2, r, 2, GW - 3), NarrowGathersTest.lanes(p / 2, w2, r, 2, GW - 3)};
              }

              public long[] wild(SplittableRandom r) {
                return new long[] {DynamicVariantsTest.wild(r, N, 4), r.nextLong(2, GW - 2)};
              }
            }, 50);
        remarks.clear();
        String t = shifted(() -> LaneBlendsTest.packetize(m, "taps_i", "uvv", 4, cpu, masked, remarks));
        assertEquals(!masked, remarks.stream().anyMatch(x -> x.contains("lanes as shifted 16-byte loads and blends")), remarks::toString);
        NarrowGathersTest.checkLanes(m, "taps_i", t, 4, masked, ParamSpec.uniformPtr(ctx.i32(), M, Direction.IN),
            List.of(ParamSpec.varying(ints), ParamSpec.varying(ints)), LaneBlendsTest.rows(2, 13, 4), 60);
      }
    }
  }

  /** {@code f} with {@code -Dpacketizer.sseLaneLoads=shifted} (the route is not the default: docs/performance.md). */
  static String shifted(java.util.function.Supplier<String> f) {
    String[] out = new String[1];
    Knobs.with("packetizer.sseLaneLoads", "shifted", () -> out[0] = f.get());
    return out[0];
  }

  static String run(LlvmModule m, String fn, String name, String cpu, String features, PacketizerOptions.Optimize opt, List<String> remarks) {
    PacketizerOptions.Builder ob = PacketizerOptions.builder().valueNames(true).width(4).params("uvv").targetCpu(cpu).remarks(x -> remarks.add(x.message()));
    if (features != null) ob.targetFeatures(features);
    if (opt != null) ob.optimize(opt);
    new Packetizer(ob.build()).run(m, fn, name);
    return m.function(name).orElseThrow().print();
  }

  /**
   * grid9 at W4 on x86-64-v2: the rows c[-GW], c[GW] and c[2] by three windows each, c[2GW] by one (lane 3's window ends
   * at the span's end), c[-2GW] by none (every window would start before the span): 10 fences on 16-byte loads, 5
   * inserts fewer than with the knob {@code insert}; taps_i's ints travel as floats and are cast back. The default
   * ({@code auto}) is the inserts; under {@code shifted} the size mode, an AVX target (haswell: broadcasts) and SSE2 alone
   * (x86-64: no blendps) take no windows, an AMD name without AVX (znver4 -avx) does.
   */
  @Test
  void structure() {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = PlainC.compile(ctx, "lane_blends.c", "-O2")) {
      List<String> remarks = new ArrayList<>();
      String g4 = shifted(() -> run(m, "grid9", "g4", "x86-64-v2", null, null, remarks));
      assertEquals(10, NarrowGathersTest.count(g4, "call <4 x float> @llvm.arithmetic.fence.v4f32(<4 x float>"), g4);
      assertTrue(remarks.stream().anyMatch(x -> x.contains("per-lane loads: 3 of 3 lanes as shifted 16-byte loads and blends, not inserts")
          && x.contains("the target (x86-64-v2) has SSE4.1 and no AVX")), remarks::toString);
      assertTrue(remarks.stream().anyMatch(x -> x.contains("per-lane loads: 1 of 3 lanes as shifted")), remarks::toString);
      String i4 = shifted(() -> run(m, "taps_i", "i4", "x86-64-v2", null, null, new ArrayList<>()));
      assertTrue(i4.contains("call <4 x float> @llvm.arithmetic.fence.v4f32") && i4.contains("bitcast <4 x float>") && i4.contains("to <4 x i32>"), i4);
      String[] out = new String[2];
      Knobs.with("packetizer.sseLaneLoads", "insert", () -> out[0] = run(m, "grid9", "f4", "x86-64-v2", null, null, new ArrayList<>()));
      String f4 = out[0];
      // (the default, auto, keeps the inserts: the same function as with insert)
      String a4 = run(m, "grid9", "a4", "x86-64-v2", null, null, new ArrayList<>());
      assertTrue(!a4.contains("arithmetic.fence"), a4);
      assertEquals(NarrowGathersTest.count(f4, "insertelement <4 x float> %"), NarrowGathersTest.count(a4, "insertelement <4 x float> %"), a4);
      assertTrue(!f4.contains("arithmetic.fence"), f4);
      // (10 of the 15 inserts of lanes 1-3 of the five single loads become windows; lane 0 of the three loads whose lanes
      // are all windows goes into the first window by an insert, where the inserts' lane 0 started from poison)
      assertEquals(NarrowGathersTest.count(f4, "insertelement <4 x float> %") - 7, NarrowGathersTest.count(g4, "insertelement <4 x float> %"), g4 + f4);
      String s4 = shifted(() -> run(m, "grid9", "s4", "x86-64-v2", null, PacketizerOptions.Optimize.SIZE, new ArrayList<>()));
      assertTrue(!s4.contains("arithmetic.fence"), s4);
      String h4 = shifted(() -> run(m, "grid9", "h4", "haswell", null, null, new ArrayList<>()));
      assertTrue(!h4.contains("@llvm.arithmetic.fence.v4f32(<4 x float> %") || h4.contains("lane.bcast"), h4);
      assertEquals(0, NarrowGathersTest.count(h4, "lane.window"), h4);
      String v1 = shifted(() -> run(m, "grid9", "v1", "x86-64", null, null, new ArrayList<>()));
      assertEquals(0, NarrowGathersTest.count(v1, "lane.window"), v1);
      String zs = shifted(() -> run(m, "grid9", "zs", "znver4", "-avx", null, new ArrayList<>()));
      assertEquals(10, NarrowGathersTest.count(zs, "= call <4 x float> @llvm.arithmetic.fence.v4f32"), zs);
    }
  }
}
