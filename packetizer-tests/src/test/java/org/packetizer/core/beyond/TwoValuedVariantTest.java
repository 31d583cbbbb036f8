package org.packetizer.core.beyond;

import static org.junit.jupiter.api.Assertions.*;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.packetizer.core.Packetizer;
import org.packetizer.core.api.PacketizationResult;
import org.packetizer.core.api.PacketizerOptions;
import org.packetizer.core.check.DifferentialCheck;
import org.packetizer.core.check.ParamSpec;
import org.packetizer.core.check.ParamSpec.Direction;
import org.packetizer.core.check.ValueDomain;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;

/**
 * The dynamic variants' two-valued variant (issue 16, seventeenth round): where the all-equal and the
 * consecutive tests fail and every active lane's pointer is the first or the last active lane's (a
 * packet straddling two runs of a Z-ordered grid, two texels of a magnified texture), two scalar loads
 * per member and a blend. Kernels of {@code beyond/dynamic_variants.c} compiled by the bundled clang at
 * plain {@code -O1} / {@code -O2}, packetized with {@code -Dpacketizer.dynamicVariants.twoValued=true}
 * at W4/8/16 on SSE4.2, AVX2 and AVX-512, on both routes of the test: the narrow offsets
 * ({@code stencil_xy}: two 32-bit offsets; {@code stencil9} with {@code offsets=true}) and the 64-bit
 * pointers ({@code stencil9} with {@code offsets=false}; {@code fields}, an array of structs).
 *
 * <p>Differential on every lane against the scalar function, with lane patterns of exactly two points in
 * any positions (the first active lane's and the last's, a straddle in halves, one odd lane at either
 * end, two values whose last active lane holds the first one's: not the variant), one point, three
 * points (one odd lane in the middle, at random), and one point reached through different offsets;
 * masks with the first, the last or both ends inactive, one lane, none, random. Inactive lanes'
 * indices lie 1-4 KB outside their buffer, in the guard page behind it: the variant must load through
 * the first and last ACTIVE lanes only (and through none when no lane is active).
 */
class TwoValuedVariantTest {
  static final int GW = DynamicVariantsTest.GW, N = DynamicVariantsTest.N;

  static Stream<Arguments> cases() {
    return PlainC.widthCpuOptCases();
  }

  /** Masks: full, the first lane off, the last lane off, both ends off, only the middle two, one lane, none, random. */
  static boolean[] mask(int q, int w, SplittableRandom r) {
    boolean[] m = new boolean[w];
    switch (q % 8) {
      case 0 -> Arrays.fill(m, true);
      case 1 -> { Arrays.fill(m, true); m[0] = false; }
      case 2 -> { Arrays.fill(m, true); m[w - 1] = false; }
      case 3 -> { Arrays.fill(m, true); m[0] = false; m[w - 1] = false; }
      case 4 -> { m[w / 2 - 1] = true; m[w / 2] = true; }
      case 5 -> m[r.nextInt(w)] = true;
      case 6 -> { }
      default -> { for (int k = 0; k < w; k++) m[k] = r.nextBoolean(); }
    }
    return m;
  }

  /**
   * Which of the points 0 (A), 1 (B), 2 (C) each lane holds, pattern p, chosen over the active lanes
   * ({@code mk} null: all active); inactive lanes get -1 (the caller sends them into the guard page).
   */
  static int[] choice(int p, int w, SplittableRandom r, boolean[] mk) {
    int[] c = new int[w];
    List<Integer> act = new ArrayList<>();
    for (int k = 0; k < w; k++) {
      if (mk == null || mk[k]) act.add(k);
      else c[k] = -1;
    }
    if (act.isEmpty()) return c;
    int f = act.get(0), l = act.get(act.size() - 1);
    switch (p) {
      case 0 -> { for (int k : act) c[k] = r.nextInt(2); c[f] = 0; c[l] = 1; } // two points at random, the ends differ
      case 1 -> { for (int k : act) c[k] = act.indexOf(k) < act.size() / 2 ? 0 : 1; } // a straddle: halves
      case 2 -> c[l] = 1; // all A but the last active lane
      case 3 -> c[f] = 1; // all A but the first active lane
      case 4 -> { for (int k : act) c[k] = r.nextInt(2); c[f] = 0; c[l] = 0; if (act.size() > 2) c[act.get(1)] = 1; } // two points, the ends equal
      case 5 -> { } // one point
      case 6 -> { for (int k : act) c[k] = act.indexOf(k) < act.size() / 2 ? 0 : 1; if (act.size() > 2) c[act.get(act.size() / 2)] = 2; } // three: one odd lane
      default -> { for (int k : act) c[k] = r.nextInt(3); c[f] = 0; c[l] = 1; } // three at random
    }
    return c;
  }

