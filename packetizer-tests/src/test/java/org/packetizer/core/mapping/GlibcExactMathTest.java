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
 * expf and logf in the bit-exact default ({@link GlibcMath}, issue 16): the packet function computes
 * glibc's algorithm on vectors and agrees with glibc's scalar expf/logf bit for bit, on millions of
 * random bit patterns and on every special and boundary class, at W4 (SSE4.2: the non-FMA variant),
 * W8 (AVX2+FMA) and W16 (AVX-512), with every call a vector one (no per-lane call of expf/logf in the
 * packet function, the remark naming the route); under partial masks through the differential check
 * with guard pages; and its run-time guard: a libm that differs on a probe input (a test hook
 * pretends so) makes every active lane call the scalar function, and a libm that agrees leaves only
 * the lanes outside the fast path to it.
 */
class GlibcExactMathTest {
  static final Linker C = Linker.nativeLinker();

  static final String SOURCE = """
      float expf(float);
      float logf(float);
      float nextafterf(float, float);
      float k_expf(float x) { return expf(x); }
      float k_logf(float x) { return logf(x); }
      /* the scalar reference: glibc, one call per element (no vectorizer can change that) */
      void ref_expf(const float *in, float *out, long n) { for (long i = 0; i < n; i++) out[i] = expf(in[i]); }
      void ref_logf(const float *in, float *out, long n) { for (long i = 0; i < n; i++) out[i] = logf(in[i]); }
      /* partial masks: each call only on some lanes */
      float k_mixed(float x, float y) {
        if (y > 0.0f) return expf(x) * 0.5f;
        float l = logf(x);
        return y < -2.0f ? l + expf(y) : l;
      }
      /* test hook targets: an honest libm stand-in that counts its calls, and one that differs by an ULP */
      int fake_calls;
      float honest_expf(float x) { fake_calls++; return expf(x); }
      float honest_logf(float x) { fake_calls++; return logf(x); }
      float other_expf(float x) { fake_calls++; return nextafterf(expf(x), 1.0f / 0.0f); }
      float other_logf(float x) { fake_calls++; return nextafterf(logf(x), 1.0f / 0.0f); }
      /* a libm that differs from this one only on the two inputs where glibc's FMA and plain expf builds
         differ (as the plain build would, were FMA hidden from glibc's ifunc, e.g. by GLIBC_TUNABLES) */
      float variant_expf(float x) {
        union { float f; unsigned u; } b = {x};
        fake_calls++;
        return b.u == 0x4202422fu || b.u == 0xc27c65d9u ? nextafterf(expf(x), 1.0f / 0.0f) : expf(x);
      }
      """;

  /** Every special and boundary class of expf's and logf's inputs. */
  static int[] specials() {
    List<Integer> s = new ArrayList<>(List.of(0x00000000, 0x80000000, 0x7f800000, 0xff800000, 0x7fc00000, 0xffc00000, 0x7fa00001,
        0x7fc12345, 0x00000001, 0x80000001, 0x007fffff, 0x807fffff, 0x00800000, 0x80800000, 0x7f7fffff, 0xff7fffff, 0x3f800000,
        0xbf800000, 0x3f7fffff, 0x3f800001, 0x42b00000, 0xc2b00000, 0x42afffff, 0xc2afffff, 0x42b17218, 0x42b17217, 0x42b17219,
        0xc2cff1b4, 0xc2cff1b5, 0xc2ce8ed0, 0xc2ce8ecf, 0xc2aeac50, 0xc2aeac4f, 0x4202422f, 0xc27c65d9, 0x3f330000, 0x3f32ffff,
        0x3fb30000, 0x33800000, 0xb3800000, 0x0b800000, 0x7e800000));
    // the probe inputs themselves and the edges of the logf table's subintervals
    for (long p : GlibcMath.EXP_PROBES) s.add((int) p);
    for (long p : GlibcMath.LOG_PROBES) s.add((int) p);
    for (int i = 0; i < 32; i++) {
      s.add(0x3f330000 + (i << 19));
      s.add(0x3f330000 + (i << 19) - 1);
    }
    return s.stream().mapToInt(Integer::intValue).toArray();
  }

