package org.packetizer.core.mapping;

import static java.lang.foreign.ValueLayout.*;
import static org.junit.jupiter.api.Assertions.*;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
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
import org.packetizer.core.api.Remark;
import org.packetizer.core.check.CheckResult;
import org.packetizer.core.check.DifferentialCheck;
import org.packetizer.core.check.Inputs;
import org.packetizer.core.ir.Function;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.ir.Opcode;
import org.packetizer.core.ir.Value;
import org.packetizer.core.jit.Jit;
import org.packetizer.core.toolchain.BundledClang;

/**
 * exp2f, log2f and powf in the bit-exact default ({@link GlibcPow}, issue 16): the packet function
 * computes glibc's algorithm on vectors and agrees with glibc's scalar functions bit for bit on
 * millions of random inputs and every special and boundary class (powf: random pairs over every
 * exponent pair, integer y with negative x, pairs straddling overflow and underflow, x near 1), at W4
 * (x86-64-v2: exp2f and log2f plain; powf stays per lane, as glibc's FMA build is the one a
 * machine with FMA uses), W8 (haswell) and W16 (x86-64-v4), with no per-lane call left in the packet
 * function where the route is taken; under partial masks (a shading kernel's powf under a branch)
 * through the differential check with guard pages; and powf's two-argument run-time guard.
 */
class GlibcPowTest {
  static final Linker C = Linker.nativeLinker();
  static final String ROUTE = "glibc-exact vector (verified at run time)";

  static final String SOURCE = """
      float exp2f(float);
      float log2f(float);
      float powf(float, float);
      float nextafterf(float, float);
      float k_exp2f(float x) { return exp2f(x); }
      float k_log2f(float x) { return log2f(x); }
      float k_powf(float x, float y) { return powf(x, y); }
      void ref_exp2f(const float *in, float *out, long n) { for (long i = 0; i < n; i++) out[i] = exp2f(in[i]); }
      void ref_log2f(const float *in, float *out, long n) { for (long i = 0; i < n; i++) out[i] = log2f(in[i]); }
      void ref_powf(const float *x, const float *y, float *out, long n) { for (long i = 0; i < n; i++) out[i] = powf(x[i], y[i]); }
      /* a shading kernel's specular term: powf on the lanes facing the light only (a partial mask) */
      float k_shade(float d, float s) {
        float spec = 0.0f;
        if (d > 0.0f) spec = powf(d, s);
        if (s > 40.0f) spec += exp2f(d - s * 0.125f);
        else if (d < -1.0f) spec -= log2f(-d);
        return spec;
      }
      int fake_calls;
      float honest_powf(float x, float y) { fake_calls++; return powf(x, y); }
      float other_powf(float x, float y) { fake_calls++; return nextafterf(powf(x, y), 1.0f / 0.0f); }
      float honest_exp2f(float x) { fake_calls++; return exp2f(x); }
      float other_exp2f(float x) { fake_calls++; return nextafterf(exp2f(x), 1.0f / 0.0f); }
      float honest_log2f(float x) { fake_calls++; return log2f(x); }
      float other_log2f(float x) { fake_calls++; return nextafterf(log2f(x), 1.0f / 0.0f); }
      """;

  static Stream<Arguments> widths() {
    // plus W32 on AVX2: more lanes than the guards' 16 probes (an internal error before the twelfth round); the
    // twenty-first round's routes per CPU: Intel's AVX2 gathers (skylake W8 with the pairs by the halves, haswell W16 with
    // the pairs by scalar loads), AMD's AVX2 scalar loads (znver3 W8), Intel's AVX-512 permutes (icelake-server W16)
    return Stream.concat(MathSources.ISAS.stream().map(i -> Arguments.of(i.width(), i.march())), Stream.of(Arguments.of(32, "haswell"),
        Arguments.of(8, "skylake"), Arguments.of(16, "haswell"), Arguments.of(8, "znver3"), Arguments.of(16, "icelake-server")));
  }

  static boolean hostRuns(String march) { return GlibcExactMathTest.hostRuns(march); }

  static boolean powRoute(String march) { return !march.equals("x86-64-v2"); }

  static LlvmModule compile(LlvmContext ctx, String march) {
    return ctx.load(BundledClang.locate().compileToBitcode(SOURCE, "glibcpow.c", List.of("-O2", "-march=" + march, "-nostdlibinc")), "glibcpow.c");
  }

