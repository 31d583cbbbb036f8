package org.packetizer.core.beyond;

import static org.junit.jupiter.api.Assertions.*;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.IntPredicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.packetizer.core.api.PacketizationResult;
import org.packetizer.core.Packetizer;
import org.packetizer.core.api.PacketizerOptions;
import org.packetizer.core.check.MaskPattern;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.jit.Jit;
import org.packetizer.core.mapping.SpmdIntrinsics;

/**
 * SPMD intrinsics (beyond-the-thesis §4). The scalar functions of {@code beyond/spmd.c} call the
 * intrinsics of {@code packetizer_spmd.h}; they are packetized masked at W = 4, 8, 16 and run on random
 * inputs and masks (all, none, alternating, single, all-but-one, first half, random). A Java model of
 * the whole packet computes what every active lane must get — over the active lanes only, with
 * divergent branches and loops narrowing the lanes — and the test compares it with the packet
 * function's active lanes. The scalar functions linked with {@code packetizer_spmd_scalar.c} are
 * checked against the same model at W = 1.
 */
class SpmdIntrinsicsTest {
  static final int RUNS = 150;

  /** Name, parameter kinds. */
  static final List<String[]> FUNCTIONS = List.of(
      new String[] {"lane", ""}, new String[] {"width", ""}, new String[] {"active", ""}, new String[] {"votes", "v"},
      new String[] {"ballot", "v"}, new String[] {"read_lane_u", "vu"}, new String[] {"read_lane_v", "vv"},
      new String[] {"first", "v"}, new String[] {"shuffle", "vv"}, new String[] {"compact", "v"},
      new String[] {"radd_i", "v"}, new String[] {"rmin_i", "v"}, new String[] {"rmax_l", "v"}, new String[] {"radd_f", "v"},
      new String[] {"rmin_f", "v"}, new String[] {"rmax_d", "v"}, new String[] {"div_reduce", "vv"},
      new String[] {"loop_count", "v"}, new String[] {"coherent", "v"}, new String[] {"compact_store", "uv"},
      new String[] {"window", "uu"}, new String[] {"calls_helper", "v"});

  static PacketizationResult packetize(LlvmModule m, String fn, String kinds, int w, boolean masked) {
    return new Packetizer(PacketizerOptions.builder().width(w).params(kinds).masked(masked).verifyEachPhase(true).build())
        .run(m, fn, fn + (masked ? "_m" : "_v"));
  }

  static LlvmModule scalarImplementation(LlvmContext ctx) {
    return CSources.compileText(ctx, "packetizer_spmd_scalar.c", SpmdIntrinsics.scalarImplementation());
  }

