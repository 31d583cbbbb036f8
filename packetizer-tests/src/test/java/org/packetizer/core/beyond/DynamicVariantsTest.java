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
import org.packetizer.core.check.CheckResult;
import org.packetizer.core.check.DifferentialCheck;
import org.packetizer.core.check.Inputs;
import org.packetizer.core.check.ParamSpec;
import org.packetizer.core.check.ParamSpec.Direction;
import org.packetizer.core.check.ValueDomain;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;

/**
 * Dynamic variants (issue 16): a group of loads at constant offsets from one varying pointer gets one
 * run-time test of the pointer's lanes ({@code beyond/dynamic_variants.c}, plain clang {@code -O1} /
 * {@code -O2}: a nine-point stencil, the same under a divergent branch, a field group of an array of
 * structs with mixed element sizes, a row of ints in a loop with per-lane trip counts).
 *
 * <p>Differential at W=4, 8, 16 on x86-64-v2 (SSE4.2), haswell (AVX2) and znver4 (AVX-512), with the
 * lanes' indices chosen to take every variant: all equal, consecutive (also at both ends of the
 * grid), consecutive but one lane off, descending, random; with a mask parameter (and under the
 * guarded stencil's branch) the inactive lanes' indices lie 1-4 KB outside their buffer, in the guard
 * page behind it: the all-equal variant must load at the first ACTIVE lane's pointer (a test that
 * used lane 0 faults and ends the run), must not load when no lane is active, and the consecutive one
 * must be a masked load. Every buffer lies between guard pages.
 *
 * <p>{@link #structure} fails with {@code -Dpacketizer.dynamicVariants=false}: the packet IR has the
 * three variants, the all-equal one with nine scalar loads, the consecutive one with nine vector
 * loads (masked under a partial mask), and the remark names the function, block and decision.
 */
class DynamicVariantsTest {
  static final int GW = 16, N = 16 * 16;
  static final int LO = 2 * GW + 2, HI = N - 2 * GW - 3;

  static Stream<Arguments> cases() {
    return PlainC.widthCpuOptCases();
  }

  /** An index 1-4 KB (in {@code elemBytes}-byte elements) past either end of a buffer of {@code count} elements: in a guard page. */
  static long wild(SplittableRandom r, int count, int elemBytes) {
    long off = (1200 + r.nextInt(2400)) / elemBytes;
    return r.nextBoolean() ? count + off : -1 - off;
  }

  /**
   * Lane indices into [lo, hi] of one of the shapes the run-time test tells apart (pattern p), and,
   * with a mask, the mask; inactive lanes get wild indices.
   */
  static Object[] lanes(int p, int w, SplittableRandom r, long lo, long hi, boolean[] mask, int count, int elemBytes) {
    long[] v = new long[w];
    switch (p % 7) {
      case 0 -> Arrays.fill(v, r.nextLong(lo, hi + 1)); // all equal
      case 1 -> { long a = r.nextLong(lo, hi - w + 2); for (int k = 0; k < w; k++) v[k] = a + k; } // consecutive
      case 2 -> { for (int k = 0; k < w; k++) v[k] = lo + k; } // consecutive from the lowest index
      case 3 -> { for (int k = 0; k < w; k++) v[k] = hi - w + 1 + k; } // consecutive up to the highest
      case 4 -> { long a = r.nextLong(lo, hi - w + 2); for (int k = 0; k < w; k++) v[k] = a + k; v[r.nextInt(w)] = a + w / 2; } // one lane off
      case 5 -> { long a = r.nextLong(lo + w, hi + 1); for (int k = 0; k < w; k++) v[k] = a - k; } // descending
      default -> { for (int k = 0; k < w; k++) v[k] = r.nextLong(lo, hi + 1); } // random
    }
    Object[] out = new Object[w];
    // (the inactive lanes all at one wild index half of the time: all lanes equal when none is active)
    long oneWild = wild(r, count, elemBytes);
    for (int k = 0; k < w; k++) out[k] = mask == null || mask[k] ? v[k] : r.nextBoolean() ? oneWild : wild(r, count, elemBytes);
    return out;
  }

  /** Masks: full, lane 0 off, only the upper half, one lane, none, random. */
  static boolean[] mask(int p, int w, SplittableRandom r) {
    boolean[] m = new boolean[w];
    switch (p % 6) {
      case 0 -> Arrays.fill(m, true);
      case 1 -> { Arrays.fill(m, true); m[0] = false; }
      case 2 -> { for (int k = w / 2; k < w; k++) m[k] = true; }
      case 3 -> m[r.nextInt(w)] = true;
      case 4 -> { }
      default -> { for (int k = 0; k < w; k++) m[k] = r.nextBoolean(); }
    }
    return m;
  }