  static Stream<Arguments> isas() {
    // plus W16 on AVX2: two 8-lane parts of the AVX2 table lookup (TableLookup.Route.HALVES); W32 on AVX2:
    // more lanes than the guard's 16 probes (an internal error before the twelfth round); the twenty-first round's routes
    // per CPU: Intel's AVX2 gathers (haswell at W8, W16 with pairs by scalar loads, W32; skylake, x86-64-v3 at W8),
    // AMD's AVX2 scalar loads (znver3), Intel's AVX-512 permutes (icelake-server W16, skylake-avx512 W8)
    return Stream.concat(MathSources.ISAS.stream().flatMap(i -> Stream.of(Arguments.of(i.width(), i.march(), "-O2"),
        Arguments.of(i.width(), i.march(), "-O2 -fno-math-errno"))), Stream.of(Arguments.of(16, "haswell", "-O2"),
        Arguments.of(32, "haswell", "-O2"), Arguments.of(8, "skylake", "-O2"), Arguments.of(8, "x86-64-v3", "-O2"),
        Arguments.of(8, "znver3", "-O2"), Arguments.of(16, "znver3", "-O2"), Arguments.of(16, "icelake-server", "-O2"),
        Arguments.of(8, "skylake-avx512", "-O2")));
  }

  static LlvmModule compile(LlvmContext ctx, String march, String flags) {
    List<String> fl = new ArrayList<>(List.of(flags.split(" ")));
    fl.addAll(List.of("-march=" + march, "-nostdlibinc"));
    return ctx.load(BundledClang.locate().compileToBitcode(SOURCE, "glibcmath.c", fl), "glibcmath.c");
  }

  static boolean hostRuns(String march) {
    return switch (march) {
      case "haswell", "skylake", "x86-64-v3", "znver3" -> Jit.host().features().contains("+avx2");
      case "x86-64-v4", "skylake-avx512" -> Jit.host().features().contains("+avx512f");
      case "icelake-server" -> Jit.host().features().contains("+avx512vbmi2");
      default -> true;
    };
  }

