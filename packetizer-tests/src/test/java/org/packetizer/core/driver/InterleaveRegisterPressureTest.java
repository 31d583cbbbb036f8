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
import org.junit.jupiter.api.Test;
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
 * Register pressure and the plain driver's interleave count (issue 16, twelfth round) on FOREIGN code: C
 * compiled by the bundled clang with its -O1/-O2 pipelines. Two changes to {@link Interleave}'s rule, each
 * with its knob: values from outside a loop are not charged as spills when two chains need more registers
 * than the target has ({@code -Dpacketizer.interleave.invariantSpills=charged} restores the charge: the
 * register allocator spills them once before the loop and reads them back as memory operands), and the plain
 * driver interleaves unless the estimate says two chains are slower ({@code -Dpacketizer.interleave.minGain},
 * default 1.0, was 1.2). The drivers the changed rule now interleaves agree with the scalar function for
 * every n from 0 to 3·IC·W+1, with guard elements after the output.
 */
class InterleaveRegisterPressureTest {
  static final Linker C = Linker.nativeLinker();

  static final String SOURCE = """
      /* throughput-bound: much independent work per iteration around a one-fadd recurrence */
      float polysum(const float *c, float x, int n) {
        float s = 0;
        for (int i = 0; i < n; i++) {
          float v = c[i] * x;
          float p = ((((v * 1.5f + 1.f) * v + 2.f) * v + 3.f) * v + 4.f) * v + 5.f;
          float q = ((((v * 0.5f + x) * v + 2.f) * v - 3.f) * v + 4.f) * v + 9.f;
          float r = ((((v * 0.25f - x) * v + 7.f) * v - 1.f) * v + 2.f) * v + 11.f;
          s += p * q + q * r + p / q;
        }
        return s;
      }
      /* a recurrence through a division, and nine values computed before the loop from the varying
         parameters (a frame around n and an origin, as an ambient-occlusion sample loop uses them) */
      float frameloop(float nx, float ny, float nz, float ox, float oy, float oz, int n) {
        float l = 1.0f / __builtin_sqrtf(nx * nx + ny * ny + nz * nz + 1e-6f);
        float ax = nx * l, ay = ny * l, az = nz * l;
        float bx = ay - az, by = az - ax, bz = ax - ay;
        float cx = ay * bz - az * by, cy = az * bx - ax * bz, cz = ax * by - ay * bx;
        float t = 0.25f, acc = 0.0f;
        for (int k = 0; k < n; k++) {
          float px = ox + t * ax + 0.5f * bx + 0.25f * cx;
          float py = oy + t * ay + 0.5f * by + 0.25f * cy;
          float pz = oz + t * az + 0.5f * bz + 0.25f * cz;
          float d = px * px + py * py + pz * pz;
          t = t * 0.75f + 1.0f / (1.0f + d);
          acc += d;
        }
        return acc + t;
      }
      /* throughput-bound around a call to the exact expf */
      float expsum(const float *c, float x, int n) {
        float s = 0;
        for (int i = 0; i < n; i++) s += expf(c[i] * x) * 0.5f + c[i];
        return s;
      }
      """;

  static LlvmModule module(LlvmContext ctx, String opt) {
    return ctx.parseBitcode(BundledClang.locate().compileToBitcode(HEADER + SOURCE, "pressure.c", List.of(opt, "-march=haswell")),
        "pressure");
  }

  static final String HEADER = "float expf(float);\n";

  static final List<ParamKind> POLYSUM = List.of(new ParamKind.Uniform(), new ParamKind.Varying(), new ParamKind.Uniform());

  static Interleave.Choice chooseWith(String property, String value, LlvmModule m, String fn, int registers, List<ParamKind> kinds) {
    if (property != null) System.setProperty(property, value);
    try {
      return Interleave.choose(m.function(fn).orElseThrow(), 8, 0, 256, registers, false, kinds);
    } finally {
      if (property != null) System.clearProperty(property);
    }
  }