  /**
   * Packetizes fn (with and without a mask parameter) and runs it against the scalar function on
   * 84 inputs: every lane pattern with every mask pattern (the varying index is the last parameter
   * but for window_loop, whose trip count follows).
   */
  static void check(LlvmModule m, String fn, int w, String cpu, String kinds, ParamSpec buffer, int count, int elemBytes, long lo, long hi,
      long seed) {
    check(m, fn, w, cpu, kinds, buffer, count, elemBytes, lo, hi, seed, PacketizerOptions.Optimize.SPEED);
  }

  /** {@link #check} with the packet function optimized for {@code optimize} (OptimizeForSizeTest: SIZE). */
  static void check(LlvmModule m, String fn, int w, String cpu, String kinds, ParamSpec buffer, int count, int elemBytes, long lo, long hi,
      long seed, PacketizerOptions.Optimize optimize) {
    for (boolean masked : new boolean[] {false, true}) {
      String simd = fn + "_" + cpu.replace('-', '_') + (masked ? "_m" : "_v") + w;
      new Packetizer(PacketizerOptions.builder().valueNames(true).width(w).params(kinds).masked(masked).targetCpu(cpu).verifyEachPhase(true).optimize(optimize)
          .build()).run(m, fn, simd);
      List<ParamSpec> ps = new ArrayList<>(List.of(buffer, ParamSpec.varying(ValueDomain.ints(-100000, 100000))));
      boolean loop = fn.equals("window_loop");
      if (loop) ps.add(ParamSpec.varying(ValueDomain.ints(0, 7)));
      if (masked) ps.add(ParamSpec.mask());
      SplittableRandom r = new SplittableRandom(seed + (masked ? 1000 : 0));
      try (DifferentialCheck c = DifferentialCheck.builder(m, fn, simd, w).params(ps).build()) {
        int lanes = 0;
        for (int p = 0; p < 7; p++) {
          for (int q = 0; q < (masked ? 12 : 2); q++) {
            boolean[] mk = masked ? mask(q, w, r) : null;
            List<Object> args = new ArrayList<>();
            args.add(null);
            // (the guarded stencil's own branch: some lanes outside the interior, wild ones included)
            Object[] idx = lanes(p, w, r, lo, hi, mk, count, elemBytes);
            if (fn.equals("stencil9_guarded") && q % 2 == 1) idx[r.nextInt(w)] = wild(r, count, elemBytes);
            if (fn.equals("stencil9_guarded") && q % 2 == 1) idx[0] = wild(r, count, elemBytes);
            // (no lane inside: every lane at the same index in the guard page)
            if (fn.equals("stencil9_guarded") && q == 0 && p % 2 == 0) Arrays.fill(idx, wild(r, count, elemBytes));
            args.add(idx);
            if (loop) {
              Object[] n = new Object[w];
              for (int k = 0; k < w; k++) n[k] = (long) r.nextInt(8);
              // lanes with wild indices run no iteration
              for (int k = 0; k < w; k++) if (mk != null && !mk[k]) n[k] = 0L;
              args.add(n);
            }
            if (masked) args.add(mk);
            CheckResult res = c.run(new Inputs(args, r.nextLong()));
            assertTrue(res.passed(), () -> simd + " " + Arrays.toString(idx) + ":\n" + res.report() + "\n" + m.function(simd).orElseThrow().print());
            lanes += res.lanesCompared();
          }
        }
        assertTrue(lanes > 0, simd);
      }
    }
  }

