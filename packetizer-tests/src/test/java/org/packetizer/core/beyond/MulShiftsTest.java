package org.packetizer.core.beyond;

import static org.junit.jupiter.api.Assertions.*;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.packetizer.core.Packetizer;
import org.packetizer.core.api.PacketizerOptions;
import org.packetizer.core.check.CheckResult;
import org.packetizer.core.check.DifferentialCheck;
import org.packetizer.core.check.ParamSpec;
import org.packetizer.core.check.ValueDomain;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.widen.MulShifts;

/**
 * Vector multiplies by constants on a recurrence as shifts and adds ({@code widen.MulShifts}, knob
 * {@code -Dpacketizer.mulShifts=auto|true|false}; issue 16, twenty-second round). Foreign code: {@code beyond/mul_shifts.c}
 * (FNV-1a 32 and 64-bit over a key's bytes, an LCG with a sparse multiplier that clang -O2 unrolls by 8 into a product
 * of constants, a multiply-with-carry step, a polynomial hash with a dense constant, a multiply off any recurrence, and a
 * branchy FNV loop; every loop with a per-lane trip count) compiled by the bundled clang at -O1 / -O2.
 *
 * <p>Differential, every lane against the scalar function, unmasked and masked, at W4/W8/W16 on haswell, skylake-avx512
 * and znver3, with the knob auto, true and false; the remark (and the {@code mul} gone from the function) asserted per
 * function and CPU in auto: Intel rewrites the recurrences, znver3 (multiply 3 cycles; 64-bit emulated about 6) keeps
 * all; the dense constant and the multiply off the recurrence are kept everywhere. The decomposition itself against
 * {@code x * C} on every constant below 2^16 and random 32/64-bit constants and operands (wrap-around included).
 */
class MulShiftsTest {
  static final String[] CPUS = {"haswell", "skylake-avx512", "znver3"};

  static Stream<Arguments> cases() {
    List<Arguments> out = new ArrayList<>();
    for (int w : new int[] {4, 8, 16}) for (String cpu : CPUS) for (String o : new String[] {"-O1", "-O2"}) out.add(Arguments.of(w, cpu, o));
    return out.stream();
  }

  /** The functions and their parameters (a key and a per-lane count). */
  static final Map<String, ParamSpec[]> FUNCTIONS = Map.of(
      "fnv1a32_key", new ParamSpec[] {ParamSpec.varying(ValueDomain.ints(0, 0xFFFF_FFFFL)), ParamSpec.varying(ValueDomain.ints(0, 9))},
      "fnv1a64_key", new ParamSpec[] {ParamSpec.varying(ValueDomain.ints(Long.MIN_VALUE / 2, Long.MAX_VALUE / 2)),
          ParamSpec.varying(ValueDomain.ints(0, 7))},
      "lcg_sparse", new ParamSpec[] {ParamSpec.varying(ValueDomain.ints(0, 0xFFFF_FFFFL)), ParamSpec.varying(ValueDomain.ints(0, 40))},
      "mwc64", new ParamSpec[] {ParamSpec.varying(ValueDomain.ints(Long.MIN_VALUE / 2, Long.MAX_VALUE / 2)),
          ParamSpec.varying(ValueDomain.ints(0, 30))},
      "poly_dense", new ParamSpec[] {ParamSpec.varying(ValueDomain.ints(0, 0xFFFF_FFFFL)), ParamSpec.varying(ValueDomain.ints(0, 40))},
      "scale_once", new ParamSpec[] {ParamSpec.varying(ValueDomain.ints(0, 0xFFFF_FFFFL)), ParamSpec.varying(ValueDomain.ints(0, 0xFFFF_FFFFL))},
      "fnv_branchy", new ParamSpec[] {ParamSpec.varying(ValueDomain.ints(0, 0xFFFF_FFFFL)), ParamSpec.varying(ValueDomain.ints(0, 40))});

  /**
   * Whether auto rewrites a multiply of fn on cpu at width w: FNV-1a 32's chain of 4 multiplies per iteration on Intel
   * at W4/W8, where the recurrence bounds the loop, and FNV-1a 64's chain of 8 at W4; never on znver3, the dense
   * constant or the multiply off the recurrence; null: the loop estimate decides (the LCG's and the branchy loop's single
   * multiply against their other work, W16 and FNV-1a 64 at W8 where the plan's operations per two or four registers
   * fill the issue slots; not asserted).
   */
  static Boolean expectRewrite(String fn, String cpu, int w) {
    if (cpu.equals("znver3") || fn.equals("poly_dense") || fn.equals("scale_once")) return false;
    if (fn.equals("fnv1a32_key") && w <= 8 || fn.equals("fnv1a64_key") && w == 4) return true;
    return null;
  }

  static String packetize(LlvmModule m, String fn, int w, String cpu, boolean masked, List<String> remarks) {
    String simd = fn + "_" + cpu.replace('-', '_') + (masked ? "_m" : "_v") + w + "_" + MulShifts.knob();
    new Packetizer(PacketizerOptions.builder().width(w).params("vv").masked(masked).targetCpu(cpu).verifyEachPhase(true)
        .remarks(r -> remarks.add(r.message())).build()).run(m, fn, simd);
    return simd;
  }