  /** The logc column of the log2 table is log2(c) for the table's 1/c (the numbers were transcribed from libm's data). */
  @Test
  void log2TableIsConsistent() {
    for (int i = 0; i < 16; i++) {
      double invc = GlibcMath.LOG_TABLE[i][0];
      double want = -Math.log(invc) / Math.log(2);
      assertEquals(want, GlibcPow.LOG2_LOGC[i], 4e-16, "entry " + i);
      // logf's log c, divided by ln 2, is the same number
      assertEquals(GlibcMath.LOG_TABLE[i][1] / Math.log(2), GlibcPow.LOG2_LOGC[i], 4e-16, "entry " + i);
    }
  }

  /** Special and boundary values. */
  static final int[] SPECIALS = GlibcPowSweep.SPECIALS;

  @ParameterizedTest(name = "W={0} {1}")
  @MethodSource("widths")
  void bitIdenticalToGlibcOnRandomAndSpecialInputs(int w, String march) throws Throwable {
    Assumptions.assumeTrue(hostRuns(march), "SKIPPED (LOUD): the host cannot run " + march + " code");
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = compile(ctx, march)) {
      for (String fn : List.of("exp2f", "log2f", "powf")) {
        List<Remark> rem = new ArrayList<>();
        new Packetizer(PacketizerOptions.builder().width(w).vectorMath(PacketizerOptions.VectorMath.INTRINSICS).params(fn.equals("powf") ? "vv" : "v")
            .arrayDriver("*_map").verifyEachPhase(true).remarks(rem::add).build()).run(m, "k_" + fn, "k_" + fn + "_v" + w);
        boolean routed = rem.stream().anyMatch(r -> r.kind() == Remark.Kind.VECTORIZED_CALL && r.message().contains(ROUTE));
        boolean expected = !fn.equals("powf") || powRoute(march);
        assertEquals(expected, routed, fn + " " + march + ": " + rem);
        if (expected) GlibcExactMathTest.assertNoPerLaneLibmCall(m.function("k_" + fn + "_v" + w).orElseThrow(), fn);
      }
      try (Jit jit = Jit.host(); Arena arena = Arena.ofConfined()) {
        jit.addModule(m);
        int n = 1 << 20;
        MemorySegment x = arena.allocate(4L * n, 64), y = arena.allocate(4L * n, 64);
        MemorySegment want = arena.allocate(4L * n, 64), got = arena.allocate(4L * n, 64);
        SplittableRandom rnd = new SplittableRandom(0x216 + w);
        for (int i = 0; i < n; i++) {
          int xb, yb;
          if (i < SPECIALS.length * SPECIALS.length) {
            xb = SPECIALS[i / SPECIALS.length];
            yb = SPECIALS[i % SPECIALS.length];
          } else {
            switch (i % 6) {
              case 0 -> { xb = Float.floatToRawIntBits((float) (rnd.nextDouble() * 300 - 150)); yb = Float.floatToRawIntBits((float) (rnd.nextDouble() * 8 - 4)); }
              case 1 -> { xb = Float.floatToRawIntBits((float) Math.scalb(rnd.nextDouble() + 0.5, rnd.nextInt(-150, 129))); yb = Float.floatToRawIntBits((float) (rnd.nextDouble() * 100 - 50)); }
              case 2 -> { xb = rnd.nextInt(); yb = rnd.nextInt(); }
              case 3 -> { xb = (rnd.nextInt(2) << 31) | (rnd.nextInt(100, 150) << 23) | (rnd.nextInt() & 0x7fffff); yb = Float.floatToRawIntBits((float) rnd.nextInt(-40, 41)); }
              case 4 -> { // y·log2 x near the overflow and underflow thresholds
                float xv = Float.intBitsToFloat(rnd.nextInt(0x00800000, 0x7f800000));
                double t = new double[] {128, -126, -149, -150}[rnd.nextInt(4)];
                xb = Float.floatToRawIntBits(xv);
                yb = Float.floatToRawIntBits((float) (t * Math.log(2) / Math.log(xv))) + rnd.nextInt(-4, 5);
              }
              default -> { xb = 0x3f800000 + rnd.nextInt(-4096, 4097); yb = (rnd.nextInt(2) << 31) | (rnd.nextInt(135, 160) << 23) | (rnd.nextInt() & 0x7fffff); }
            }
          }
          x.setAtIndex(JAVA_INT, i, xb);
          y.setAtIndex(JAVA_INT, i, yb);
        }
        for (String fn : List.of("exp2f", "log2f", "powf")) {
          boolean bin = fn.equals("powf");
          FunctionDescriptor fd = bin ? FunctionDescriptor.ofVoid(ADDRESS, ADDRESS, ADDRESS, JAVA_LONG) : FunctionDescriptor.ofVoid(ADDRESS, ADDRESS, JAVA_LONG);
          MethodHandle ref = C.downcallHandle(MemorySegment.ofAddress(jit.lookup("ref_" + fn)), fd);
          MethodHandle drv = C.downcallHandle(MemorySegment.ofAddress(jit.lookup("k_" + fn + "_map")), fd);
          // a length that leaves a masked remainder
          if (bin) {
            ref.invokeExact(x, y, want, (long) n - 3);
            drv.invokeExact(x, y, got, (long) n - 3);
          } else {
            ref.invokeExact(x, want, (long) n - 3);
            drv.invokeExact(x, got, (long) n - 3);
          }
          List<String> bad = new ArrayList<>();
          for (int i = 0; i < n - 3 && bad.size() < 10; i++) {
            int a = want.getAtIndex(JAVA_INT, i), b = got.getAtIndex(JAVA_INT, i);
            if (a != b) {
              bad.add(String.format("%s(0x%08x%s) = 0x%08x, packet 0x%08x", fn, x.getAtIndex(JAVA_INT, i),
                  bin ? String.format(", 0x%08x", y.getAtIndex(JAVA_INT, i)) : "", a, b));
            }
          }
          assertTrue(bad.isEmpty(), "W=" + w + " " + march + ":\n" + String.join("\n", bad));
        }
      }
    }
  }

  /** The shading kernel: powf, exp2f and log2f under partial masks, through the differential check with guard pages. */
  @ParameterizedTest(name = "W={0} {1}")
  @MethodSource("widths")
  void partialMasksMatchTheScalarFunction(int w, String march) throws Throwable {
    Assumptions.assumeTrue(hostRuns(march), "SKIPPED (LOUD): the host cannot run " + march + " code");
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = compile(ctx, march)) {
      List<Remark> rem = new ArrayList<>();
      new Packetizer(PacketizerOptions.builder().width(w).vectorMath(PacketizerOptions.VectorMath.INTRINSICS).params("vv").verifyEachPhase(true)
          .remarks(rem::add).build()).run(m, "k_shade", "k_shade_v" + w);
      assertEquals(powRoute(march) ? 3 : 2, rem.stream().filter(r -> r.kind() == Remark.Kind.VECTORIZED_CALL && r.message().contains(ROUTE)).count(),
          rem.toString());
      try (DifferentialCheck c = DifferentialCheck.builder(m, "k_shade", "k_shade_v" + w, w).guardPages(true).build()) {
        SplittableRandom rnd = new SplittableRandom(w);
        for (int run = 0; run < 3000; run++) {
          float[] d = new float[w], s = new float[w];
          for (int k = 0; k < w; k++) {
            d[k] = run % 4 == 0 ? Float.intBitsToFloat(SPECIALS[rnd.nextInt(SPECIALS.length)]) : (float) (rnd.nextDouble() * 4 - 2);
            s[k] = run % 3 == 0 ? (float) rnd.nextInt(1, 200) : (float) (rnd.nextDouble() * 120);
            if (run % 7 == 0) s[k] = Float.intBitsToFloat(SPECIALS[rnd.nextInt(SPECIALS.length)]);
          }
          CheckResult res = c.run(Inputs.of(run, d, s));
          assertTrue(res.passed(), "W=" + w + " run " + run + ":\n" + res.report());
        }
      }
    }
  }

  /**
   * The run-time guards (powf's two-argument one, exp2f's and log2f's): with the scalar function
   * replaced (test hook) by one that differs by an ULP, the probe fails and every active lane gets that
   * function's result; with an honest stand-in that counts its calls, the probe passes, ordinary lanes
   * make no call after the probe, and lanes outside the fast path (powf: x negative, overflow; exp2f:
   * x ≥ 128; log2f: x negative) make exactly one each, except powf's and exp2f's overflowing lanes when no other lane
   * is outside it (the range lanes, finished in the vector: none).
   */
  @ParameterizedTest(name = "W={0} {1}")
  @MethodSource("widths")
  void guardFallsBackToPerLaneCallsWhenTheLibmDiffers(int w, String march) throws Throwable {
    Assumptions.assumeTrue(hostRuns(march), "SKIPPED (LOUD): the host cannot run " + march + " code");
    // powf stays per lane on x86-64-v2 (no FMA): nothing to guard there
    List<String> fns = powRoute(march) ? List.of("powf", "exp2f", "log2f") : List.of("exp2f", "log2f");
    for (String fn : fns) {
      boolean bin = fn.equals("powf");
      for (boolean honest : new boolean[] {true, false}) {
        String stand = (honest ? "honest_" : "other_") + fn;
        try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = compile(ctx, march)) {
          List<Remark> rem = new ArrayList<>();
          System.setProperty(LibmGuard.HOOK_PREFIX + fn, stand);
          try {
            new Packetizer(PacketizerOptions.builder().width(w).vectorMath(PacketizerOptions.VectorMath.INTRINSICS).params(bin ? "vv" : "v")
                .verifyEachPhase(true).remarks(rem::add).build()).run(m, "k_" + fn, "k_" + fn + "_v" + w);
          } finally {
            System.clearProperty(LibmGuard.HOOK_PREFIX + fn);
          }
          assertTrue(rem.stream().anyMatch(r -> r.message().contains(ROUTE) && r.message().contains("checked against " + stand)), rem.toString());
          try (Jit jit = Jit.host()) {
            jit.addModule(m);
            MemorySegment calls = MemorySegment.ofAddress(jit.lookup("fake_calls")).reinterpret(4);
            org.packetizer.core.jit.JitFunction packet = jit.function("k_" + fn + "_v" + w);
            FunctionDescriptor fd = bin ? FunctionDescriptor.of(JAVA_FLOAT, JAVA_FLOAT, JAVA_FLOAT) : FunctionDescriptor.of(JAVA_FLOAT, JAVA_FLOAT);
            MethodHandle scalar = C.downcallHandle(MemorySegment.ofAddress(jit.lookup(stand)), fd);
            MethodHandle real = C.downcallHandle(MemorySegment.ofAddress(jit.lookup("k_" + fn)), fd);
            int probes = bin ? GlibcPow.POW_PROBES_X.length : fn.equals("exp2f") ? GlibcPow.EXP2_PROBES.length : GlibcPow.LOG2_PROBES.length;
            probes = (probes + w - 1) / w * w; // filled up to a multiple of W (LibmGuard.padded)
            SplittableRandom rnd = new SplittableRandom(7);
            for (int run = 0; run < 50; run++) {
              float[] x = new float[w], y = new float[w];
              int outside = 0;
              for (int k = 0; k < w; k++) {
                x[k] = (float) (rnd.nextDouble() * 20 + 0.5); // inside every fast path
                y[k] = (float) (rnd.nextDouble() * 6 - 3);
                if (run % 2 == 1 && k % 3 == 0) {
                  if (fn.equals("exp2f")) x[k] = run % 4 == 3 && k == 0 ? Float.NaN : 130f; // overflow (a NaN in lane 0 every fourth run)
                  else if (fn.equals("log2f") || (k % 2 == 0 && run % 4 == 3)) x[k] = -x[k]; // negative x
                  else {
                    x[k] += 2; // y·log2 x >= 200: overflow
                    y[k] = 200f;
                  }
                  outside++;
                }
              }
              int before = calls.get(JAVA_INT, 0);
              float[] got = (float[]) (bin ? packet.call(x, y) : packet.call((Object) x));
              int made = calls.get(JAVA_INT, 0) - before - (run == 0 ? probes : 0);
              for (int k = 0; k < w; k++) {
                MethodHandle h = honest ? real : scalar;
                float want = bin ? (float) h.invokeExact(x[k], y[k]) : (float) h.invokeExact(x[k]);
                assertEquals(Float.floatToRawIntBits(want), Float.floatToRawIntBits(got[k]), stand + " W=" + w + " lane " + k + " x=" + x[k] + " y=" + y[k]);
              }
              // exp2f's and powf's range lanes alone (overflow, every other run) are finished in the vector (twenty-third
              // round): no call; with a NaN or a negative x among them every special lane calls the scalar function
              boolean rangeOnly = !fn.equals("log2f") && run % 4 == 1 && LibmGuard.rangeLanes("x86_64-unknown-linux-gnu");
              assertEquals(honest ? (rangeOnly ? 0 : outside) : w, made, stand + " W=" + w + " run " + run + ": calls of the scalar function");
            }
          }
        }
      }
    }
  }
}
