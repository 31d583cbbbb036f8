package org.packetizer.core.mapping;

import static java.lang.foreign.ValueLayout.*;
import static org.junit.jupiter.api.Assertions.*;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.packetizer.core.Packetizer;
import org.packetizer.core.api.PacketizerOptions;
import org.packetizer.core.api.Remark;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.jit.Jit;
import org.packetizer.core.toolchain.BundledClang;

/**
 * fmod, fmodf and frem by a constant power of two become inline vector IR (issue 16,
 * {@link VectorMathCalls#fmodByPowerOfTwo}): C compiled by the bundled clang with plain {@code -O2}
 * (calls of fmodf) and {@code -O2 -fno-math-errno} (frem), packetized at W4 (SSE4.2), W8 (AVX2) and W16
 * (AVX-512) with array drivers (full packets and a masked remainder), each element compared bit for bit
 * with the scalar function (glibc's fmodf and fmod): every sign, zeros, subnormals, infinities, NaN
 * payloads, values around the divisor and around 2^(p+k) where the result becomes 0 (and x·2^-k
 * overflows for small divisors), random bits and random values near the divisor's scale. A call under a
 * partial mask and a loop-carried fmodf (an AOBench-style random stream) too. The remark names the
 * route; a divisor that is not a power of two keeps the general helper.
 */
class FmodPowerOfTwoTest {
  static final Linker C = Linker.nativeLinker();

  /** Function -> the exponent k of its divisor (null: not a power of two, the helper's route). */
  static final Map<String, Integer> FLOATS = Map.of("f_one", 0, "f_two", 1, "f_mhalf", -1, "f_tiny", -126, "f_huge", 127,
      "f_p100", 100, "f_p110", 110, "f_masked", -2, "f_stream", 0);
  static final Map<String, Integer> DOUBLES = Map.of("d_one", 0, "d_m4", 2, "d_tiny", -1022, "d_huge", 1023, "d_p1000", 1000);

  static Stream<Arguments> cases() {
    List<Arguments> a = new ArrayList<>();
    for (MathSources.Isa isa : MathSources.ISAS) {
      for (String flags : List.of("-O2", "-O2 -fno-math-errno")) a.add(Arguments.of(isa.width(), isa.march(), flags));
    }
    return a.stream();
  }