  /** Millions of random bit patterns and every special class through the array driver, against glibc element by element. */
  @ParameterizedTest(name = "W={0} {1} {2}")
  @MethodSource("isas")
  void bitIdenticalToGlibcOnRandomAndSpecialInputs(int w, String march, String flags) throws Throwable {
    Assumptions.assumeTrue(hostRuns(march), "SKIPPED (LOUD): the host cannot run " + march + " code");
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = compile(ctx, march, flags)) {
      for (String fn : List.of("expf", "logf")) {
        List<Remark> rem = new ArrayList<>();
        new Packetizer(PacketizerOptions.builder().width(w).vectorMath(PacketizerOptions.VectorMath.INTRINSICS).params("v").arrayDriver("*_map").verifyEachPhase(true).remarks(rem::add).build())
            .run(m, "k_" + fn, "k_" + fn + "_v" + w);
        assertTrue(rem.stream().anyMatch(r -> r.kind() == Remark.Kind.VECTORIZED_CALL
            && r.message().contains("glibc-exact vector (verified at run time)")), fn + ": " + rem);
        assertNoPerLaneLibmCall(m.function("k_" + fn + "_v" + w).orElseThrow(), fn);
      }
      try (Jit jit = Jit.host(); Arena arena = Arena.ofConfined()) {
        jit.addModule(m);
        int n = 1 << 21;
        MemorySegment in = arena.allocate(4L * n, 64), want = arena.allocate(4L * n, 64), got = arena.allocate(4L * n, 64);
        SplittableRandom rnd = new SplittableRandom(0x16E + w);
        int[] sp = specials();
        for (int i = 0; i < n; i++) {
          int bits = i < sp.length ? sp[i]
              : i % 4 == 0 ? Float.floatToRawIntBits((float) (rnd.nextDouble() * 220 - 110)) // expf's whole range and beyond
              : i % 4 == 1 ? Float.floatToRawIntBits((float) Math.scalb(rnd.nextDouble() + 0.5, rnd.nextInt(-150, 129)))
              : rnd.nextInt();
          in.setAtIndex(JAVA_INT, i, bits);
        }
        for (String fn : List.of("expf", "logf")) {
          MethodHandle ref = C.downcallHandle(MemorySegment.ofAddress(jit.lookup("ref_" + fn)), FunctionDescriptor.ofVoid(ADDRESS, ADDRESS, JAVA_LONG));
          MethodHandle drv = C.downcallHandle(MemorySegment.ofAddress(jit.lookup("k_" + fn + "_map")), FunctionDescriptor.ofVoid(ADDRESS, ADDRESS, JAVA_LONG));
          ref.invokeExact(in, want, (long) n);
          // also a length that leaves a masked remainder
          drv.invokeExact(in, got, (long) n - 3);
          got.setAtIndex(JAVA_INT, n - 3, want.getAtIndex(JAVA_INT, n - 3));
          got.setAtIndex(JAVA_INT, n - 2, want.getAtIndex(JAVA_INT, n - 2));
          got.setAtIndex(JAVA_INT, n - 1, want.getAtIndex(JAVA_INT, n - 1));
          List<String> bad = new ArrayList<>();
          for (int i = 0; i < n && bad.size() < 10; i++) {
            int a = want.getAtIndex(JAVA_INT, i), b = got.getAtIndex(JAVA_INT, i);
            if (a != b) {
              bad.add(String.format("%s(0x%08x) = 0x%08x, packet 0x%08x", fn, in.getAtIndex(JAVA_INT, i), a, b));
            }
          }
          assertTrue(bad.isEmpty(), "W=" + w + " " + march + " " + flags + ":\n" + String.join("\n", bad));
        }
      }
    }
  }

  /** The packet function calls neither the libm function (expf, logf, exp2f, ...) nor its LLVM intrinsic: only the helper does, for lanes outside the fast path. */
  static void assertNoPerLaneLibmCall(Function packet, String fn) {
    String intrinsic = "llvm." + fn.substring(0, fn.length() - 1) + ".";
    for (org.packetizer.core.ir.Block bb : packet.blocks()) {
      for (Value i : bb.instructions()) {
        if (i.opcode() != Opcode.CALL) continue;
        String callee = i.calledFunction().map(Function::name).orElse("");
        assertFalse(callee.equals(fn) || callee.startsWith(intrinsic), packet.name() + " still calls " + callee + " per lane");
      }
    }
  }

  /** Partial masks (calls under branches), through the differential check with guard pages, W4/8/16. */
  @ParameterizedTest(name = "W={0} {1}")
  @MethodSource("widths")
  void partialMasksMatchTheScalarFunction(int w, String march) throws Throwable {
    Assumptions.assumeTrue(hostRuns(march), "SKIPPED (LOUD): the host cannot run " + march + " code");
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = compile(ctx, march, "-O2")) {
      List<Remark> rem = new ArrayList<>();
      new Packetizer(PacketizerOptions.builder().width(w).vectorMath(PacketizerOptions.VectorMath.INTRINSICS).params("vv").verifyEachPhase(true).remarks(rem::add).build())
          .run(m, "k_mixed", "k_mixed_v" + w);
      assertEquals(3, rem.stream().filter(r -> r.kind() == Remark.Kind.VECTORIZED_CALL
          && r.message().contains("glibc-exact vector (verified at run time)")).count(), rem.toString());
      int[] sp = specials();
      try (DifferentialCheck c = DifferentialCheck.builder(m, "k_mixed", "k_mixed_v" + w, w).guardPages(true).build()) {
        SplittableRandom rnd = new SplittableRandom(w);
        for (int run = 0; run < 3000; run++) {
          float[] x = new float[w], y = new float[w];
          for (int k = 0; k < w; k++) {
            x[k] = run % 3 == 0 ? Float.intBitsToFloat(sp[rnd.nextInt(sp.length)])
                : run % 3 == 1 ? (float) (rnd.nextDouble() * 240 - 120) : Float.intBitsToFloat(rnd.nextInt());
            y[k] = (float) (rnd.nextDouble() * 8 - 4);
            if (run % 5 == 0) y[k] = Float.intBitsToFloat(sp[rnd.nextInt(sp.length)]);
          }
          CheckResult res = c.run(Inputs.of(run, x, y));
          assertTrue(res.passed(), "W=" + w + " run " + run + ":\n" + res.report());
        }
      }
    }
  }

  static Stream<Arguments> widths() {
    return MathSources.ISAS.stream().map(i -> Arguments.of(i.width(), i.march()));
  }

  /**
   * expf's two FMA/plain variant inputs (issue 16, ninth round): the FMA helper no longer compares every
   * lane with them on every call, it computes them as glibc's FMA build and has them among its probe
   * inputs instead ({@link GlibcMath#EXP_PROBES_FMA}); the plain helper (W4 x86-64-v2) still sends them to
   * the scalar function. Either way a libm that differs only there (the test hook's {@code variant_expf})
   * gets its own result on every lane, those inputs included: the FMA helper's probe fails, the plain
   * helper calls it for them. Fails if the FMA helper's probes lose the variant inputs.
   */
  @ParameterizedTest(name = "W={0} {1}")
  @MethodSource("widths")
  void aLibmDifferingOnlyOnTheVariantInputsIsFollowed(int w, String march) throws Throwable {
    Assumptions.assumeTrue(hostRuns(march), "SKIPPED (LOUD): the host cannot run " + march + " code");
    String stand = "variant_expf";
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = compile(ctx, march, "-O2")) {
      System.setProperty(LibmGuard.HOOK_PREFIX + "expf", stand);
      try {
        new Packetizer(PacketizerOptions.builder().width(w).vectorMath(PacketizerOptions.VectorMath.INTRINSICS).params("v").verifyEachPhase(true).build())
            .run(m, "k_expf", "k_expf_v" + w);
      } finally {
        System.clearProperty(LibmGuard.HOOK_PREFIX + "expf");
      }
      try (Jit jit = Jit.host()) {
        jit.addModule(m);
        org.packetizer.core.jit.JitFunction packet = jit.function("k_expf_v" + w);
        MethodHandle scalar = C.downcallHandle(MemorySegment.ofAddress(jit.lookup(stand)), FunctionDescriptor.of(JAVA_FLOAT, JAVA_FLOAT));
        SplittableRandom rnd = new SplittableRandom(w);
        for (int run = 0; run < 40; run++) {
          float[] x = new float[w];
          for (int k = 0; k < w; k++) x[k] = (float) (rnd.nextDouble() * 160 - 80);
          x[run % w] = Float.intBitsToFloat(GlibcMath.EXP_VARIANT_INPUTS[run % 2]);
          float[] got = (float[]) packet.call((Object) x);
          for (int k = 0; k < w; k++) {
            float want = (float) scalar.invokeExact(x[k]);
            assertEquals(Float.floatToRawIntBits(want), Float.floatToRawIntBits(got[k]),
                String.format("W=%d %s run %d lane %d x=0x%08x", w, march, run, k, Float.floatToRawIntBits(x[k])));
          }
        }
      }
    }
  }

  /**
   * The run-time guard: with the scalar function replaced (test hook) by one that differs by an ULP,
   * the probe fails and every active lane gets that function's result (W calls per packet call);
   * with an honest stand-in that counts its calls, the probe passes and ordinary lanes make no call
   * after the probe, while lanes outside the fast path make exactly one each, except expf's over- and underflowing
   * lanes when no other lane is outside it (the range lanes, finished in the vector: none).
   */
  @ParameterizedTest(name = "W={0} {1}")
  @MethodSource("widths")
  void guardFallsBackToPerLaneCallsWhenTheLibmDiffers(int w, String march) throws Throwable {
    Assumptions.assumeTrue(hostRuns(march), "SKIPPED (LOUD): the host cannot run " + march + " code");
    for (String fn : List.of("expf", "logf")) {
      for (boolean honest : new boolean[] {true, false}) {
        String stand = (honest ? "honest_" : "other_") + fn;
        try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = compile(ctx, march, "-O2")) {
          List<Remark> rem = new ArrayList<>();
          System.setProperty(LibmGuard.HOOK_PREFIX + fn, stand);
          try {
            new Packetizer(PacketizerOptions.builder().width(w).vectorMath(PacketizerOptions.VectorMath.INTRINSICS).params("v").verifyEachPhase(true).remarks(rem::add).build())
                .run(m, "k_" + fn, "k_" + fn + "_v" + w);
          } finally {
            System.clearProperty(LibmGuard.HOOK_PREFIX + fn);
          }
          assertTrue(rem.stream().anyMatch(r -> r.message().contains("glibc-exact vector (verified at run time)")
              && r.message().contains("checked against " + stand)), rem.toString());
          try (Jit jit = Jit.host(); Arena arena = Arena.ofConfined()) {
            jit.addModule(m);
            MemorySegment calls = MemorySegment.ofAddress(jit.lookup("fake_calls")).reinterpret(4);
            org.packetizer.core.jit.JitFunction packet = jit.function("k_" + fn + "_v" + w);
            MethodHandle scalar = C.downcallHandle(MemorySegment.ofAddress(jit.lookup(stand)), FunctionDescriptor.of(JAVA_FLOAT, JAVA_FLOAT));
            MethodHandle real = C.downcallHandle(MemorySegment.ofAddress(jit.lookup("k_" + fn)), FunctionDescriptor.of(JAVA_FLOAT, JAVA_FLOAT));
            SplittableRandom rnd = new SplittableRandom(7);
            for (int run = 0; run < 50; run++) {
              float[] x = new float[w];
              int outside = 0;
              for (int k = 0; k < w; k++) {
                x[k] = (float) (rnd.nextDouble() * 20 + 0.5); // inside both fast paths
                if (run % 2 == 1 && k % 3 == 0) {
                  // outside: expf overflows (a range lane; with a NaN in lane 0 every fourth run), logf of a negative
                  x[k] = fn.equals("expf") ? (run % 4 == 3 && k == 0 ? Float.NaN : 100f) : -1f;
                  outside++;
                }
              }
              int before = calls.get(JAVA_INT, 0);
              float[] got = (float[]) packet.call((Object) x);
              int made = calls.get(JAVA_INT, 0) - before - (run == 0 ? GlibcMath.EXP_PROBES.length : 0);
              for (int k = 0; k < w; k++) {
                float want = honest ? (float) real.invokeExact(x[k]) : (float) scalar.invokeExact(x[k]);
                assertEquals(Float.floatToRawIntBits(want), Float.floatToRawIntBits(got[k]),
                    fn + " via " + stand + " W=" + w + " lane " + k + " x=" + x[k]);
              }
              // expf's range lanes alone are finished in the vector (twenty-third round): no call; with a NaN lane, every
              // special lane calls the scalar function, as before
              boolean rangeOnly = fn.equals("expf") && run % 4 == 1 && LibmGuard.rangeLanes("x86_64-unknown-linux-gnu");
              assertEquals(honest ? (rangeOnly ? 0 : outside) : w, made, fn + " via " + stand + " W=" + w + " run " + run + ": calls of the scalar function");
            }
          }
        }
      }
    }
  }
}
