package org.packetizer.core.beyond;

import static org.junit.jupiter.api.Assertions.*;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
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
 * Narrow gathers (issue 16, nineteenth round; AVX2, twentieth): on Intel targets with AVX-512, and at W16 on skylake (an Intel
 * AVX2 core LLVM tunes as having fast gathers; not W4 and W8, nor alderlake, measured no faster), loads at constant offsets
 * from a varying point that is a uniform base plus narrow offsets ({@code g + y*16 + x}) are one gather each with a
 * 32-bit index packet instead of windows and per-lane loads; where two 32-bit offsets are summed, a run-time test of the
 * lanes' signed overflow sends the packet to gathers from the 64-bit pointers. Kernels of {@code beyond/narrow_gathers.c}
 * (a 9-point stencil, a double row, a short plus a byte offset into ints, an unsigned offset that must keep the old path)
 * compiled by the bundled clang at plain {@code -O1} / {@code -O2}, at W4/8/16 on skylake and alderlake (AVX2: the rule
 * applies to skylake at W16; W4, W8 and alderlake keep the old path, checked), skylake-avx512 and sapphirerapids, unmasked and masked; and hand-written IR whose offsets do overflow 32 bits (every lane's sum wraps, at
 * a base 8 GB before or after the buffer) or are large with opposite signs (no wrap).
 *
 * <p>Differential on every lane against the scalar function: random points, all lanes at one point, consecutive points,
 * points at the grid's ends; masked: inactive lanes' indices 1-4 KB outside the buffer, in the guard page behind it.
 * Every buffer lies between guard pages. {@link #structure} fails with {@code -Dpacketizer.narrowGathers=false}.
 */
class NarrowGathersTest {
  static final int GW = 16, N = GW * GW;

  static Stream<Arguments> cases() {
    List<Arguments> out = new ArrayList<>();
    for (int w : new int[] {4, 8, 16}) for (String cpu : new String[] {"skylake", "alderlake", "skylake-avx512", "sapphirerapids"}) for (String o : new String[] {"-O1", "-O2"}) {
      out.add(Arguments.of(w, cpu, o));
    }
    return out.stream();
  }

  /** The AVX2-only CPUs of these tests (the others have AVX-512). */
  static boolean avx2Only(String cpu) {
    return cpu.equals("skylake") || cpu.equals("alderlake") || cpu.equals("haswell");
  }

  /**
   * Whether the rule applies (by default) to a kernel it can take: every width on the AVX-512 CPUs; W16 on skylake (AVX2
   * with fast gathers; at W4 and W8, and on alderlake, the gathers measured no faster than the per-lane loads); never on haswell.
   */
  static boolean narrowApplies(String cpu, int w) {
    if (!avx2Only(cpu)) return true;
    return cpu.equals("skylake") && w == 16;
  }

  static void assumeHost(String cpu) {
    boolean avx512 = !avx2Only(cpu);
    Assumptions.assumeTrue(hostHas(avx512 ? "avx512vl" : "avx2"), "SKIPPED (LOUD): the host cannot run " + cpu + " code");
  }

  static boolean hostHas(String flag) {
    try {
      for (String line : java.nio.file.Files.readAllLines(java.nio.file.Path.of("/proc/cpuinfo"))) {
        if (line.startsWith("flags")) return Arrays.asList(line.substring(line.indexOf(':') + 1).trim().split("\\s+")).contains(flag);
      }
    } catch (java.io.IOException e) {
      return false;
    }
    return false;
  }

  /** Lane values of pattern p in [lo, hi]: random, all equal, consecutive, the two ends. */
  static long[] lanes(int p, int w, SplittableRandom r, long lo, long hi) {
    long[] v = new long[w];
    switch (p % 5) {
      case 0, 1 -> { for (int k = 0; k < w; k++) v[k] = r.nextLong(lo, hi + 1); }
      case 2 -> Arrays.fill(v, r.nextLong(lo, hi + 1));
      case 3 -> { long a = r.nextLong(lo, Math.max(lo, hi - w + 1) + 1); for (int k = 0; k < w; k++) v[k] = Math.min(hi, a + k); }
      default -> { for (int k = 0; k < w; k++) v[k] = r.nextBoolean() ? lo : hi; }
    }
    return v;
  }

  static boolean[] mask(int q, int w, SplittableRandom r) {
    boolean[] m = new boolean[w];
    switch (q % 4) {
      case 0 -> Arrays.fill(m, true);
      case 1 -> { Arrays.fill(m, true); m[0] = false; }
      case 2 -> m[r.nextInt(w)] = true;
      default -> { for (int k = 0; k < w; k++) m[k] = r.nextBoolean(); }
    }
    return m;
  }

  /** Lane index values per argument (one long[] each) for one packet. */
  interface Points {
    long[][] packet(int p, int w, SplittableRandom r);

    /** A lane's index arguments that address the guard page (an inactive lane's). */
    long[] wild(SplittableRandom r);
  }

  static String packetize(LlvmModule m, String fn, String kinds, int w, String cpu, boolean masked, String knob, List<String> remarks) {
    String simd = fn + "_" + cpu.replace('-', '_') + "_" + knob + (masked ? "_m" : "_v") + w;
    Knobs.with("packetizer.narrowGathers", knob, () -> new Packetizer(PacketizerOptions.builder().valueNames(true).width(w).params(kinds)
        .masked(masked).targetCpu(cpu).verifyEachPhase(true).remarks(x -> remarks.add(x.message())).build()).run(m, fn, simd));
    return simd;
  }

  static void check(LlvmModule m, String fn, String kinds, int w, String cpu, ParamSpec buffer, List<ParamSpec> idxSpecs, Points pts,
      long seed, boolean expectNarrow) {
    for (boolean masked : new boolean[] {false, true}) {
      List<String> remarks = new ArrayList<>();
      String simd = packetize(m, fn, kinds, w, cpu, masked, "auto", remarks);
      // (the rule applies under a full mask only, and on the targets of narrowApplies)
      if (!masked) assertEquals(expectNarrow && narrowApplies(cpu, w), remarks.stream().anyMatch(x -> x.contains("gather(s) with 32-bit indices off the uniform base")),
          () -> simd + ": " + remarks + "\n" + m.function(simd).orElseThrow().print());
      checkLanes(m, fn, simd, w, masked, buffer, idxSpecs, pts, seed);
    }
  }

  /**
   * The packet function {@code simd} of {@code m} against the scalar {@code fn}: 10 packets of points from {@code pts},
   * under 8 masks each when {@code masked} (an inactive lane's indices address the guard page), twice otherwise; every
   * active lane compared, and at least one.
   */
  static void checkLanes(LlvmModule m, String fn, String simd, int w, boolean masked, ParamSpec buffer, List<ParamSpec> idxSpecs,
      Points pts, long seed) {
    List<ParamSpec> ps = new ArrayList<>(List.of(buffer));
    ps.addAll(idxSpecs);
    if (masked) ps.add(ParamSpec.mask());
    SplittableRandom r = new SplittableRandom(seed + (masked ? 1000 : 0));
    int n = idxSpecs.size();
    try (DifferentialCheck c = DifferentialCheck.builder(m, fn, simd, w).params(ps).build()) {
      int lanes = 0;
      for (int p = 0; p < 10; p++) {
        for (int q = 0; q < (masked ? 8 : 2); q++) {
          boolean[] mk = masked ? mask(q, w, r) : null;
          long[][] v = pts.packet(p, w, r);
          Object[][] idx = new Object[n][w];
          for (int k = 0; k < w; k++) {
            long[] wl = mk != null && !mk[k] ? pts.wild(r) : null;
            for (int i = 0; i < n; i++) idx[i][k] = wl != null ? wl[i] : v[i][k];
          }
          lanes += runPacket(c, m, simd, idx, mk, r);
        }
      }
      assertTrue(lanes > 0, simd);
    }
  }

  /**
   * One call of {@code c} on the buffer (null: the check's own), the index arguments {@code idx} ({@code [argument][lane]})
   * and the mask {@code mk} (null: unmasked); asserts that every active lane agrees (the packet function printed
   * otherwise) and returns the lanes compared.
   */
  static int runPacket(DifferentialCheck c, LlvmModule m, String simd, Object[][] idx, boolean[] mk, SplittableRandom r) {
    List<Object> args = new ArrayList<>();
    args.add(null);
    args.addAll(Arrays.asList(idx));
    if (mk != null) args.add(mk);
    CheckResult res = c.run(new Inputs(args, r.nextLong()));
    assertTrue(res.passed(), () -> simd + " " + Arrays.deepToString(idx) + (mk == null ? "" : " " + Arrays.toString(mk)) + ":\n"
        + res.report() + "\n" + m.function(simd).orElseThrow().print());
    return res.lanesCompared();
  }

  static long wild(SplittableRandom r, int count, int elemBytes) {
    return DynamicVariantsTest.wild(r, count, elemBytes);
  }

  @ParameterizedTest(name = "W={0} {1} {2}")
  @MethodSource("cases")
  void agreesWithScalar(int w, String cpu, String opt) {
    assumeHost(cpu);
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = PlainC.compile(ctx, "narrow_gathers.c", opt)) {
      ValueDomain ints = ValueDomain.ints(-100000, 100000);
      // grid9: (x, y) in the interior [2, GW-3]
      check(m, "grid9", "uvv", w, cpu, ParamSpec.uniformPtr(ctx.floatType(), N, Direction.IN),
          List.of(ParamSpec.varying(ints), ParamSpec.varying(ints)), new Points() {
            public long[][] packet(int p, int w2, SplittableRandom r) {
              return new long[][] {lanes(p, w2, r, 2, GW - 3), lanes(p / 2, w2, r, 2, GW - 3)};
            }

            public long[] wild(SplittableRandom r) {
              return new long[] {NarrowGathersTest.wild(r, N, 4), r.nextLong(2, GW - 2)};
            }
          }, 10 + w, true);
      // taps_d: c[-1..2] of doubles
      check(m, "taps_d", "uv", w, cpu, ParamSpec.uniformPtr(ctx.doubleType(), N, Direction.IN), List.of(ParamSpec.varying(ints)),
          new Points() {
            public long[][] packet(int p, int w2, SplittableRandom r) {
              return new long[][] {lanes(p, w2, r, 1, N - 3)};
            }

            public long[] wild(SplittableRandom r) {
              return new long[] {NarrowGathersTest.wild(r, N, 8)};
            }
          }, 20 + w, true);
      // taps_sc: g + d + e, d a short (possibly negative), e a byte; c[0..2] of ints
      check(m, "taps_sc", "uvv", w, cpu, ParamSpec.uniformPtr(ctx.i32(), 2 * N, Direction.IN),
          List.of(ParamSpec.varying(ValueDomain.ints(-300, 2 * N)), ParamSpec.varying(ValueDomain.ints(0, 255))), new Points() {
            public long[][] packet(int p, int w2, SplittableRandom r) {
              long[] at = lanes(p, w2, r, 0, 2 * N - 3);
              long[] d = new long[w2], e = new long[w2];
              for (int k = 0; k < w2; k++) {
                e[k] = r.nextLong(0, 256);
                d[k] = at[k] - e[k];
              }
              return new long[][] {d, e};
            }

            public long[] wild(SplittableRandom r) {
              return new long[] {Math.max(Short.MIN_VALUE, Math.min(Short.MAX_VALUE, NarrowGathersTest.wild(r, 2 * N, 4))), 0};
            }
          }, 30 + w, true);
      // taps_u: an unsigned offset: not a 32-bit gather index, the old path
      check(m, "taps_u", "uv", w, cpu, ParamSpec.uniformPtr(ctx.floatType(), N, Direction.IN), List.of(ParamSpec.varying(ints)),
          new Points() {
            public long[][] packet(int p, int w2, SplittableRandom r) {
              return new long[][] {lanes(p, w2, r, 0, N - 4)};
            }

            public long[] wild(SplittableRandom r) {
              return new long[] {N + 300 + r.nextInt(600)};
            }
          }, 40 + w, false);
    }
  }

  /**
   * Two 32-bit offsets whose sum leaves 32 bits: {@code far_up} reads through a base 2^31 + 64 floats before the buffer, so
   * every lane's a + b is 2^31 + 64 + j (positive overflow); {@code far_down} through a base 2^31 + 64 floats after it (a + b
   * below -2^31: negative overflow); {@code near} at the buffer with a and b large and of opposite signs (no overflow).
   * A 32-bit sum without the test would read 16 GB away and fault.
   */
  static final String WRAP_IR = """
      define float @far_up(ptr %buf, i32 %a, i32 %b) {
        %g = getelementptr i8, ptr %buf, i64 -8589934848
        %ax = sext i32 %a to i64
        %r = getelementptr float, ptr %g, i64 %ax
        %bx = sext i32 %b to i64
        %c = getelementptr float, ptr %r, i64 %bx
        %v0 = load float, ptr %c, align 4
        %p1 = getelementptr i8, ptr %c, i64 4
        %v1 = load float, ptr %p1, align 4
        %s = fsub float %v0, %v1
        ret float %s
      }
      define float @far_down(ptr %buf, i32 %a, i32 %b) {
        %g = getelementptr i8, ptr %buf, i64 8589934848
        %ax = sext i32 %a to i64
        %r = getelementptr float, ptr %g, i64 %ax
        %bx = sext i32 %b to i64
        %c = getelementptr float, ptr %r, i64 %bx
        %v0 = load float, ptr %c, align 4
        %p1 = getelementptr i8, ptr %c, i64 4
        %v1 = load float, ptr %p1, align 4
        %s = fsub float %v0, %v1
        ret float %s
      }
      define float @near(ptr %buf, i32 %a, i32 %b) {
        %ax = sext i32 %a to i64
        %r = getelementptr float, ptr %buf, i64 %ax
        %bx = sext i32 %b to i64
        %c = getelementptr float, ptr %r, i64 %bx
        %v0 = load float, ptr %c, align 4
        %p1 = getelementptr i8, ptr %c, i64 4
        %v1 = load float, ptr %p1, align 4
        %s = fsub float %v0, %v1
        ret float %s
      }
      """;

  @ParameterizedTest(name = "W={0} {1}")
  @org.junit.jupiter.params.provider.CsvSource({"4, skylake-avx512", "8, skylake-avx512", "8, sapphirerapids", "16, sapphirerapids", "8, skylake", "16, skylake", "4, alderlake",
      "16, alderlake", "4, skylake"})
  void sumsBeyond32BitsTakeThePointers(int w, String cpu) {
    assumeHost(cpu);
    final long base = (1L << 31) + 64;
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.parseIr(WRAP_IR, "wrap.ll")) {
      ValueDomain any = ValueDomain.ints(Integer.MIN_VALUE, Integer.MAX_VALUE);
      List<ParamSpec> two = List.of(ParamSpec.varying(any), ParamSpec.varying(any));
      ParamSpec buf = ParamSpec.uniformPtr(ctx.floatType(), 64, Direction.IN);
      // far_up: a + b = base + j, j in [0, 62], a and b both positive
      check(m, "far_up", "uvv", w, cpu, buf, two, new Points() {
        public long[][] packet(int p, int w2, SplittableRandom r) {
          long[] j = lanes(p, w2, r, 0, 62);
          long[] a = new long[w2], b = new long[w2];
          for (int k = 0; k < w2; k++) {
            a[k] = (1L << 30) + r.nextLong(0, 1L << 29);
            b[k] = base + j[k] - a[k];
          }
          return new long[][] {a, b};
        }

        public long[] wild(SplittableRandom r) {
          return new long[] {1L << 30, base - (1L << 30) + 64 + 300 + r.nextInt(600)};
        }
      }, 50 + w, true);
      // far_down: a + b = -base + j, both negative
      check(m, "far_down", "uvv", w, cpu, buf, two, new Points() {
        public long[][] packet(int p, int w2, SplittableRandom r) {
          long[] j = lanes(p, w2, r, 0, 62);
          long[] a = new long[w2], b = new long[w2];
          for (int k = 0; k < w2; k++) {
            a[k] = -(1L << 30) - r.nextLong(0, 1L << 29);
            b[k] = -base + j[k] - a[k];
          }
          return new long[][] {a, b};
        }

        public long[] wild(SplittableRandom r) {
          return new long[] {-(1L << 30), -base + 64 + 300 + r.nextInt(600) + (1L << 30)};
        }
      }, 60 + w, true);
      // near: a + b = j with a, b of opposite signs and large
      check(m, "near", "uvv", w, cpu, buf, two, new Points() {
        public long[][] packet(int p, int w2, SplittableRandom r) {
          long[] j = lanes(p, w2, r, 0, 62);
          long[] a = new long[w2], b = new long[w2];
          for (int k = 0; k < w2; k++) {
            a[k] = r.nextBoolean() ? Integer.MAX_VALUE - r.nextLong(0, 1000) : Integer.MIN_VALUE + 63 + r.nextLong(0, 1000);
            b[k] = j[k] - a[k];
          }
          return new long[][] {a, b};
        }

        public long[] wild(SplittableRandom r) {
          return new long[] {1L << 20, 64 + 300 + r.nextInt(600)};
        }
      }, 70 + w, true);
    }
  }

  /** The first line of {@code ir} containing {@code what} ("" when none). */
  static String line(String ir, String what) {
    for (String l : ir.split("\n")) if (l.contains(what)) return l;
    return "";
  }

  static int count(String s, String what) {
    return TableLookupTest.count(s, what);
  }

  /**
   * The decision in the IR: grid9 at W16 on sapphirerapids has the 32-bit index packet (the sum of y*16 and x), its
   * overflow test, 9 gathers off it and 9 from the pointers where the test fails, no windows; taps_sc (a 16-bit and an
   * 8-bit offset) no overflow test; skylake (AVX2, fast gathers) at W16 the same form with 16-lane gathers; taps_u (an
   * unsigned 32-bit offset), skylake at W4 and W8, alderlake, haswell and x86-64-v3 (AVX2 without
   * fast gathers), znver4 (AMD) and the size mode the old path; the knob
   * {@code false} the windows too. The remark names the decision.
   */
  @Test
  void structure() {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = PlainC.compile(ctx, "narrow_gathers.c", "-O2")) {
      List<String> remarks = new ArrayList<>();
      PacketizationResult res = new Packetizer(PacketizerOptions.builder().valueNames(true).width(16).params("uvv").targetCpu("sapphirerapids")
          .remarks(x -> remarks.add(x.message())).build()).run(m, "grid9", "g16");
      assertNotNull(res);
      String g16 = m.function("g16").orElseThrow().print();
      assertTrue(line(g16, "%narrow.index = add").contains("<16 x i32>"), g16);
      assertTrue(g16.contains("%narrow.overflow = icmp slt <16 x i32>"), g16);
      assertEquals(9, count(DynamicVariantsTest.block(g16, ".narrow:"), "@llvm.masked.gather.v16f32.v16p0"), g16);
      assertEquals(9, count(DynamicVariantsTest.block(g16, ".wide:"), "@llvm.masked.gather.v16f32.v16p0"), g16);
      assertFalse(g16.contains("load <4 x float>"), g16);
      assertTrue(remarks.stream().anyMatch(x -> x.contains("9 load(s) at constant offsets from") && x.contains("became 9 gather(s) with 32-bit indices off the uniform base")
          && x.contains("the target (sapphirerapids) is an Intel core with AVX-512 and fast hardware gathers")), remarks::toString);
      new Packetizer(PacketizerOptions.builder().valueNames(true).width(8).params("uvv").targetCpu("sapphirerapids").build()).run(m, "taps_sc", "s8");
      String s8 = m.function("s8").orElseThrow().print();
      assertTrue(line(s8, "%narrow.index = add").contains("<8 x i32>") && !s8.contains("narrow.overflow"), s8);
      assertEquals(3, count(s8, "call <8 x i32> @llvm.masked.gather"), s8);
      new Packetizer(PacketizerOptions.builder().valueNames(true).width(16).params("uv").targetCpu("sapphirerapids").build()).run(m, "taps_u", "u16");
      String u16 = m.function("u16").orElseThrow().print();
      assertTrue(u16.contains("load <4 x float>") && !u16.contains("narrow"), u16);
      // AVX2 Intel cores with fast gathers: W16 one <16 x float> gather per load (two ymm gathers in llc); the remark says it
      // is the AVX2 rule; W4 and W8 (measured no faster) and haswell (no fast gathers) the old path
      for (String[] c : new String[][] {{"16", "skylake"}}) {
        List<String> rk = new ArrayList<>();
        int w = Integer.parseInt(c[0]);
        String name = "k" + w + c[1];
        new Packetizer(PacketizerOptions.builder().valueNames(true).width(w).params("uvv").targetCpu(c[1]).remarks(x -> rk.add(x.message())).build())
            .run(m, "grid9", name);
        String k = m.function(name).orElseThrow().print();
        assertTrue(line(k, "%narrow.index = add").contains("<" + w + " x i32>"), k);
        assertTrue(k.contains("%narrow.overflow = icmp slt <" + w + " x i32>"), k);
        String gather = "@llvm.masked.gather.v" + w + "f32.v" + w + "p0";
        assertEquals(9, count(DynamicVariantsTest.block(k, ".narrow:"), gather), k);
        assertEquals(9, count(DynamicVariantsTest.block(k, ".wide:"), gather), k);
        assertFalse(k.contains("load <4 x float>"), k);
        assertTrue(rk.stream().anyMatch(x -> x.contains("became 9 gather(s) with 32-bit indices off the uniform base")
            && x.contains("the target (" + c[1] + ") is an Intel AVX2 core that LLVM tunes as having fast hardware gathers")), rk::toString);
      }
      for (String[] c : new String[][] {{"4", "skylake"}, {"8", "skylake"}, {"4", "alderlake"}, {"8", "alderlake"}, {"16", "alderlake"}, {"8", "haswell"},
          {"16", "haswell"}, {"8", "x86-64-v3"}}) {
        int w = Integer.parseInt(c[0]);
        String name = "o" + w + c[1].replace('-', '_');
        new Packetizer(PacketizerOptions.builder().valueNames(true).width(w).params("uvv").targetCpu(c[1]).build()).run(m, "grid9", name);
        String k = m.function(name).orElseThrow().print();
        assertTrue(!k.contains("narrow.index") && k.contains("load <4 x float>"), k);
      }
      new Packetizer(PacketizerOptions.builder().valueNames(true).width(16).params("uvv").targetCpu("znver4").build()).run(m, "grid9", "z16");
      String z16 = m.function("z16").orElseThrow().print();
      assertTrue(z16.contains("load <4 x float>") && !z16.contains("narrow.index"), z16);
      Knobs.with("packetizer.narrowGathers", "false", () -> new Packetizer(PacketizerOptions.builder().valueNames(true).width(16).params("uvv")
          .targetCpu("sapphirerapids").build()).run(m, "grid9", "f16"));
      String f16 = m.function("f16").orElseThrow().print();
      assertTrue(f16.contains("load <4 x float>") && !f16.contains("narrow.index"), f16);
      new Packetizer(PacketizerOptions.builder().valueNames(true).width(16).params("uvv").targetCpu("sapphirerapids")
          .optimize(PacketizerOptions.Optimize.SIZE).build()).run(m, "grid9", "z16s");
      String z16s = m.function("z16s").orElseThrow().print();
      assertTrue(!z16s.contains("narrow.index"), z16s);
      Knobs.with("packetizer.narrowGathers", "true", () -> new Packetizer(PacketizerOptions.builder().valueNames(true).width(16).params("uvv")
          .targetCpu("znver4").build()).run(m, "grid9", "t16"));
      String t16 = m.function("t16").orElseThrow().print();
      assertTrue(line(t16, "%narrow.index = add").contains("<16 x i32>"), t16);
    }
  }
}