  @ParameterizedTest(name = "W={0}")
  @ValueSource(ints = {4, 8, 16})
  void packetAgreesWithTheModel(int w) {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = CSources.compile(ctx, "spmd.c");
         LlvmModule scalar = scalarImplementation(ctx)) {
      for (String[] f : FUNCTIONS) packetize(m, f[0], f[1], w, true);
      try (Jit jit = Jit.host(); Arena arena = Arena.ofConfined()) {
        jit.addModule(m);
        jit.addModule(scalar);
        SplittableRandom rnd = new SplittableRandom(1234 + w);
        for (int run = 0; run < RUNS; run++) {
          boolean[] mask = MaskPattern.values()[rnd.nextInt(MaskPattern.values().length)].mask(w, rnd);
          new Run(jit, arena, w, mask, rnd, "_m").all();
        }
      }
    }
  }

  /** The scalar functions, linked with packetizer_spmd_scalar.c, are the model at W = 1. */
  @Test
  void scalarImplementationIsAOneLanePacket() {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = CSources.compile(ctx, "spmd.c"); LlvmModule scalar = scalarImplementation(ctx);
         Jit jit = Jit.host(); Arena arena = Arena.ofConfined()) {
      jit.addModule(m);
      jit.addModule(scalar);
      SplittableRandom rnd = new SplittableRandom(99);
      for (int run = 0; run < RUNS; run++) new Run(jit, arena, 1, new boolean[] {true}, rnd, "").all();
    }
  }

  /** Unmasked packet functions: the lane index makes t[base + lane] a vector load; pk_all makes a uniform branch. */
  @ParameterizedTest(name = "W={0}")
  @ValueSource(ints = {4, 8, 16})
  void laneIndexIsConsecutiveAndVotesAreUniform(int w) {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = CSources.compile(ctx, "spmd.c"); LlvmModule scalar = scalarImplementation(ctx)) {
      PacketizationResult window = packetize(m, "window", "uu", w, false);
      assertEquals(0, window.gathers(), window::summary);
      assertEquals(1, window.vectorLoads(), window::summary);
      assertEquals("consecutive, align 4096", window.shapes().get("%call"), window.shapes()::toString);
      PacketizationResult coherent = packetize(m, "coherent", "v", w, false);
      assertEquals("uniform", coherent.shapes().get("%call"), coherent.shapes()::toString);
      assertTrue(coherent.keptBranches() >= 1, coherent::summary);
      PacketizationResult store = packetize(m, "compact_store", "uv", w, false);
      assertEquals(0, store.scatters(), store::summary);
      assertEquals(1, store.vectorStores(), store::summary);
      for (String fn : List.of("lane", "votes", "radd_f", "div_reduce", "loop_count")) {
        packetize(m, fn, FUNCTIONS.stream().filter(f -> f[0].equals(fn)).findFirst().orElseThrow()[1], w, false);
      }
      try (Jit jit = Jit.host(); Arena arena = Arena.ofConfined()) {
        jit.addModule(m);
        jit.addModule(scalar);
        SplittableRandom rnd = new SplittableRandom(77 + w);
        boolean[] all = new boolean[w];
        java.util.Arrays.fill(all, true);
        for (int run = 0; run < RUNS / 3; run++) {
          Run r = new Run(jit, arena, w, all, rnd, "_v");
          r.window();
          r.coherent();
          r.compactStore();
          r.lane();
          r.votes();
          r.raddF();
          r.divReduce();
          r.loopCount();
        }
      }
    }
  }

  @Test
  void headerDeclaresEveryIntrinsic() {
    String h = SpmdIntrinsics.header();
    String c = SpmdIntrinsics.scalarImplementation();
    for (String name : SpmdIntrinsics.names()) {
      assertTrue(h.contains(" " + name + "("), name);
      assertTrue(SpmdIntrinsics.op(name).isPresent(), name);
    }
    assertTrue(c.contains("#include \"" + SpmdIntrinsics.HEADER_NAME + "\""));
    assertTrue(SpmdIntrinsics.op("pk_reduce_add_i16").isEmpty());
    assertTrue(SpmdIntrinsics.op("pk_lane").isEmpty());
    assertEquals(7 + 7 * 4, SpmdIntrinsics.names().size());
  }

  // ---- one run: inputs, the model, the comparison ----

  static final class Run {
    final Jit jit;
    final Arena arena;
    final int w;
    final boolean[] mask;
    final SplittableRandom rnd;
    final String suffix;

    Run(Jit jit, Arena arena, int w, boolean[] mask, SplittableRandom rnd, String suffix) {
      this.jit = jit;
      this.arena = arena;
      this.w = w;
      this.mask = mask;
      this.rnd = rnd;
      this.suffix = suffix;
    }

    void all() {
      lane();
      width();
      active();
      votes();
      ballot();
      readLane();
      first();
      shuffle();
      compact();
      reductions();
      raddF();
      divReduce();
      loopCount();
      coherent();
      compactStore();
      window();
      callsHelper();
    }

    /** Calls the packet function (vector arguments) or, at W = 1, the scalar one (lane 0 of each). */
    Object call(String fn, Object... args) {
      if (w == 1) {
        Object[] scalarArgs = new Object[args.length];
        for (int i = 0; i < args.length; i++) scalarArgs[i] = lane0(args[i]);
        Object r = jit.function(fn).call(scalarArgs);
        return r == null ? null : wrap(r);
      }
      if (suffix.equals("_v")) return jit.function(fn + suffix).call(args); // unmasked: all lanes active
      Object[] full = java.util.Arrays.copyOf(args, args.length + 1);
      full[args.length] = mask;
      return jit.function(fn + suffix).call(full);
    }

    static Object lane0(Object a) {
      return switch (a) {
        case int[] x -> x[0];
        case long[] x -> x[0];
        case float[] x -> x[0];
        case double[] x -> x[0];
        default -> a;
      };
    }

    static Object wrap(Object r) {
      return switch (r) {
        case Integer x -> new int[] {x};
        case Long x -> new long[] {x};
        case Float x -> new float[] {x};
        case Double x -> new double[] {x};
        default -> r;
      };
    }

    boolean any() {
      for (boolean b : mask) if (b) return true;
      return false;
    }

    int firstActive() {
      for (int k = 0; k < w; k++) if (mask[k]) return k;
      return -1;
    }

    int[] ints(int lo, int hi) {
      int[] a = new int[w];
      int pattern = rnd.nextInt(3);
      for (int k = 0; k < w; k++) a[k] = pattern == 0 ? (k == 0 ? rnd.nextInt(lo, hi + 1) : a[0]) : rnd.nextInt(lo, hi + 1);
      return a;
    }

    float[] floats(boolean specials) {
      float[] a = new float[w];
      for (int k = 0; k < w; k++) {
        int c = rnd.nextInt(12);
        a[k] = specials && c == 0 ? Float.NaN : specials && c == 1 ? -0.0f : c == 2 ? 0.0f
            : (float) (rnd.nextDouble(-8, 8));
      }
      return a;
    }

    void expectInts(String what, int[] expected, int[] actual, IntPredicate defined) {
      for (int k = 0; k < w; k++) {
        if (!mask[k] || !defined.test(k)) continue;
        int kk = k;
        assertEquals(expected[k], actual[k], () -> what + " W=" + w + " lane " + kk + " mask " + java.util.Arrays.toString(mask));
      }
    }

    void expectLongs(String what, long[] expected, long[] actual) {
      for (int k = 0; k < w; k++) {
        if (!mask[k]) continue;
        int kk = k;
        assertEquals(expected[k], actual[k], () -> what + " W=" + w + " lane " + kk + " mask " + java.util.Arrays.toString(mask));
      }
    }

    void expectFloats(String what, double[] expected, double[] actual, boolean bitwise, IntPredicate defined) {
      for (int k = 0; k < w; k++) {
        if (!mask[k] || !defined.test(k)) continue;
        double e = expected[k];
        double a = actual[k];
        boolean ok = Double.isNaN(e) ? Double.isNaN(a) : bitwise ? Double.doubleToRawLongBits(e) == Double.doubleToRawLongBits(a) : e == a;
        int kk = k;
        assertTrue(ok, () -> what + " W=" + w + " lane " + kk + ": expected " + e + " got " + a + " mask "
            + java.util.Arrays.toString(mask));
      }
    }

    static double[] d(float[] a) {
      double[] out = new double[a.length];
      for (int i = 0; i < a.length; i++) out[i] = a[i];
      return out;
    }

    int[] fill(int v) {
      int[] a = new int[w];
      java.util.Arrays.fill(a, v);
      return a;
    }

    int activeCount(IntPredicate p) {
      int n = 0;
      for (int k = 0; k < w; k++) if (mask[k] && p.test(k)) n++;
      return n;
    }

    // ---- the functions ----

    void lane() {
      int[] e = new int[w];
      for (int k = 0; k < w; k++) e[k] = k;
      expectInts("lane", e, (int[]) call("lane"), k -> true);
    }

    void width() { expectInts("width", fill(w), (int[]) call("width"), k -> true); }

    void active() { expectInts("active", fill(activeCount(k -> true)), (int[]) call("active"), k -> true); }

    void votes() {
      int[] x = ints(-3, 3);
      int count = activeCount(k -> x[k] > 0);
      int n = activeCount(k -> true);
      int v = (count > 0 ? 1 : 0) | (count == n ? 2 : 0) | (count << 2);
      expectInts("votes", fill(v), (int[]) call("votes", x), k -> true);
    }

    void ballot() {
      int[] x = ints(-5, 5);
      long bits = 0;
      for (int k = 0; k < w; k++) if (mask[k] && (x[k] & 1) != 0) bits |= 1L << k;
      long[] e = new long[w];
      java.util.Arrays.fill(e, bits);
      expectLongs("ballot", e, (long[]) call("ballot", x));
    }

    void readLane() {
      int[] v = ints(-100, 100);
      int l = rnd.nextInt(-2, 2 * w);
      int src = l & (w - 1);
      expectInts("read_lane_u", fill(v[src]), (int[]) call("read_lane_u", v, l), k -> mask[src]);
      float[] fv = floats(true);
      int[] ls = ints(-w, 2 * w);
      double[] e = new double[w];
      for (int k = 0; k < w; k++) e[k] = fv[ls[k] & (w - 1)];
      expectFloats("read_lane_v", e, d((float[]) call("read_lane_v", fv, ls)), true, k -> mask[ls[k] & (w - 1)]);
    }

    void first() {
      long[] v = new long[w];
      for (int k = 0; k < w; k++) v[k] = rnd.nextLong();
      if (!any()) return;
      long[] e = new long[w];
      java.util.Arrays.fill(e, v[firstActive()]);
      expectLongs("first", e, (long[]) call("first", v));
    }

    void shuffle() {
      double[] v = new double[w];
      for (int k = 0; k < w; k++) v[k] = rnd.nextDouble(-1e6, 1e6);
      int[] src = ints(0, 3 * w);
      double[] e = new double[w];
      for (int k = 0; k < w; k++) e[k] = v[src[k] & (w - 1)];
      expectFloats("shuffle", e, (double[]) call("shuffle", v, src), true, k -> mask[src[k] & (w - 1)]);
    }

    void compact() {
      float[] v = floats(true);
      double[] e = d(v);
      int j = 0;
      for (int k = 0; k < w; k++) if (mask[k] && v[k] > 0.0f) e[j++] = v[k];
      expectFloats("compact", e, d((float[]) call("compact", v)), true, k -> true);
    }

    void reductions() {
      int[] v = ints(-1000, 1000);
      if (rnd.nextInt(4) == 0) v[rnd.nextInt(w)] = Integer.MAX_VALUE; // wrap-around
      int sum = 0;
      int min = Integer.MAX_VALUE;
      for (int k = 0; k < w; k++) {
        if (!mask[k]) continue;
        sum += v[k];
        min = Math.min(min, v[k]);
      }
      expectInts("radd_i", fill(sum), (int[]) call("radd_i", v), k -> true);
      expectInts("rmin_i", fill(min), (int[]) call("rmin_i", v), k -> true);
      long[] l = new long[w];
      for (int k = 0; k < w; k++) l[k] = rnd.nextLong();
      long max = Long.MIN_VALUE;
      for (int k = 0; k < w; k++) if (mask[k]) max = Math.max(max, l[k]);
      long[] e = new long[w];
      java.util.Arrays.fill(e, max);
      expectLongs("rmax_l", e, (long[]) call("rmax_l", l));
      float[] f = floats(true);
      double fmin = Double.NaN;
      for (int k = 0; k < w; k++) if (mask[k]) fmin = minnum(fmin, f[k]);
      double[] em = new double[w];
      java.util.Arrays.fill(em, fmin);
      expectFloats("rmin_f", em, d((float[]) call("rmin_f", f)), false, k -> true);
      double[] dv = new double[w];
      for (int k = 0; k < w; k++) dv[k] = rnd.nextInt(10) == 0 ? Double.NaN : rnd.nextDouble(-5, 5);
      double dmax = Double.NaN;
      for (int k = 0; k < w; k++) if (mask[k]) dmax = maxnum(dmax, dv[k]);
      double[] ex = new double[w];
      java.util.Arrays.fill(ex, dmax);
      expectFloats("rmax_d", ex, (double[]) call("rmax_d", dv), false, k -> true);
    }

    static double minnum(double a, double b) { return Double.isNaN(a) ? b : Double.isNaN(b) ? a : Math.min(a, b); }

    static double maxnum(double a, double b) { return Double.isNaN(a) ? b : Double.isNaN(b) ? a : Math.max(a, b); }

    /** The ordered float sum over the lanes where {@code in} holds, from -0.0. */
    float orderedSum(float[] v, IntPredicate in) {
      float acc = -0.0f;
      for (int k = 0; k < w; k++) if (mask[k] && in.test(k)) acc += v[k];
      return acc;
    }

    void raddF() {
      float[] v = floats(rnd.nextInt(4) == 0);
      for (int k = 0; k < w; k++) if (rnd.nextInt(3) == 0) v[k] *= 1e7f; // rounding depends on the order
      double[] e = new double[w];
      java.util.Arrays.fill(e, orderedSum(v, k -> true));
      expectFloats("radd_f", e, d((float[]) call("radd_f", v)), true, k -> true);
    }

    void divReduce() {
      float[] x = floats(true);
      float[] y = floats(false);
      float sum = orderedSum(y, k -> x[k] > 0.0f);
      double max = Double.NaN;
      for (int k = 0; k < w; k++) if (mask[k] && !(x[k] > 0.0f)) max = maxnum(max, y[k]);
      int cnt = activeCount(k -> !(x[k] > 0.0f) && y[k] > x[k]);
      double[] e = new double[w];
      for (int k = 0; k < w; k++) e[k] = x[k] > 0.0f ? sum : (float) max + (float) cnt;
      expectFloats("div_reduce", e, d((float[]) call("div_reduce", x, y)), false, k -> true);
    }

    void loopCount() {
      int[] n = ints(-1, 6);
      int[] e = new int[w];
      for (int k = 0; k < w; k++) {
        for (int i = 0; i < n[k]; i++) {
          int ii = i;
          e[k] += activeCount(j -> n[j] > ii) * 100 + k;
        }
      }
      expectInts("loop_count", e, (int[]) call("loop_count", n), k -> true);
    }

    void coherent() {
      int[] x = ints(rnd.nextBoolean() ? 0 : -1000, 1000);
      int[] e = new int[w];
      for (int k = 0; k < w; k++) e[k] = Math.abs(x[k]) * 3;
      expectInts("coherent", e, (int[]) call("coherent", x), k -> true);
    }

    void compactStore() {
      float[] v = floats(true);
      MemorySegment out = arena.allocate(ValueLayout.JAVA_FLOAT, w + 1);
      for (int k = 0; k <= w; k++) out.setAtIndex(ValueLayout.JAVA_FLOAT, k, 1000 + k);
      int n = activeCount(k -> v[k] > 0.0f);
      float[] expectedMem = new float[w + 1];
      for (int k = 0; k <= w; k++) expectedMem[k] = 1000 + k;
      int j = 0;
      float[] kept = new float[w];
      for (int k = 0; k < w; k++) if (mask[k] && v[k] > 0.0f) kept[j++] = v[k];
      for (int k = 0; k < n; k++) if (mask[k]) expectedMem[k] = kept[k];
      expectInts("compact_store result", fill(n), (int[]) call("compact_store", out, v), k -> true);
      float[] mem = out.toArray(ValueLayout.JAVA_FLOAT);
      for (int k = 0; k <= w; k++) {
        int kk = k;
        assertEquals(Float.floatToRawIntBits(expectedMem[k]), Float.floatToRawIntBits(mem[k]),
            () -> "compact_store memory W=" + w + " element " + kk + ": expected " + expectedMem[kk] + " got " + mem[kk]
                + " mask " + java.util.Arrays.toString(mask) + " v " + java.util.Arrays.toString(v));
      }
    }

    void window() {
      float[] t = floats(false);
      float[] table = new float[3 * w];
      for (int k = 0; k < table.length; k++) table[k] = t[k % w] + k;
      MemorySegment seg = arena.allocateFrom(ValueLayout.JAVA_FLOAT, table);
      int base = rnd.nextInt(0, w + 1);
      double[] e = new double[w];
      for (int k = 0; k < w; k++) e[k] = table[base + k] + table[base];
      expectFloats("window", e, d((float[]) call("window", seg, base)), true, k -> true);
    }

    void callsHelper() {
      int[] x = ints(-2, 5);
      int cnt = activeCount(k -> x[k] > 0 && x[k] > 2);
      int[] e = new int[w];
      for (int k = 0; k < w; k++) e[k] = x[k] > 0 ? cnt : -1;
      expectInts("calls_helper", e, (int[]) call("calls_helper", x), k -> true);
    }
  }
}