  /**
   * Packetizes {@code fn} (index parameters {@code params - 1}, with and without a mask) under the knobs and runs it against
   * the scalar function: every pattern with every mask. {@code point} maps a point number (0, 1, 2 and, for {@code -1},
   * a wild one) to the lane's index arguments.
   */
  static void check(LlvmModule m, String fn, String kinds, int w, String cpu, String offsets, ParamSpec buffer, int nIdx,
      PointSource points, long seed) {
    for (boolean masked : new boolean[] {false, true}) {
      String simd = fn + "_" + cpu.replace('-', '_') + "_" + offsets + (masked ? "_m" : "_v") + w;
      Knobs.with("packetizer.dynamicVariants.twoValued", "true", () -> Knobs.with("packetizer.dynamicVariants.offsets", offsets,
          () -> new Packetizer(PacketizerOptions.builder().valueNames(true).width(w).params(kinds).masked(masked).targetCpu(cpu).verifyEachPhase(true)
              .build()).run(m, fn, simd)));
      String ir = m.function(simd).orElseThrow().print();
      // (the variant is there wherever the group pays for dynamic variants at all)
      assertEquals(ir.contains(".same:"), ir.contains(".two:"), simd);
      if (!fn.equals("fields")) assertTrue(ir.contains(".two:"), simd);
      List<ParamSpec> ps = new ArrayList<>(List.of(buffer));
      for (int i = 0; i < nIdx; i++) ps.add(ParamSpec.varying(ValueDomain.ints(-100000, 100000)));
      if (masked) ps.add(ParamSpec.mask());
      SplittableRandom r = new SplittableRandom(seed + (masked ? 1000 : 0));
      try (DifferentialCheck c = DifferentialCheck.builder(m, fn, simd, w).params(ps).build()) {
        int lanes = 0;
        for (int p = 0; p < 8; p++) {
          for (int q = 0; q < (masked ? 16 : 3); q++) {
            boolean[] mk = masked ? mask(q, w, r) : null;
            int[] ch = choice(p, w, r, mk);
            long[][] pts = points.three(r);
            Object[][] idx = new Object[nIdx][w];
            for (int k = 0; k < w; k++) {
              long[] a = ch[k] < 0 ? points.wild(r) : pts[ch[k]];
              for (int i = 0; i < nIdx; i++) idx[i][k] = a[i];
            }
            // (the same point through other offsets: in one B lane, where the kernel has two)
            if (nIdx == 2 && q % 3 == 2) {
              for (int k = 0; k < w; k++) {
                if (ch[k] == 1) {
                  idx[0][k] = pts[1][0] + GW;
                  idx[1][k] = pts[1][1] - 1;
                  break;
                }
              }
            }
            lanes += NarrowGathersTest.runPacket(c, m, simd, idx, mk, r);
          }
        }
        assertTrue(lanes > 0, simd);
      }
    }
  }

  /** Three distinct points (each as the kernel's index arguments) and a wild one in the guard page. */
  interface PointSource {
    long[][] three(SplittableRandom r);

    long[] wild(SplittableRandom r);
  }