  static boolean rewritten(List<String> remarks) {
    return remarks.stream().anyMatch(r -> r.startsWith("multiply by a constant as shifts and adds"));
  }

  @ParameterizedTest(name = "W={0} {1} {2}")
  @MethodSource("cases")
  void agreesWithScalar(int w, String cpu, String opt) {
    for (String knob : new String[] {"auto", "true", "false"}) {
      Knobs.with("packetizer.mulShifts", knob, () -> {
        try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = PlainC.compile(ctx, "mul_shifts.c", opt, "-march=" + cpu)) {
          long seed = 31L * w + knob.hashCode();
          for (var e : FUNCTIONS.entrySet()) {
            String fn = e.getKey();
            for (boolean masked : new boolean[] {false, true}) {
              List<String> remarks = new ArrayList<>();
              String simd = packetize(m, fn, w, cpu, masked, remarks);
              Boolean expect = switch (knob) {
                case "false" -> false;
                case "true" -> !fn.equals("poly_dense");
                default -> expectRewrite(fn, cpu, w);
              };
              String text = m.function(simd).orElseThrow().print();
              if (expect != null) assertEquals(expect, rewritten(remarks), () -> simd + " knob " + knob + ": " + remarks + "\n" + text);
              List<ParamSpec> ps = new ArrayList<>(List.of(e.getValue()));
              if (masked) ps.add(ParamSpec.mask());
              try (DifferentialCheck c = DifferentialCheck.builder(m, fn, simd, w).params(ps).build()) {
                CheckResult r = c.runMany(AtomicsTest.RUNS, seed++);
                assertTrue(r.passed(), () -> simd + " knob " + knob + ":\n" + r.report() + "\n" + text);
                assertTrue(r.lanesCompared() > 0);
              }
            }
          }
        }
      });
    }
  }

  /**
   * The shape on haswell W8 (-O2): FNV-1a 32's loop has shifts and adds and no vector multiply by the prime; znver3
   * keeps the multiply; the dense constant keeps its multiply on haswell with a remark-free packet function; the
   * multiply off the recurrence is kept in auto and rewritten with the knob true; the knob false keeps everything.
   */
  @Test
  void structure() {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = PlainC.compile(ctx, "mul_shifts.c", "-O2")) {
      List<String> remarks = new ArrayList<>();
      String h = m.function(packetize(m, "fnv1a32_key", 8, "haswell", false, remarks)).orElseThrow().print();
      assertFalse(h.contains("mul <8 x i32>"), h);
      assertTrue(h.contains("shl <8 x i32>") && h.contains("add <8 x i32>"), h);
      assertTrue(remarks.stream().anyMatch(r -> r.contains("x * 16777619 = 0x1000193, 32-bit) in 8 shifts/adds/subtracts of depth 4 cycles"
          + " against the multiply's 10 on haswell (intel family), on a loop-carried recurrence")), remarks::toString);
      List<String> zr = new ArrayList<>();
      String z = m.function(packetize(m, "fnv1a32_key", 8, "znver3", false, zr)).orElseThrow().print();
      assertTrue(z.contains("mul <8 x i32>") && z.contains("splat (i32 16777619)"), z);
      assertFalse(rewritten(zr), zr::toString);
      List<String> pr = new ArrayList<>();
      String p = m.function(packetize(m, "poly_dense", 8, "haswell", false, pr)).orElseThrow().print();
      assertTrue(p.contains("mul <8 x i32>"), p);
      assertTrue(pr.stream().noneMatch(r -> r.startsWith("multiply by a constant")), pr::toString);
      List<String> sr = new ArrayList<>();
      String s = m.function(packetize(m, "scale_once", 8, "haswell", false, sr)).orElseThrow().print();
      assertTrue(s.contains("mul <8 x i32>"), s);
      Knobs.with("packetizer.mulShifts", "true", () -> {
        List<String> tr = new ArrayList<>();
        String t = m.function(packetize(m, "scale_once", 8, "znver3", false, tr)).orElseThrow().print();
        assertFalse(t.contains("mul <8 x i32>"), t);
        assertTrue(tr.stream().anyMatch(r -> r.contains("not on a recurrence (-Dpacketizer.mulShifts=true)")), tr::toString);
      });
      Knobs.with("packetizer.mulShifts", "false", () -> {
        List<String> fr = new ArrayList<>();
        String f = m.function(packetize(m, "fnv1a32_key", 8, "haswell", false, fr)).orElseThrow().print();
        assertTrue(f.contains("mul <8 x i32>"), f);
        assertFalse(rewritten(fr), fr::toString);
      });
    }
  }

  /**
   * The target is resolved only for a function with a candidate (twenty-third round): no vector multiply by a constant,
   * a multiply by a varying value, or the knob false: the target is never asked for; a vector multiply by a splat
   * constant on a recurrence: once.
   */
  @Test
  void theTargetIsAskedForOnlyWithACandidate() {
    String ir = """
        target triple = "x86_64-unknown-linux-gnu"
        define <8 x i32> @none(<8 x i32> %a, <8 x i32> %b) {
          %s = add <8 x i32> %a, %b
          ret <8 x i32> %s
        }
        define <8 x i32> @varying(<8 x i32> %a, <8 x i32> %b) {
          %s = mul <8 x i32> %a, %b
          ret <8 x i32> %s
        }
        define <8 x i32> @fnv(<8 x i32> %h0, i32 %n) {
        entry:
          br label %loop
        loop:
          %h = phi <8 x i32> [ %h0, %entry ], [ %m, %loop ]
          %i = phi i32 [ 0, %entry ], [ %i1, %loop ]
          %x = xor <8 x i32> %h, splat (i32 7)
          %m = mul <8 x i32> %x, splat (i32 16777619)
          %i1 = add i32 %i, 1
          %c = icmp ult i32 %i1, %n
          br i1 %c, label %loop, label %done
        done:
          ret <8 x i32> %m
        }
        """;
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.parseIr(ir, "cand")) {
      int[] asked = {0};
      java.util.function.Supplier<MulShifts.Target> target = () -> {
        asked[0]++;
        return new MulShifts.Target("haswell", false, 256);
      };
      for (String fn : List.of("none", "varying")) {
        assertEquals(List.of(), MulShifts.run(m.function(fn).orElseThrow(), true, target), fn);
        assertEquals(0, asked[0], fn);
      }
      Knobs.with("packetizer.mulShifts", "false", () -> MulShifts.run(m.function("fnv").orElseThrow(), true, target));
      assertEquals(0, asked[0], "knob false");
      // (not x86: auto rewrites nothing there, nor asks)
      MulShifts.run(m.function("fnv").orElseThrow(), false, target);
      assertEquals(0, asked[0], "not x86");
      List<MulShifts.Rewrite> done = MulShifts.run(m.function("fnv").orElseThrow(), true, target);
      assertEquals(1, asked[0]);
      assertEquals(1, done.size(), done::toString);
    }
  }

  /** The plans equal x * C modulo 2^32 / 2^64: every C below 2^16, C near 2^32 and 2^64, random C; random x incl. the ends. */
  @Test
  void decompositionIsExact() {
    SplittableRandom r = new SplittableRandom(16);
    long[] xs = new long[64];
    for (int i = 0; i < xs.length; i++) xs[i] = r.nextLong();
    xs[0] = 0;
    xs[1] = -1;
    xs[2] = Long.MIN_VALUE;
    xs[3] = 0xFFFF_FFFFL;
    xs[4] = 0x8000_0000L;
    List<Long> cs = new ArrayList<>();
    for (long c = 0; c < 1 << 16; c++) cs.add(c);
    for (long c = 0; c < 4096; c++) {
      cs.add(0xFFFF_FFFFL - c);
      cs.add(-1 - c);
      cs.add(r.nextLong());
      cs.add(r.nextLong() & 0xFFFF_FFFFL);
      cs.add(r.nextLong() & r.nextLong() & r.nextLong());
    }
    cs.add(16777619L);
    cs.add(1099511628211L);
    int planned = 0;
    for (long c : cs) {
      for (int bits : new int[] {32, 64}) {
        MulShifts.Plan p = MulShifts.plan(c, bits);
        long mask = bits == 64 ? -1L : 0xFFFF_FFFFL;
        if (p == null) {
          assertTrue((c & mask) == 0 || (c & mask) == 1, "no plan for " + c);
          continue;
        }
        planned++;
        for (long x : xs) {
          long want = x * c & mask;
          assertEquals(want, p.apply(x), () -> "x * " + Long.toUnsignedString(c) + " (" + bits + "-bit), x = " + x + ": " + p.describe());
        }
        // (the depth of a sum of k terms is at least log2(k) adds after the shifts; never more than 1 + 7 for 64 digits)
        assertTrue(p.depth() >= 1 && p.depth() <= 8, p::describe);
      }
    }
    assertTrue(planned > 100_000, "plans: " + planned);
    // FNV's primes: 32-bit 0x01000193 in depth 4 (six signed digits), 8 operations with 3x shared; 64-bit in depth 4
    assertEquals(4, MulShifts.plan(16777619L, 32).depth());
    assertEquals(8, MulShifts.plan(16777619L, 32).ops());
    assertEquals(4, MulShifts.plan(1099511628211L, 64).depth());
    // LLVM's own forms are left to it
    assertTrue(MulShifts.llvmLowers(33, 32) && MulShifts.llvmLowers(31, 32) && MulShifts.llvmLowers(-33, 64) && MulShifts.llvmLowers(64, 32));
    assertFalse(MulShifts.llvmLowers(16777619L, 32) || MulShifts.llvmLowers(1099511628211L, 64));
  }
}