  /**
   * polysum with a uniform table: 8 live values, 14 registers at IC 2 (two chains of the loop-carried sum, the
   * varying x and the values computed from it outside the loop; the table pointer and the trip count shared).
   * With 16 registers nothing is spilled and both settings interleave; with 8 (32-bit x86's xmm0-7) the rule
   * charged 6 spilled registers as a store and a reload per iteration each and kept one chain; the loop-carried
   * values fit, the rest are values from outside the loop, which are not charged by default.
   */
  @ParameterizedTest(name = "{0}")
  @CsvSource({"-O1", "-O2"})
  void valuesFromOutsideTheLoopAreNotChargedAsSpills(String opt) {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = module(ctx, opt)) {
      Interleave.Choice wide = chooseWith(null, null, m, "polysum", 16, POLYSUM);
      Interleave.Choice wideCharged = chooseWith("packetizer.interleave.invariantSpills", "charged", m, "polysum", 16, POLYSUM);
      assertTrue(wide.loops().stream().allMatch(l -> l.registersNeeded() <= 16), wide.describe(8));
      assertEquals(2, wide.factor(), wide.describe(8));
      assertEquals(2, wideCharged.factor(), "nothing spilled, nothing charged: " + wideCharged.describe(8));
      Interleave.Choice few = chooseWith(null, null, m, "polysum", 8, POLYSUM);
      Interleave.Choice fewCharged = chooseWith("packetizer.interleave.invariantSpills", "charged", m, "polysum", 8, POLYSUM);
      assertTrue(few.loops().size() == 1 && few.loops().get(0).registersNeeded() > 8 && few.loops().get(0).registersNeeded() <= 16,
          few.describe(8));
      assertEquals(2, few.factor(), "values from outside the loop read back as memory operands: " + few.describe(8));
      assertEquals(1, fewCharged.factor(), "every register beyond 8 charged as a store and a reload: " + fewCharged.describe(8));
      // beyond twice the registers: never, whatever is charged
      int half = (few.loops().get(0).registersNeeded() - 1) / 2;
      assertEquals(1, chooseWith(null, null, m, "polysum", half, POLYSUM).factor(), "at " + half + " registers");
    }
  }

  /**
   * A loop bound by throughput (the estimate: two chains take twice the time of one, gain 1.0) is interleaved
   * by default, not under the earlier threshold 1.2; a latency-bound one under both; a non-number names the knob.
   */
  @Test
  void throughputBoundLoopsInterleaveUnlessTwoChainsAreEstimatedSlower() {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = module(ctx, "-O2")) {
      Interleave.Choice ps = chooseWith(null, null, m, "polysum", 16, POLYSUM);
      Interleave.LoopEstimate e = ps.loops().get(0);
      assertTrue(e.throughput() > e.latency(), "throughput-bound: " + ps.describe(8));
      assertEquals(2, ps.factor(), ps.describe(8));
      assertTrue(ps.describe(8).endsWith("-> IC 2"), ps.describe(8));
      Interleave.Choice old = chooseWith("packetizer.interleave.minGain", "1.2", m, "polysum", 16, POLYSUM);
      assertEquals(1, old.factor(), old.describe(8));
      List<ParamKind> frame = List.of(new ParamKind.Varying(), new ParamKind.Varying(), new ParamKind.Varying(),
          new ParamKind.Varying(), new ParamKind.Varying(), new ParamKind.Varying(), new ParamKind.Uniform());
      Interleave.Choice lat = Interleave.choose(m.function("frameloop").orElseThrow(), 8, 0, 256, 32, false, frame);
      assertTrue(lat.loops().get(0).latency() > lat.loops().get(0).throughput(), lat.describe(8));
      assertEquals(2, lat.factor(), lat.describe(8));
      assertEquals(2, chooseWith("packetizer.interleave.minGain", "1.2", m, "frameloop", 32, frame).factor());
      IllegalArgumentException bad = assertThrows(IllegalArgumentException.class,
          () -> chooseWith("packetizer.interleave.minGain", "fast", m, "polysum", 16, POLYSUM));
      assertTrue(bad.getMessage().contains("packetizer.interleave.minGain") && bad.getMessage().contains("fast"), bad.getMessage());
    }
  }

  /**
   * Under {@code -Dpacketizer.interleave.sixteenLaneLimit=true} (the twelfth round's rule) the lower threshold applies up
   * to 16 lanes per step, or to functions calling only intrinsics that are one instruction per register: a
   * throughput-bound loop around expf gets two chains at W8 (16 lanes), one at W16, whose driver builds. By default (the
   * thirteenth round, two chains of 16 lanes timed) W16 gets two: InterleaveTriangularLoopTest.
   */
  @Test
  void theLowerThresholdKeepsToSixteenLanesAroundMathCallsUnderTheLimitKnob() {
    System.setProperty("packetizer.interleave.sixteenLaneLimit", "true");
    try (LlvmContext ctx = LlvmContext.create();
         LlvmModule m = ctx.parseBitcode(BundledClang.locate().compileToBitcode(HEADER + SOURCE, "pressure.c",
             List.of("-O2", "-march=skylake-avx512")), "pressure")) {
      assertFalse(Interleave.onlyCheapCalls(m.function("expsum").orElseThrow()));
      assertTrue(Interleave.onlyCheapCalls(m.function("polysum").orElseThrow()));
      Interleave.Choice w8 = Interleave.choose(m.function("expsum").orElseThrow(), 8, 0, 256, 16, false, POLYSUM);
      assertEquals(2, w8.factor(), w8.describe(8));
      Interleave.Choice w16 = Interleave.choose(m.function("expsum").orElseThrow(), 16, 0, 512, 32, false, POLYSUM);
      assertEquals(1, w16.factor(), w16.describe(16));
      Interleave.Choice poly16 = Interleave.choose(m.function("polysum").orElseThrow(), 16, 0, 512, 32, false, POLYSUM);
      assertEquals(2, poly16.factor(), poly16.describe(16));
      List<Remark> remarks = new ArrayList<>();
      PacketizationResult r = new Packetizer(PacketizerOptions.builder().width(16).params("uvu").arrayDriver(true)
          .remarks(remarks::add).build()).run(m, "expsum", "expsum_v16");
      assertEquals("expsum_v16.masked", r.driver().orElseThrow().maskedFunction(), remarks.toString());
    } finally {
      System.clearProperty("packetizer.interleave.sixteenLaneLimit");
    }
  }

  /**
   * The drivers the rule now interleaves compute what the scalar function computes, bit for bit, for every n from 0
   * to 3·IC·W+1, with guard elements after the output untouched (W4 SSE4.2, W8 AVX2, W16 AVX-512 registers of the
   * host's JIT; clang -O1 and -O2).
   */
  @ParameterizedTest(name = "{0} W={1}")
  @CsvSource({"-O1,4", "-O1,8", "-O2,4", "-O2,8", "-O2,16"})
  void theInterleavedDriversMatchTheScalarFunctionForEveryN(String opt, int w) throws Throwable {
    try (LlvmContext ctx = LlvmContext.create();
         LlvmModule m = ctx.parseBitcode(BundledClang.locate().compileToBitcode(HEADER + SOURCE, "pressure.c",
             List.of(opt, w == 4 ? "-march=x86-64-v2" : w == 8 ? "-march=haswell" : "-march=skylake-avx512")), "pressure")) {
      List<Remark> remarks = new ArrayList<>();
      PacketizationResult r = new Packetizer(PacketizerOptions.builder().width(w).params("uvu").arrayDriver(true)
          .verifyEachPhase(true).remarks(remarks::add).build()).run(m, "polysum", "polysum_v" + w);
      assertTrue(r.driver().orElseThrow().maskedFunction().contains(".x2."), remarks.toString());
      int step = 2 * w;
      try (Jit jit = Jit.host(); Arena arena = Arena.ofConfined()) {
        jit.addModule(m);
        MethodHandle map = C.downcallHandle(MemorySegment.ofAddress(jit.lookup("polysum_map")),
            FunctionDescriptor.ofVoid(ADDRESS, ADDRESS, JAVA_INT, ADDRESS, JAVA_LONG));
        MethodHandle scalar = C.downcallHandle(MemorySegment.ofAddress(jit.lookup("polysum")),
            FunctionDescriptor.of(JAVA_FLOAT, ADDRESS, JAVA_FLOAT, JAVA_INT));
        Random rnd = new Random(17 * w + opt.length());
        int terms = 7;
        MemorySegment c = arena.allocate(JAVA_FLOAT, terms);
        for (int i = 0; i < terms; i++) c.setAtIndex(JAVA_FLOAT, i, -1 + 2 * rnd.nextFloat());
        for (int n = 0; n <= 3 * step + 1; n++) {
          MemorySegment x = arena.allocate(JAVA_FLOAT, Math.max(1, n));
          MemorySegment out = arena.allocate(JAVA_FLOAT, n + step);
          out.fill((byte) 0x5a);
          for (int i = 0; i < n; i++) x.setAtIndex(JAVA_FLOAT, i, -1.5f + 3 * rnd.nextFloat());
          map.invokeExact(c, x, terms, out, (long) n);
          for (int i = 0; i < n; i++) {
            float want = (float) scalar.invokeExact(c, x.getAtIndex(JAVA_FLOAT, i), terms);
            assertEquals(Float.floatToRawIntBits(want), Float.floatToRawIntBits(out.getAtIndex(JAVA_FLOAT, i)),
                opt + " W" + w + " n=" + n + " element " + i);
          }
          for (int i = n; i < n + step; i++) {
            assertEquals(0x5a5a5a5a, out.getAtIndex(JAVA_INT, i), opt + " W" + w + " n=" + n + ": guard " + i);
          }
        }
      }
    }
  }
}
