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
 * Dynamic variants on clang's SLP-merged loads (issue 16, eighteenth round): the kernels of
 * {@code beyond/slp_loads.c} compiled by the bundled clang at plain {@code -O2} (the SLP vectorizer on;
 * {@code -ffp-contract=off} so that scalar and packet code round alike) read {@code <2 x float>}: a
 * bilinear fetch and a 2x2 box filter two such pairs from two texture rows (two varying roots on one
 * base: one group, one test; {@code diff2} two unrelated pairs), a struct of two floats {@code p[i]} one pair (the consecutive variant
 * loads whole vectors). Packetized at W4/8/16 on SSE4.2, AVX2 and AVX-512 with
 * {@code -Dpacketizer.dynamicVariants.twoValued=true} (all four variants; on AVX2 the pointers' route, on
 * AVX-512 the narrow offsets').
 *
 * <p>Differential on every lane against the scalar function with lane patterns that take each variant:
 * one texel / element in every lane (different fractions), consecutive texels, two texels (halves, any
 * positions, the second one row down), two with equal ends, one lane off a consecutive run, three, and
 * scattered; for {@code diff2}, whose two pairs {@code t[i]} and {@code t[j]} are unrelated, each root's lanes
 * chosen by its own pattern (so that one root passes a test the other fails); unmasked and masked (the first, the last or both ends inactive, one lane, none, random).
 * Inactive lanes' coordinates point 1-4 KB outside the texture, into the guard page: no variant may load
 * through them.
 */
class SlpVariantTest {
  static final int TW = 64, ROWS = 16, TEXELS = TW * ROWS, STRUCTS = 64;

  static Stream<Arguments> cases() {
    List<Arguments> out = new ArrayList<>();
    for (int w : new int[] {4, 8, 16}) for (String cpu : new String[] {"x86-64-v2", "haswell", "znver4"}) out.add(Arguments.of(w, cpu));
    return out.stream();
  }

  /** Where the cost rule gives the group dynamic variants (4 elements for the texture kernels, 2 for pairdist). */
  static boolean expectVariants(String fn, int w, String cpu) {
    if (fn.equals("pairdist")) return w == 16 && cpu.equals("znver4");
    return w >= 8 && !cpu.equals("x86-64-v2");
  }

  /**
   * Cells (an index into the texture or the struct array; {@code span} cells in a row of {@code rowLen})
   * for each lane, pattern p, chosen over the active lanes; inactive lanes get -1.
   */
  static long[] cells(int p, int w, SplittableRandom r, boolean[] mk, int rowLen, int rows) {
    long[] c = new long[w];
    List<Integer> act = new ArrayList<>();
    for (int k = 0; k < w; k++) {
      if (mk == null || mk[k]) act.add(k);
      else c[k] = -1;
    }
    if (act.isEmpty()) return c;
    int f = act.get(0), l = act.get(act.size() - 1);
    // (a texel with its right and lower neighbours inside: x < rowLen - 1, y < rows - 1)
    java.util.function.LongSupplier any = () -> r.nextLong(rows - 1) * rowLen + r.nextLong(rowLen - 1);
    long a = any.getAsLong();
    long b = r.nextBoolean() ? a + 1 : r.nextBoolean() ? a + rowLen : any.getAsLong();
    if (b == a || b % rowLen == rowLen - 1 || b / rowLen >= rows - 1) b = a % rowLen == 0 ? a + 1 : a - 1;
    long x0 = r.nextLong(rowLen - w), row = r.nextLong(rows - 1) * rowLen;
    switch (p) {
      case 0 -> { for (int k : act) c[k] = a; } // one cell
      case 1 -> { for (int k : act) c[k] = row + x0 + k; } // consecutive cells (lane k at lane 0's + k)
      case 2 -> { for (int k : act) c[k] = act.indexOf(k) < act.size() / 2 ? a : b; } // a straddle: halves
      case 3 -> { for (int k : act) c[k] = r.nextBoolean() ? a : b; c[f] = a; c[l] = b; } // two cells, any positions
      case 4 -> { for (int k : act) c[k] = r.nextBoolean() ? a : b; c[f] = a; c[l] = a; if (act.size() > 2) c[act.get(1)] = b; } // two, ends equal
      case 5 -> { for (int k : act) c[k] = row + x0 + k; c[act.get(r.nextInt(act.size()))] = a; if (act.size() > 1 && c[f] == a && c[l] == a) c[l] = b; } // one lane off a run
      case 6 -> { for (int k : act) c[k] = act.indexOf(k) < act.size() / 2 ? a : b; if (act.size() > 2) c[act.get(act.size() / 2)] = any.getAsLong(); } // three
      default -> { for (int k : act) c[k] = any.getAsLong(); } // scattered
    }
    return c;
  }

  /** Packetizes fn (masked and not) under the knobs and runs it against the scalar function on every pattern and mask. */
  static void check(LlvmModule m, String fn, String kinds, int w, String cpu, List<ParamSpec> specs, LaneArgs lanes, long seed) {
    for (boolean masked : new boolean[] {false, true}) {
      String simd = fn + "_" + cpu.replace('-', '_') + (masked ? "_m" : "_v") + w;
      List<String> remarks = new ArrayList<>();
      Knobs.with("packetizer.dynamicVariants.twoValued", "true", () -> new Packetizer(PacketizerOptions.builder().valueNames(true).width(w)
          .params(kinds).masked(masked).targetCpu(cpu).verifyEachPhase(true).remarks(x -> remarks.add(x.message())).build()).run(m, fn, simd));
      String ir = m.function(simd).orElseThrow().print();
      boolean expect = expectVariants(fn, w, cpu);
      assertEquals(expect, ir.contains(".same:"), () -> simd + ": " + String.join("\n", remarks) + "\n" + ir);
      if (expect) {
        assertTrue(ir.contains(".consecutive:") && ir.contains(".two:"), simd + "\n" + ir);
        assertTrue(remarks.stream().anyMatch(x -> x.startsWith("dynamic variants for the " + (fn.equals("pairdist") ? "1 loads" : "2 loads"))),
            () -> String.join("\n", remarks));
      }
      List<ParamSpec> ps = new ArrayList<>(specs);
      if (masked) ps.add(ParamSpec.mask());
      SplittableRandom r = new SplittableRandom(seed + (masked ? 1000 : 0));
      try (DifferentialCheck c = DifferentialCheck.builder(m, fn, simd, w).params(ps).build()) {
        int compared = 0;
        for (int p = 0; p < 8; p++) {
          for (int q = 0; q < (masked ? 16 : 3); q++) {
            boolean[] mk = masked ? TwoValuedVariantTest.mask(q, w, r) : null;
            List<Object> args = new ArrayList<>();
            args.add(null);
            int rowLen = fn.equals("pairdist") ? STRUCTS : TW, rows = fn.equals("pairdist") ? 2 : ROWS;
            // (a second, independent choice of cells for diff2's second root: another pattern, or the same one)
            long[] cs = cells(p, w, r, mk, rowLen, rows);
            long[] cs2 = q % 4 == 0 ? cs.clone() : cells((p + 1 + q) % 8, w, r, mk, rowLen, rows);
            args.addAll(lanes.args(cs, cs2, r));
            if (masked) args.add(mk);
            CheckResult res = c.run(new Inputs(args, r.nextLong()));
            assertTrue(res.passed(), () -> simd + " " + args + ":\n" + res.report() + "\n" + m.function(simd).orElseThrow().print());
            compared += res.lanesCompared();
          }
        }
        assertTrue(compared > 0, simd);
      }
    }
  }

  /** The kernel's arguments after the buffer for the lanes' cells (-1: an inactive lane, sent into the guard page). */
  interface LaneArgs {
    List<Object> args(long[] cells, long[] cells2, SplittableRandom r);
  }

  /** A cell 1-4 KB outside the texture (either end), as (x, y) with 0 <= x < TW. */
  static long[] wildXY(SplittableRandom r) {
    long i = DynamicVariantsTest.wild(r, TEXELS, 4);
    return new long[] {Math.floorMod(i, TW), Math.floorDiv(i, TW)};
  }

  @ParameterizedTest(name = "W={0} {1}")
  @MethodSource("cases")
  void agreesWithScalar(int w, String cpu) {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = PlainC.compile(ctx, "slp_loads.c", "-O2", "-ffp-contract=off")) {
      ParamSpec tex = ParamSpec.uniformPtr(ctx.floatType(), TEXELS, Direction.IN);
      // bilinear: (u, v) = the cell plus fractions (different in every lane of one cell)
      check(m, "bilinear", "uvv", w, cpu, List.of(tex, ParamSpec.varying(ValueDomain.floats(-1e6, 1e6)), ParamSpec.varying(ValueDomain.floats(-1e6, 1e6))),
          (cells, cells2, r) -> {
            Object[] u = new Object[w], v = new Object[w];
            for (int k = 0; k < w; k++) {
              long[] xy = cells[k] < 0 ? wildXY(r) : new long[] {cells[k] % TW, cells[k] / TW};
              float fu = cells[k] < 0 ? 0f : r.nextInt(1024) / 1024f, fv = cells[k] < 0 ? 0f : r.nextInt(1024) / 1024f;
              u[k] = xy[0] + fu;
              v[k] = xy[1] + fv;
            }
            return List.of(u, v);
          }, 10 + w);
      check(m, "box2", "uvv", w, cpu, List.of(tex, ParamSpec.varying(ValueDomain.ints(-100000, 100000)), ParamSpec.varying(ValueDomain.ints(-100000, 100000))),
          (cells, cells2, r) -> {
            Object[] x = new Object[w], y = new Object[w];
            for (int k = 0; k < w; k++) {
              long[] xy = cells[k] < 0 ? wildXY(r) : new long[] {cells[k] % TW, cells[k] / TW};
              x[k] = (int) xy[0];
              y[k] = (int) xy[1];
            }
            return List.of(x, y);
          }, 20 + w);
      ParamSpec pairs = ParamSpec.uniformPtr(ctx.structType(List.of(ctx.floatType(), ctx.floatType()), false), STRUCTS, Direction.IN);
      check(m, "pairdist", "uvvu", w, cpu, List.of(pairs, ParamSpec.varying(ValueDomain.ints(-100000, 100000)),
          ParamSpec.varying(ValueDomain.floats(-10, 10)), ParamSpec.uniform(ValueDomain.floats(-10, 10))),
          (cells, cells2, r) -> {
            Object[] i = new Object[w], cx = new Object[w];
            for (int k = 0; k < w; k++) {
              i[k] = (int) (cells[k] < 0 ? DynamicVariantsTest.wild(r, STRUCTS, 8) : cells[k]);
              cx[k] = (float) (r.nextInt(200) - 100) / 16f;
            }
            return List.of(i, cx, 0.75f);
          }, 30 + w);
      // diff2: two roots whose lanes are chosen independently (one may be all equal or consecutive while the other is not)
      check(m, "diff2", "uvv", w, cpu, List.of(tex, ParamSpec.varying(ValueDomain.ints(-100000, 100000)), ParamSpec.varying(ValueDomain.ints(-100000, 100000))),
          (cells, cells2, r) -> {
            Object[] i = new Object[w], j = new Object[w];
            for (int k = 0; k < w; k++) {
              i[k] = (int) (cells[k] < 0 ? DynamicVariantsTest.wild(r, TEXELS, 4) : cells[k]);
              j[k] = (int) (cells2[k] < 0 ? DynamicVariantsTest.wild(r, TEXELS, 4) : cells2[k]);
            }
            return List.of(i, j);
          }, 40 + w);
    }
  }

  /**
   * The knobs: {@code vectors=false} leaves the SLP'd loads to one gather per element (no variant); {@code mergeRoots=false}
   * gives each texture row its own group and test; by default one group of both rows, the remark naming the other root
   * and the elements the rule counted.
   */
  @Test
  void knobs() {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = PlainC.compile(ctx, "slp_loads.c", "-O2", "-ffp-contract=off")) {
      PacketizationResult[] res = new PacketizationResult[1];
      res[0] = new Packetizer(PacketizerOptions.builder().valueNames(true).width(16).params("uvv").targetCpu("znver4").build()).run(m, "bilinear", "d16");
      String d16 = m.function("d16").orElseThrow().print();
      assertEquals(1, TableLookupTest.count(d16, ".same:"), d16);
      assertEquals(2, TableLookupTest.count(DynamicVariantsTest.block(d16, ".same:"), "load <2 x float>"), d16);
      assertEquals(4, TableLookupTest.count(DynamicVariantsTest.block(d16, ".consecutive:"), "load <16 x float>"), d16);
      assertEquals(4, TableLookupTest.count(DynamicVariantsTest.block(d16, ".two:"), "load <2 x float>"), d16);
      assertTrue(res[0].remarks().stream().anyMatch(k -> k.message().contains("dynamic variants for the 2 loads") && k.message().contains("and 1 other root(s)")
          && k.message().contains("4 elements")), () -> res[0].remarks().toString());
      Knobs.with("packetizer.dynamicVariants.mergeRoots", "false", () -> new Packetizer(PacketizerOptions.builder().valueNames(true).width(16).params("uvv")
          .targetCpu("znver4").build()).run(m, "bilinear", "s16"));
      String s16 = m.function("s16").orElseThrow().print();
      assertEquals(2, TableLookupTest.count(s16, ".same:"), s16);
      Knobs.with("packetizer.dynamicVariants.vectors", "false", () -> res[0] = new Packetizer(PacketizerOptions.builder().valueNames(true).width(16).params("uvv")
          .targetCpu("znver4").build()).run(m, "bilinear", "v16"));
      String v16 = m.function("v16").orElseThrow().print();
      assertFalse(v16.contains(".same"), v16);
      assertTrue(res[0].remarks().stream().anyMatch(k -> k.message().contains("load of <2 x float> from varying addresses became one gather per element")),
          () -> res[0].remarks().toString());
    }
  }
}
