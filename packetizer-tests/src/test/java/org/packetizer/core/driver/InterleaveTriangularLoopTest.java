package org.packetizer.core.driver;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.*;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.packetizer.core.Packetizer;
import org.packetizer.core.api.PacketizationResult;
import org.packetizer.core.api.PacketizerOptions;
import org.packetizer.core.api.ParamKind;
import org.packetizer.core.api.Remark;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.jit.Jit;
import org.packetizer.core.toolchain.BundledClang;

/**
 * The plain driver's interleave count for the two shapes the thirteenth round's rule newly interleaves (issue 16), on
 * FOREIGN code: C compiled by the bundled clang with its -O1/-O2 pipelines.
 * <ul>
 *   <li>A triangular loop nest (an inner loop bounded by the outer loop's counter, the backward induction of a binomial
 *       tree): every lane runs the inner loop equally often, so its exit is not charged as data-dependent
 *       ({@code -Dpacketizer.interleave.outerCounterExits=false} charges it again); a bound that differs between lanes
 *       (a varying count added to the counter, or a count chosen by a varying branch) still is.</li>
 *   <li>A loop around expf at 16 lanes: two chains of 16 lanes by the plain rule's threshold since the thirteenth round
 *       ({@code -Dpacketizer.interleave.sixteenLaneLimit=true} keeps one, as before).</li>
 * </ul>
 * The interleaved drivers equal the scalar function bit for bit for every n from 0 to 3·IC·W+1, with guard elements
 * after the output untouched (host JIT: W4 SSE4.2, W8 AVX2, W16 AVX-512 registers).
 */
class InterleaveTriangularLoopTest {
  static final Linker C = Linker.nativeLinker();

  static final String SOURCE = """
      float expf(float);
      /* a binomial tree's backward induction: a private array per lane, the inner loop bounded by the outer counter */
      float rollback(float s, float x, float up) {
        float v[17];
        float st = s;
        for (int j = 0; j <= 16; ++j) { v[j] = __builtin_fmaxf(0.0f, st - x); st *= up; }
        float pu = 0.55f / up, pd = 0.44f * up;
        for (int i = 16; i > 0; --i)
          for (int j = 0; j < i; ++j) v[j] = pu * v[j + 1] + pd * v[j];
        return v[0];
      }
      /* the same nest with a varying count added to the bound: lanes run the inner loop differently often */
      float ragged(float s, int m) {
        float acc = s;
        for (int i = 8; i > 0; --i)
          for (int j = 0; j < i + m; ++j) acc = acc * 0.5f + s * (float)j * 0.25f + (float)i;
        return acc;
      }
      /* a bound chosen by a varying branch (a join of two constants, not a counter) */
      float chosen(float s) {
        int k = s > 0.0f ? 4 : 9;
        float acc = s;
        for (int j = 0; j < k; ++j) acc = acc * 0.5f + s * (float)j * 0.25f;
        return acc;
      }
      /* throughput-bound around a call to the exact expf */
      float expsum(const float *c, float x, int n) {
        float s = 0;
        for (int i = 0; i < n; i++) s += expf(c[i] * x) * 0.5f + c[i];
        return s;
      }
      """;

  static LlvmModule module(LlvmContext ctx, String opt, String march) {
    return ctx.parseBitcode(BundledClang.locate().compileToBitcode(SOURCE, "triangular.c", List.of(opt, "-march=" + march)),
        "triangular");
  }

  static Interleave.Choice choose(String property, String value, LlvmModule m, String fn, int w, List<ParamKind> kinds) {
    if (property != null) System.setProperty(property, value);
    try {
      return Interleave.choose(m.function(fn).orElseThrow(), w, 0, Math.max(128, 32 * w), w >= 16 ? 32 : 16, false, kinds);
    } finally {
      if (property != null) System.clearProperty(property);
    }
  }

  static final List<ParamKind> VVV = List.of(new ParamKind.Varying(), new ParamKind.Varying(), new ParamKind.Varying());