  @ParameterizedTest(name = "W={0} {1} {2}")
  @MethodSource("cases")
  void agreesWithScalar(int w, String cpu, String opt) {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = PlainC.compile(ctx, "dynamic_variants.c", opt)) {
      ParamSpec grid = ParamSpec.uniformPtr(ctx.floatType(), N, Direction.IN);
      check(m, "stencil9", w, cpu, "uv", grid, N, 4, LO, HI, 10 + w);
      check(m, "stencil9_guarded", w, cpu, "uv", grid, N, 4, LO, HI, 20 + w);
      ParamSpec bodies = ParamSpec.uniformPtr(ctx.structType(List.of(ctx.doubleType(), ctx.doubleType(), ctx.doubleType(), ctx.floatType(), ctx.i32()), false),
          32, Direction.IN);
      check(m, "fields", w, cpu, "uv", bodies, 32, 32, 0, 31, 30 + w);
      check(m, "window_loop", w, cpu, "uvv", ParamSpec.uniformPtr(ctx.i32(), 64, Direction.IN), 64, 4, 0, 64 - 32, 40 + w);
    }
  }

  /**
   * Two varying offsets from a uniform base ({@code stencil_xy}: {@code g + y*16 + x}; {@code taps_ush}:
   * {@code g + (unsigned) i + (short) d}), where the all-equal test compares the offsets' lanes: lane
   * patterns where one offset is equal in all lanes and the other is not (in one lane only), where
   * both are, consecutive columns, and lanes that hold the same pointer through different offsets
   * ({@code (x + 16, y - 1)}: not all-equal offsets, the per-lane path); with a mask, the inactive
   * lanes' offsets lie 1-4 KB outside the grid, in the guard page. Packetized with
   * {@code -Dpacketizer.dynamicVariants.offsets=true}, so that SSE and AVX2 take the offsets' test too.
   */
  @ParameterizedTest(name = "W={0} {1} {2}")
  @MethodSource("cases")
  void narrowOffsetsAgreeWithScalar(int w, String cpu, String opt) {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = PlainC.compile(ctx, "dynamic_variants.c", opt)) {
      ParamSpec grid = ParamSpec.uniformPtr(ctx.floatType(), N, Direction.IN);
      for (String fn : List.of("stencil_xy", "taps_ush")) {
        for (boolean masked : new boolean[] {false, true}) {
          String simd = fn + "_" + cpu.replace('-', '_') + (masked ? "_m" : "_v") + w;
          // (the offsets' test on every target, not only AVX-512's: the knob's default is auto)
          Knobs.with("packetizer.dynamicVariants.offsets", "true", () -> new Packetizer(
              PacketizerOptions.builder().valueNames(true).width(w).params("uvv").masked(masked).targetCpu(cpu).verifyEachPhase(true).build()).run(m, fn, simd));
          // (where the group pays for variants at all: taps_ush's five loads do not at W4, nor at W8 on SSE)
          String ir = m.function(simd).orElseThrow().print();
          assertTrue(ir.contains("%dyn.off") || !ir.contains(".same:"), simd);
          if (fn.equals("stencil_xy")) assertTrue(ir.contains("%dyn.off"), simd);
          boolean xy = fn.equals("stencil_xy");
          List<ParamSpec> ps = new ArrayList<>(List.of(grid, ParamSpec.varying(ValueDomain.ints(-100000, 100000)),
              ParamSpec.varying(ValueDomain.ints(-100000, 100000))));
          if (masked) ps.add(ParamSpec.mask());
          SplittableRandom r = new SplittableRandom(50 + w + (masked ? 1000 : 0) + (xy ? 0 : 77));
          try (DifferentialCheck c = DifferentialCheck.builder(m, fn, simd, w).params(ps).build()) {
            int lanes = 0;
            for (int p = 0; p < 8; p++) {
              for (int q = 0; q < (masked ? 12 : 3); q++) {
                boolean[] mk = masked ? mask(q, w, r) : null;
                long[][] v = xy ? xyLanes(p, w, r) : ushLanes(p, w, r);
                Object[] a = new Object[w], b2 = new Object[w];
                for (int k = 0; k < w; k++) {
                  boolean on = mk == null || mk[k];
                  // (an inactive lane: its column or first offset 1-4 KB outside the grid)
                  a[k] = on ? v[0][k] : (xy ? wild(r, N, 4) : N + (1200 + r.nextInt(2400)) / 4);
                  b2[k] = v[1][k];
                }
                List<Object> args = new ArrayList<>();
                args.add(null);
                args.add(a);
                args.add(b2);
                if (masked) args.add(mk);
                CheckResult res = c.run(new Inputs(args, r.nextLong()));
                assertTrue(res.passed(), () -> simd + " " + Arrays.toString(a) + " " + Arrays.toString(b2) + ":\n" + res.report() + "\n"
                    + m.function(simd).orElseThrow().print());
                lanes += res.lanesCompared();
              }
            }
            assertTrue(lanes > 0, simd);
          }
        }
      }
    }
  }

  /** Columns and rows of stencil_xy's lanes (pattern p), all within the grid's interior but for p == 6. */
  static long[][] xyLanes(int p, int w, SplittableRandom r) {
    long[] x = new long[w], y = new long[w];
    long x0 = r.nextLong(2, GW - 2), y0 = r.nextLong(2, GW - 2);
    for (int k = 0; k < w; k++) {
      x[k] = x0;
      y[k] = y0;
    }
    switch (p) {
      case 0 -> { } // all equal
      case 1 -> y[r.nextInt(w)] = y0 == 2 ? 3 : 2; // one row differs
      case 2 -> x[r.nextInt(w)] = x0 == 2 ? 3 : 2; // one column differs
      case 3 -> { long a = r.nextLong(0, N - 4 * GW - w + 1); for (int k = 0; k < w; k++) { x[k] = a + k; y[k] = 2; } } // consecutive (one long row)
      case 4 -> { for (int k = 0; k < w; k++) y[k] = r.nextLong(2, GW - 2); } // rows differ
      case 5 -> { for (int k = 0; k < w; k++) { x[k] = r.nextLong(2, GW - 2); y[k] = r.nextLong(2, GW - 2); } } // random
      case 6 -> { int k = r.nextInt(w); x[k] = x0 + GW; y[k] = y0 - 1; } // the same point through other offsets
      default -> { for (int k = 0; k < w; k++) x[k] = x0 + (k & 1); } // two columns
    }
    return new long[][] {x, y};
  }

  /** taps_ush's lanes: an unsigned first offset and a short second one, the sum within the grid. */
  static long[][] ushLanes(int p, int w, SplittableRandom r) {
    long[] i = new long[w], d = new long[w];
    long i0 = r.nextLong(40, 200), d0 = r.nextLong(-30, 30);
    for (int k = 0; k < w; k++) {
      i[k] = i0;
      d[k] = d0;
    }
    switch (p) {
      case 0 -> { }
      case 1 -> d[r.nextInt(w)] = d0 + 1;
      case 2 -> i[r.nextInt(w)] = i0 + 1;
      case 3 -> { for (int k = 0; k < w; k++) i[k] = i0 + k; }
      case 4 -> { for (int k = 0; k < w; k++) d[k] = d0 + k; }
      case 5 -> { for (int k = 0; k < w; k++) { i[k] = r.nextLong(40, 200); d[k] = r.nextLong(-30, 30); } }
      case 6 -> { int k = r.nextInt(w); i[k] = i0 + 5; d[k] = d0 - 5; } // the same pointer through other offsets
      default -> { for (int k = 0; k < w; k++) { i[k] = i0 + k; d[k] = d0 - k; } }
    }
    return new long[][] {i, d};
  }

  /** The three variants in the packet IR, and the remark (fails with -Dpacketizer.dynamicVariants=false). */
  @Test
  void structure() {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = PlainC.compile(ctx, "dynamic_variants.c", "-O2")) {
      for (String wc : List.of("4 x86-64-v2", "8 haswell", "16 znver4")) {
        int w = Integer.parseInt(wc.split(" ")[0]);
        String cpu = wc.split(" ")[1];
        for (boolean masked : new boolean[] {false, true}) {
          String name = "st_" + w + "_" + cpu.replace('-', '_') + (masked ? "_m" : "");
          PacketizationResult r = new Packetizer(PacketizerOptions.builder().valueNames(true).width(w).params("uv").masked(masked).targetCpu(cpu).build())
              .run(m, "stencil9", name);
          String ir = m.function(name).orElseThrow().print();
          assertTrue(ir.contains("entry.same:") || ir.contains(".same:"), ir);
          assertTrue(ir.contains(".consecutive:"), ir);
          // all equal: nine scalar loads and no more; consecutive: nine vector loads
          String same = block(ir, ".same:");
          assertEquals(9, TableLookupTest.count(same, "load float"), same);
          String consecutive = block(ir, ".consecutive:");
          if (masked) {
            assertEquals(9, TableLookupTest.count(consecutive, "@llvm.masked.load"), consecutive);
          } else {
            assertEquals(9, TableLookupTest.count(consecutive, "load <" + w + " x float>"), consecutive);
          }
          assertTrue(r.remarks().stream().anyMatch(k -> k.message().contains("dynamic variants for the 9 loads") && "stencil9".equals(k.function()) && k.block() != null),
              () -> r.remarks().toString());
        }
      }
      // the cost rule: a group of two loads at W4 on SSE does not pay for the test, and the remark says so
      var r = new Packetizer(PacketizerOptions.builder().valueNames(true).width(4).params("uvv").targetCpu("x86-64-v2").build()).run(m, "window_loop", "wl4");
      assertFalse(m.function("wl4").orElseThrow().print().contains(".same:"));
      assertTrue(r.remarks().stream().anyMatch(k -> k.message().contains("no dynamic variants for the 4 loads")), () -> r.remarks().toString());
      var r8 = new Packetizer(PacketizerOptions.builder().valueNames(true).width(8).params("uvv").targetCpu("haswell").build()).run(m, "window_loop", "wl8");
      assertTrue(m.function("wl8").orElseThrow().print().contains(".same:"));
      assertTrue(r8.remarks().stream().anyMatch(k -> k.message().contains("dynamic variants for the 4 loads")), () -> r8.remarks().toString());
    }
  }

  /** The text of the block whose label ends with {@code suffix}, up to the next blank line. */
  static String block(String ir, String suffix) {
    int at = ir.indexOf(suffix);
    assertTrue(at >= 0, ir);
    int end = ir.indexOf("\n\n", at);
    return ir.substring(at, end < 0 ? ir.length() : end);
  }
}