  @ParameterizedTest(name = "W={0} {1} {2}")
  @MethodSource("cases")
  void agreesWithScalar(int w, String cpu, String opt) {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = PlainC.compile(ctx, "dynamic_variants.c", opt)) {
      ParamSpec grid = ParamSpec.uniformPtr(ctx.floatType(), N, Direction.IN);
      // stencil_xy: (x, y) inside the interior; the three points neighbours (a straddle of adjacent cells) or apart
      PointSource xy = new PointSource() {
        public long[][] three(SplittableRandom r) {
          long x = r.nextLong(3, GW - 4), y = r.nextLong(3, GW - 4);
          return r.nextBoolean() ? new long[][] {{x, y}, {x + 1, y}, {x, y + 1}}
              : new long[][] {{x, y}, {r.nextLong(2, GW - 2), r.nextLong(2, GW - 2)}, {x + 1, y + 1}};
        }

        public long[] wild(SplittableRandom r) {
          return new long[] {DynamicVariantsTest.wild(r, N, 4), r.nextLong(2, GW - 2)};
        }
      };
      check(m, "stencil_xy", "uvv", w, cpu, "true", grid, 2, xy, 60 + w);
      PointSource idx = new PointSource() {
        public long[][] three(SplittableRandom r) {
          long a = r.nextLong(DynamicVariantsTest.LO, DynamicVariantsTest.HI - 1);
          long b = r.nextBoolean() ? a + 1 : r.nextLong(DynamicVariantsTest.LO, DynamicVariantsTest.HI + 1);
          if (b == a) b = a + 1;
          long c = a + 2 == b ? a + 3 : a + 2;
          if (c > DynamicVariantsTest.HI) c = a - 1;
          return new long[][] {{a}, {b}, {c}};
        }

        public long[] wild(SplittableRandom r) {
          return new long[] {DynamicVariantsTest.wild(r, N, 4)};
        }
      };
      // stencil9 (g + i) on both routes: the offset i, and the 64-bit pointers
      check(m, "stencil9", "uv", w, cpu, "true", grid, 1, idx, 70 + w);
      check(m, "stencil9", "uv", w, cpu, "false", grid, 1, idx, 80 + w);
      // fields of an array of structs, on the pointers
      ParamSpec bodies = ParamSpec.uniformPtr(ctx.structType(List.of(ctx.doubleType(), ctx.doubleType(), ctx.doubleType(), ctx.floatType(),
          ctx.i32()), false), 32, Direction.IN);
      PointSource body = new PointSource() {
        public long[][] three(SplittableRandom r) {
          long a = r.nextLong(0, 30);
          return new long[][] {{a}, {a + 1}, {a == 0 ? 31 : a - 1}};
        }

        public long[] wild(SplittableRandom r) {
          return new long[] {DynamicVariantsTest.wild(r, 32, 32)};
        }
      };
      check(m, "fields", "uv", w, cpu, "false", bodies, 1, body, 90 + w);
    }
  }

  /**
   * The knob: {@code false} leaves the variant out; {@code auto} (the default) has it where the all-equal test is on narrow
   * offsets (AVX-512 by default: stencil_xy at W16 on znver4) and not where it compares the pointers (W8 on haswell); the
   * remark names it.
   */
  @Test
  void knob() {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = PlainC.compile(ctx, "dynamic_variants.c", "-O2")) {
      PacketizationResult[] res = new PacketizationResult[1];
      res[0] = new Packetizer(PacketizerOptions.builder().valueNames(true).width(16).params("uvv").targetCpu("znver4").build()).run(m, "stencil_xy", "a16");
      String a16 = m.function("a16").orElseThrow().print();
      assertTrue(a16.contains(".twotest:") && a16.contains(".two:"), a16);
      assertEquals(18, TableLookupTest.count(DynamicVariantsTest.block(a16, ".two:"), "load float"), a16);
      assertEquals(9, TableLookupTest.count(DynamicVariantsTest.block(a16, ".two:"), "select <16 x i1>"), a16);
      assertTrue(res[0].remarks().stream().anyMatch(k -> k.message().contains("two values (each active lane at the first or the last active lane's pointer) -> 18 scalar loads and 9 blends")),
          () -> res[0].remarks().toString());
      Knobs.with("packetizer.dynamicVariants.twoValued", "false", () -> res[0] = new Packetizer(
          PacketizerOptions.builder().valueNames(true).width(16).params("uvv").targetCpu("znver4").build()).run(m, "stencil_xy", "f16"));
      String f16 = m.function("f16").orElseThrow().print();
      assertTrue(f16.contains(".same:") && !f16.contains(".two"), f16);
      assertTrue(res[0].remarks().stream().noneMatch(k -> k.message().contains("two values")), () -> res[0].remarks().toString());
      new Packetizer(PacketizerOptions.builder().valueNames(true).width(8).params("uvv").targetCpu("haswell").build()).run(m, "stencil_xy", "a8");
      String a8 = m.function("a8").orElseThrow().print();
      assertTrue(a8.contains(".same:") && !a8.contains(".two"), a8);
    }
  }
}