  /**
   * The triangular nest is not charged as a data-dependent exit and gets two chains at W4, W8 and W16; with the knob
   * off, it is charged and keeps one. The ragged and chosen bounds stay data-dependent.
   */
  @ParameterizedTest(name = "{0}")
  @CsvSource({"-O1", "-O2"})
  void anInnerLoopBoundedByTheOuterCounterIsNotChargedAsDivergent(String opt) {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = module(ctx, opt, "haswell")) {
      for (int w : new int[] {4, 8, 16}) {
        Interleave.Choice c = choose(null, null, m, "rollback", w, VVV);
        String why = opt + " W" + w + ": " + c.describe(w);
        assertFalse(c.loops().isEmpty(), why);
        assertTrue(c.loops().stream().noneMatch(Interleave.LoopEstimate::dataDependentExit), why);
        assertEquals(2, c.factor(), why);
        Interleave.Choice off = choose("packetizer.interleave.outerCounterExits", "false", m, "rollback", w, VVV);
        assertTrue(off.loops().stream().anyMatch(Interleave.LoopEstimate::dataDependentExit), off.describe(w));
        assertEquals(1, off.factor(), "knob off: " + off.describe(w));
      }
      Interleave.Choice ragged = choose(null, null, m, "ragged", 8, List.of(new ParamKind.Varying(), new ParamKind.Varying()));
      assertTrue(ragged.loops().stream().anyMatch(Interleave.LoopEstimate::dataDependentExit), ragged.describe(8));
      Interleave.Choice uniformM = choose(null, null, m, "ragged", 8, List.of(new ParamKind.Varying(), new ParamKind.Uniform()));
      assertTrue(uniformM.loops().stream().noneMatch(Interleave.LoopEstimate::dataDependentExit),
          "a uniform count added to the counter: " + uniformM.describe(8));
      Interleave.Choice chosen = choose(null, null, m, "chosen", 8, List.of(new ParamKind.Varying()));
      assertTrue(chosen.loops().stream().anyMatch(Interleave.LoopEstimate::dataDependentExit), chosen.describe(8));
    }
  }

  /** Bounds that look like counters but differ between lanes (IR, since clang folds such joins into selects). */
  static final String NOT_COUNTERS = """
      define float @joined(float %s) {
      entry:
        %pos = fcmp ogt float %s, 0.0
        br i1 %pos, label %a, label %b
      a:
        br label %pre
      b:
        br label %pre
      pre:
        %k = phi i32 [ 4, %a ], [ 9, %b ]
        br label %loop
      loop:
        %j = phi i32 [ 0, %pre ], [ %j.next, %loop ]
        %acc = phi float [ %s, %pre ], [ %acc.next, %loop ]
        %fj = sitofp i32 %j to float
        %t = fmul float %fj, %s
        %acc.next = fadd float %acc, %t
        %j.next = add i32 %j, 1
        %more = icmp slt i32 %j.next, %k
        br i1 %more, label %loop, label %done
      done:
        ret float %acc.next
      }
      define float @twosteps(float %s) {
      entry:
        br label %outer
      outer:
        %i = phi i32 [ 8, %entry ], [ %i.one, %by1 ], [ %i.two, %by2 ]
        %acc.o = phi float [ %s, %entry ], [ %acc.last, %by1 ], [ %acc.last, %by2 ]
        br label %inner
      inner:
        %j = phi i32 [ 0, %outer ], [ %j.next, %inner ]
        %acc = phi float [ %acc.o, %outer ], [ %acc.next, %inner ]
        %fj = sitofp i32 %j to float
        %t = fmul float %fj, %s
        %acc.next = fadd float %acc, %t
        %j.next = add i32 %j, 1
        %more = icmp slt i32 %j.next, %i
        br i1 %more, label %inner, label %latch
      latch:
        %acc.last = phi float [ %acc.next, %inner ]
        %big = fcmp ogt float %acc.last, 100.0
        br i1 %big, label %by2, label %by1
      by1:
        %i.one = add i32 %i, -1
        %go1 = icmp sgt i32 %i.one, 0
        br i1 %go1, label %outer, label %done
      by2:
        %i.two = add i32 %i, -2
        %go2 = icmp sgt i32 %i.two, 0
        br i1 %go2, label %outer, label %done
      done:
        %r = phi float [ %acc.last, %by1 ], [ %acc.last, %by2 ]
        ret float %r
      }
      """;

  /**
   * A bound joined from two constants by a varying branch, and an outer counter whose step a varying branch chooses, are
   * still data-dependent exits.
   */
  @org.junit.jupiter.api.Test
  void boundsThatDifferBetweenLanesStayDataDependent() {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.parseIr(NOT_COUNTERS, "notcounters")) {
      for (String fn : List.of("joined", "twosteps")) {
        Interleave.Choice c = choose(null, null, m, fn, 8, List.of(new ParamKind.Varying()));
        assertTrue(c.loops().stream().anyMatch(Interleave.LoopEstimate::dataDependentExit), fn + ": " + c.describe(8));
      }
    }
  }

  /**
   * A throughput-bound loop around expf gets two chains of 16 lanes by default, one with
   * {@code -Dpacketizer.interleave.sixteenLaneLimit=true}, and its W16 driver is the interleaved one.
   */
  @ParameterizedTest(name = "{0}")
  @CsvSource({"-O1", "-O2"})
  void twoChainsOfSixteenLanesAroundMathCalls(String opt) {
    List<ParamKind> uvu = List.of(new ParamKind.Uniform(), new ParamKind.Varying(), new ParamKind.Uniform());
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = module(ctx, opt, "skylake-avx512")) {
      Interleave.Choice w16 = choose(null, null, m, "expsum", 16, uvu);
      assertEquals(2, w16.factor(), w16.describe(16));
      Interleave.Choice limited = choose("packetizer.interleave.sixteenLaneLimit", "true", m, "expsum", 16, uvu);
      assertEquals(1, limited.factor(), limited.describe(16));
      assertEquals(2, choose("packetizer.interleave.sixteenLaneLimit", "true", m, "expsum", 8, uvu).factor(), "W8: 16 lanes");
    }
  }

  /**
   * The drivers of rollback (W4, W8, W16) and expsum (W16, exact expf) with the rule's choice, two chains, equal the
   * scalar function bit for bit for every n from 0 to 3·2W+1, guard elements after the output untouched.
   */
  @ParameterizedTest(name = "{0} {1} W={2}")
  @CsvSource({"rollback,-O1,4", "rollback,-O2,4", "rollback,-O1,8", "rollback,-O2,8", "rollback,-O1,16", "rollback,-O2,16",
      "expsum,-O1,16", "expsum,-O2,16"})
  void theInterleavedDriversMatchTheScalarFunctionForEveryN(String fn, String opt, int w) throws Throwable {
    String march = w == 4 ? "x86-64-v2" : w == 8 ? "haswell" : "skylake-avx512";
    boolean roll = fn.equals("rollback");
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = module(ctx, opt, march)) {
      List<Remark> remarks = new ArrayList<>();
      PacketizationResult r = new Packetizer(PacketizerOptions.builder().width(w).params(roll ? "vvv" : "uvu").arrayDriver(true)
          .vectorMath(PacketizerOptions.VectorMath.INTRINSICS).verifyEachPhase(true).remarks(remarks::add).build())
          .run(m, fn, fn + "_v" + w);
      assertTrue(r.driver().orElseThrow().maskedFunction().contains(".x2."), remarks.toString());
      int step = 2 * w;
      try (Jit jit = Jit.host(); Arena arena = Arena.ofConfined()) {
        jit.addModule(m);
        Random rnd = new Random(31 * w + opt.length() + fn.length());
        if (roll) {
          MethodHandle map = C.downcallHandle(MemorySegment.ofAddress(jit.lookup("rollback_map")),
              FunctionDescriptor.ofVoid(ADDRESS, ADDRESS, ADDRESS, ADDRESS, JAVA_LONG));
          MethodHandle scalar = C.downcallHandle(MemorySegment.ofAddress(jit.lookup("rollback")),
              FunctionDescriptor.of(JAVA_FLOAT, JAVA_FLOAT, JAVA_FLOAT, JAVA_FLOAT));
          for (int n = 0; n <= 3 * step + 1; n++) {
            MemorySegment[] in = new MemorySegment[3];
            for (int a = 0; a < 3; a++) in[a] = arena.allocate(JAVA_FLOAT, Math.max(1, n));
            MemorySegment out = arena.allocate(JAVA_FLOAT, n + step);
            out.fill((byte) 0x5a);
            for (int i = 0; i < n; i++) {
              in[0].setAtIndex(JAVA_FLOAT, i, 5 + 95 * rnd.nextFloat());
              in[1].setAtIndex(JAVA_FLOAT, i, 5 + 95 * rnd.nextFloat());
              in[2].setAtIndex(JAVA_FLOAT, i, 1.01f + 0.2f * rnd.nextFloat());
            }
            map.invokeExact(in[0], in[1], in[2], out, (long) n);
            for (int i = 0; i < n; i++) {
              float want = (float) scalar.invokeExact(in[0].getAtIndex(JAVA_FLOAT, i), in[1].getAtIndex(JAVA_FLOAT, i),
                  in[2].getAtIndex(JAVA_FLOAT, i));
              assertEquals(Float.floatToRawIntBits(want), Float.floatToRawIntBits(out.getAtIndex(JAVA_FLOAT, i)),
                  fn + " " + opt + " W" + w + " n=" + n + " element " + i);
            }
            for (int i = n; i < n + step; i++) {
              assertEquals(0x5a5a5a5a, out.getAtIndex(JAVA_INT, i), fn + " " + opt + " W" + w + " n=" + n + ": guard " + i);
            }
          }
        } else {
          MethodHandle map = C.downcallHandle(MemorySegment.ofAddress(jit.lookup("expsum_map")),
              FunctionDescriptor.ofVoid(ADDRESS, ADDRESS, JAVA_INT, ADDRESS, JAVA_LONG));
          MethodHandle scalar = C.downcallHandle(MemorySegment.ofAddress(jit.lookup("expsum")),
              FunctionDescriptor.of(JAVA_FLOAT, ADDRESS, JAVA_FLOAT, JAVA_INT));
          int terms = 5;
          MemorySegment c = arena.allocate(JAVA_FLOAT, terms);
          for (int i = 0; i < terms; i++) c.setAtIndex(JAVA_FLOAT, i, -2 + 4 * rnd.nextFloat());
          for (int n = 0; n <= 3 * step + 1; n++) {
            MemorySegment x = arena.allocate(JAVA_FLOAT, Math.max(1, n));
            MemorySegment out = arena.allocate(JAVA_FLOAT, n + step);
            out.fill((byte) 0x5a);
            // every few elements outside expf's fast path (a huge product: the libm call of the lane)
            for (int i = 0; i < n; i++) x.setAtIndex(JAVA_FLOAT, i, i % 7 == 3 ? 80f : -3 + 6 * rnd.nextFloat());
            map.invokeExact(c, x, terms, out, (long) n);
            for (int i = 0; i < n; i++) {
              float want = (float) scalar.invokeExact(c, x.getAtIndex(JAVA_FLOAT, i), terms);
              assertEquals(Float.floatToRawIntBits(want), Float.floatToRawIntBits(out.getAtIndex(JAVA_FLOAT, i)),
                  fn + " " + opt + " W" + w + " n=" + n + " element " + i);
            }
            for (int i = n; i < n + step; i++) {
              assertEquals(0x5a5a5a5a, out.getAtIndex(JAVA_INT, i), fn + " " + opt + " W" + w + " n=" + n + ": guard " + i);
            }
          }
        }
      }
    }
  }
}