  @ParameterizedTest(name = "W={0} {1} {2}")
  @MethodSource("cases")
  void powersOfTwoAreInlineAndBitIdenticalToGlibc(int w, String march, String flags) throws Throwable {
    List<String> fl = new ArrayList<>(List.of(flags.split(" ")));
    fl.addAll(List.of("-march=" + march, "-nostdlibinc"));
    byte[] bc = BundledClang.locate().compileToBitcode(resource("fmod_pow2.c"), "fmod_pow2.c", fl);
    List<String> failures = new ArrayList<>();
    List<String> names = new ArrayList<>();
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.load(bc, "fmod_pow2.c")) {
      List<String> all = new ArrayList<>(FLOATS.keySet());
      all.addAll(DOUBLES.keySet());
      all.add("f_three");
      all.add("d_third");
      for (String s : all) {
        List<Remark> rem = new ArrayList<>();
        new Packetizer(PacketizerOptions.builder().width(w).params("v").arrayDriver("*_map").verifyEachPhase(true)
            .remarks(rem::add).build()).run(m, s, s + "_v" + w);
        List<String> texts = rem.stream().filter(r -> r.kind() == Remark.Kind.VECTORIZED_CALL)
            .map(Remark::message).filter(t -> t.contains("fmod") || t.contains("frem")).toList();
        boolean pow2 = FLOATS.containsKey(s) || DOUBLES.containsKey(s);
        if (pow2) {
          if (texts.isEmpty() || !texts.stream().allMatch(t -> t.contains("(a power of two) became inline vector IR")))
            failures.add(s + ": expected only the inline power-of-two route, remarks " + texts);
          if (texts.stream().anyMatch(t -> t.contains("@__packetizer_fmod"))) failures.add(s + ": calls the general helper " + texts);
        } else if (texts.size() != 1 || !texts.get(0).contains("@__packetizer_fmod")) {
          failures.add(s + ": expected the general exact helper, remarks " + texts);
        }
        names.add(s);
      }
      try (Jit jit = Jit.host(); Arena arena = Arena.ofConfined()) {
        jit.addModule(m);
        for (String s : names) {
          boolean dbl = s.startsWith("d_");
          Integer k = dbl ? DOUBLES.get(s) : FLOATS.get(s);
          String fail = run(jit, arena, s, dbl, k == null ? (dbl ? -4 : 1) : k, w);
          if (fail != null) failures.add(s + ": " + fail);
        }
      }
    }
    assertTrue(failures.isEmpty(), "W=" + w + " " + march + " " + flags + ":\n" + String.join("\n", failures));
  }

  /** Inputs for a divisor 2^k: edges, values around 2^k and 2^(p+k), NaN payloads, random bits and values. */
  static long[] inputs(boolean dbl, int k, Random rnd) {
    List<Long> v = new ArrayList<>();
    int p = dbl ? 53 : 24;
    double[] scales = {Math.scalb(1.0, k), Math.scalb(1.0, p + k), Math.scalb(1.0, p + k - 1), Math.scalb(1.0, p + k + 1), 1.0};
    double[] edges = {0, 1, 0.5, 1.5, 2, 3, 7.25, 10, 100, 1e10, 1e30, 16777217, 0x1.8p23, 0x1p100, Math.PI, 1.0 / 3};
    for (double sgn : new double[] {1, -1}) {
      for (double e : edges) v.add(bits(dbl, sgn * e));
      for (double sc : scales) {
        for (double f : new double[] {1, 0.5, 1.5, 2, 3, 0.75, 1.75, 255.5}) {
          double x = sgn * sc * f;
          v.add(bits(dbl, x));
          v.add(bits(dbl, dbl ? Math.nextUp(x) : Math.nextUp((float) x)));
          v.add(bits(dbl, dbl ? Math.nextDown(x) : Math.nextDown((float) x)));
        }
      }
      if (dbl) {
        for (double e : new double[] {Double.MAX_VALUE, Double.MIN_NORMAL, Double.MIN_VALUE, 0x1.fffffffffffffp-1023,
            Double.POSITIVE_INFINITY}) v.add(Double.doubleToRawLongBits(sgn * e));
      } else {
        for (float e : new float[] {Float.MAX_VALUE, Float.MIN_NORMAL, Float.MIN_VALUE, 0x1.fffffep-127f, Float.POSITIVE_INFINITY})
          v.add((long) Float.floatToRawIntBits((float) sgn * e));
      }
    }
    if (dbl) {
      for (long n : new long[] {0x7ff8000000000000L, 0x7ff8000012345678L, 0xfff8000000000001L, 0x7ff0000000000001L, 0xfff4000000000000L})
        v.add(n);
    } else {
      for (int n : new int[] {0x7fc00000, 0x7fc12345, 0xffc00001, 0x7f800001, 0xffa00000}) v.add((long) n);
    }
    int random = 60_000 + rnd.nextInt(15); // not a multiple of W: the masked remainder runs
    for (int i = 0; i < random; i++) {
      switch (rnd.nextInt(3)) {
        case 0 -> v.add(dbl ? rnd.nextLong() : rnd.nextInt());
        case 1 -> v.add(bits(dbl, (rnd.nextDouble() * 2 - 1) * Math.scalb(1.0, k + rnd.nextInt(p + 8) - 4)));
        default -> v.add(bits(dbl, (rnd.nextDouble() * 2 - 1) * Math.scalb(1.0, rnd.nextInt(60) - 30)));
      }
    }
    long[] out = new long[v.size()];
    for (int i = 0; i < out.length; i++) out[i] = v.get(i);
    return out;
  }

  /** The bits of x as a double, or rounded to float. */
  static long bits(boolean dbl, double x) {
    return dbl ? Double.doubleToRawLongBits(x) : Float.floatToRawIntBits((float) x);
  }

  /** Runs {@code s}'s array driver and the scalar function over the inputs; null when every element agrees. */
  static String run(Jit jit, Arena arena, String s, boolean dbl, int k, int w) throws Throwable {
    long[] in = inputs(dbl, k, new Random(s.hashCode() * 31L + w));
    int n = in.length;
    ValueLayout t = dbl ? JAVA_DOUBLE : JAVA_FLOAT;
    MemorySegment xs = arena.allocate(t.byteSize() * n, 8), out = arena.allocate(t.byteSize() * n, 8);
    for (int i = 0; i < n; i++) {
      if (dbl) xs.setAtIndex(JAVA_LONG, i, in[i]);
      else xs.setAtIndex(JAVA_INT, i, (int) in[i]);
    }
    MethodHandle driver = C.downcallHandle(MemorySegment.ofAddress(jit.lookup(s + "_map")), FunctionDescriptor.ofVoid(ADDRESS, ADDRESS, JAVA_LONG));
    MethodHandle scalar = C.downcallHandle(MemorySegment.ofAddress(jit.lookup(s)), FunctionDescriptor.of(t, t));
    driver.invokeExact(xs, out, (long) n);
    int bad = 0;
    String first = null;
    for (int i = 0; i < n; i++) {
      long want, got;
      if (dbl) {
        want = Double.doubleToRawLongBits((double) scalar.invokeExact(xs.getAtIndex(JAVA_DOUBLE, i)));
        got = out.getAtIndex(JAVA_LONG, i);
      } else {
        want = Float.floatToRawIntBits((float) scalar.invokeExact(xs.getAtIndex(JAVA_FLOAT, i)));
        got = out.getAtIndex(JAVA_INT, i);
      }
      if (want != got && bad++ < 4) {
        first = (first == null ? "" : first + "; ") + String.format("element %d of %d: x = %s: glibc %s, packet %s", i, n,
            dbl ? Double.toString(xs.getAtIndex(JAVA_DOUBLE, i)) + String.format(" (0x%016x)", in[i])
                : Float.toString(xs.getAtIndex(JAVA_FLOAT, i)) + String.format(" (0x%08x)", (int) in[i]),
            show(dbl, want), show(dbl, got));
      }
    }
    return bad == 0 ? null : bad + " of " + n + " elements differ, first: " + first;
  }

  static String show(boolean dbl, long b) {
    return dbl ? Double.longBitsToDouble(b) + String.format(" (0x%016x)", b)
        : Float.intBitsToFloat((int) b) + String.format(" (0x%08x)", (int) b);
  }

  static String resource(String name) {
    try (InputStream in = FmodPowerOfTwoTest.class.getResourceAsStream("/vectormath/" + name)) {
      if (in == null) throw new IllegalArgumentException("no test resource vectormath/" + name);
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
