package org.packetizer.core.mapping;

import static java.lang.foreign.ValueLayout.*;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.packetizer.core.Packetizer;
import org.packetizer.core.api.PacketizerOptions;
import org.packetizer.core.api.Remark;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.jit.Jit;
import org.packetizer.core.toolchain.BundledClang;

/**
 * The sampled sweep of the glibc-exact powf ({@link GlibcPow}, issue 16): 2^64 input pairs cannot all
 * be run, so the sweep covers every region of the input space instead, each against this machine's
 * libm (a C loop calling powf once per element), bit for bit, through the packet function's array
 * driver at W4 (x86-64-v2: powf stays per lane there), W8 (haswell) and W16 (x86-64-v4) where the host
 * runs them:
 * <ol>
 *   <li>the exponent grid: every pair of biased exponents of x and y (0..255 each: zeros, subnormals,
 *       normals, infinities and NaNs) and every sign pair, {@code S} random mantissas per cell;</li>
 *   <li>integer y (the sign rule for negative x and the even/odd test): small and large integers, x of
 *       both signs and every exponent;</li>
 *   <li>near overflow and underflow: y = t/log2(x) for t near 128, −126, −149 and −150, then up to 8
 *       ULPs either side, so that y·log2 x straddles each threshold;</li>
 *   <li>x near 1 (1 ± k ULP) with large |y|, where log2 x is tiny and its error matters most;</li>
 *   <li>every pair of special and boundary values.</li>
 * </ol>
 * <pre>  nice bin/exhaustive-math powf [S]</pre> (S = samples per grid cell, default 64: about 45 million
 * pairs per width). Prints the differing pairs per width (the first few) and exits non-zero when any differs.
 */
public final class GlibcPowSweep {
  private GlibcPowSweep() {}

  static final Linker C = Linker.nativeLinker();
  static final int CHUNK = 1 << 22;

  /** Special and boundary values of powf's inputs. */
  static final int[] SPECIALS = {0x00000000, 0x80000000, 0x7f800000, 0xff800000, 0x7fc00000, 0xffc00000, 0x7fa00001, 0x00000001,
      0x80000001, 0x007fffff, 0x807fffff, 0x00800000, 0x80800000, 0x7f7fffff, 0xff7fffff, 0x3f800000, 0xbf800000, 0x3f7fffff,
      0x3f800001, 0x40000000, 0xc0000000, 0x3f000000, 0xbf000000, 0x40400000, 0xc0400000, 0x4b000000, 0x4b000001, 0xcb000001,
      0x4b800000, 0x42fe0000, 0x43000000, 0xc3000000, 0xc3160000, 0xc3150000, 0x3f330000, 0x3fb30000, 0x4effffff, 0x5f800000};

  /** Fills x and y with the pairs of one chunk; returns how many (0: done). */
  interface Source { int fill(MemorySegment x, MemorySegment y); }

  public static void main(String[] args) throws Throwable {
    int samples = args.length > 0 ? Integer.parseInt(args[0]) : 64;
    String host = Jit.host().features();
    List<MathSources.Isa> isas = new ArrayList<>();
    for (MathSources.Isa isa : MathSources.ISAS) {
      if (isa.march().equals("haswell") && !host.contains("+avx2")) continue;
      if (isa.march().equals("x86-64-v4") && !host.contains("+avx512f")) continue;
      isas.add(isa);
    }
    List<LlvmContext> ctxs = new ArrayList<>();
    List<LlvmModule> mods = new ArrayList<>();
    List<Jit> jits = new ArrayList<>();
    long totalBad = 0, pairs = 0;
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment xs = arena.allocate(4L * CHUNK, 64), ys = arena.allocate(4L * CHUNK, 64);
      MemorySegment want = arena.allocate(4L * CHUNK, 64), got = arena.allocate(4L * CHUNK, 64);
      List<MethodHandle> drivers = new ArrayList<>();
      MethodHandle ref = null;
      for (MathSources.Isa isa : isas) {
        String src = """
            float powf(float, float);
            float k_powf(float x, float y) { return powf(x, y); }
            void ref_powf(const float *x, const float *y, float *out, long n) { for (long i = 0; i < n; i++) out[i] = powf(x[i], y[i]); }
            """;
        LlvmContext ctx = LlvmContext.create();
        ctxs.add(ctx);
        LlvmModule m = ctx.load(BundledClang.locate().compileToBitcode(src, "powsweep.c", List.of("-O2", "-march=" + isa.march(), "-nostdlibinc")),
            "powsweep.c");
        mods.add(m);
        List<Remark> rem = new ArrayList<>();
        new Packetizer(PacketizerOptions.builder().width(isa.width()).params("vv").arrayDriver("*_map")
            .vectorMath(PacketizerOptions.VectorMath.INTRINSICS).remarks(rem::add).build()).run(m, "k_powf", "k_powf_v");
        boolean exact = rem.stream().anyMatch(r -> r.message().contains("glibc-exact vector (verified at run time)"));
        System.out.printf("%s: %s%n", isa.name(), exact ? "glibc-exact vector powf" : "per-lane powf (no FMA in the target)");
        if (!exact && GlibcMath.fmaVariant(VectorMathRoutes.effectiveFeatures(m.function("k_powf").orElseThrow()))) {
          throw new IllegalStateException(isa.name() + ": not the glibc-exact route: " + rem);
        }
        Jit jit = Jit.host();
        jits.add(jit);
        jit.addModule(m);
        drivers.add(C.downcallHandle(MemorySegment.ofAddress(jit.lookup("k_powf_map")), FunctionDescriptor.ofVoid(ADDRESS, ADDRESS, ADDRESS, JAVA_LONG)));
        if (ref == null) ref = C.downcallHandle(MemorySegment.ofAddress(jit.lookup("ref_powf")), FunctionDescriptor.ofVoid(ADDRESS, ADDRESS, ADDRESS, JAVA_LONG));
      }
      long[] bad = new long[isas.size()];
      long t0 = System.nanoTime();
      for (Source s : sources(samples)) {
        while (true) {
          int n = s.fill(xs, ys);
          if (n == 0) break;
          pairs += n;
          ref.invokeExact(xs, ys, want, (long) n);
          for (int i = 0; i < isas.size(); i++) {
            drivers.get(i).invokeExact(xs, ys, got, (long) n);
            long off = 0;
            while (off < 4L * n) {
              long mm = MemorySegment.mismatch(want, off, 4L * n, got, off, 4L * n);
              if (mm < 0) break;
              long k = mm / 4;
              if (bad[i]++ < 5) {
                System.out.printf("  %s: powf(0x%08x, 0x%08x) = 0x%08x, packet 0x%08x%n", isas.get(i).name(), xs.getAtIndex(JAVA_INT, k),
                    ys.getAtIndex(JAVA_INT, k), want.getAtIndex(JAVA_INT, k), got.getAtIndex(JAVA_INT, k));
              }
              off = (k + 1) * 4;
            }
          }
        }
      }
      for (int i = 0; i < isas.size(); i++) {
        System.out.printf("powf %s: %d of %d pairs differ from this machine's libm%n", isas.get(i).name(), bad[i], pairs);
        totalBad += bad[i];
      }
      System.out.printf("%.0f s%n", (System.nanoTime() - t0) / 1e9);
    } finally {
      for (Jit j : jits) j.close();
      for (LlvmModule m : mods) m.close();
      for (LlvmContext c : ctxs) c.close();
    }
    System.exit(totalBad == 0 ? 0 : 1);
  }

  /** The five regions, each a generator of chunks. */
  static List<Source> sources(int samples) {
    SplittableRandom rnd = new SplittableRandom(0x9077F);
    List<Source> out = new ArrayList<>();
    // 1. the exponent grid, every sign pair
    long cells = 256L * 256 * 4;
    out.add(new Source() {
      long cell = 0;
      public int fill(MemorySegment x, MemorySegment y) {
        int n = 0;
        while (n + samples <= CHUNK && cell < cells) {
          int ex = (int) (cell & 255), ey = (int) ((cell >> 8) & 255), sx = (int) ((cell >> 16) & 1), sy = (int) ((cell >> 17) & 1);
          for (int k = 0; k < samples; k++, n++) {
            x.setAtIndex(JAVA_INT, n, (sx << 31) | (ex << 23) | (rnd.nextInt() & 0x7fffff));
            y.setAtIndex(JAVA_INT, n, (sy << 31) | (ey << 23) | (k == 0 ? 0 : rnd.nextInt() & 0x7fffff));
          }
          cell++;
        }
        return n;
      }
    });
    // 2. integer y, x of both signs
    out.add(counted(8L * samples * 16384, (x, y, n) -> {
      int yi = rnd.nextInt(4) == 0 ? rnd.nextInt(-(1 << 24), 1 << 24) : rnd.nextInt(-64, 65);
      int e = rnd.nextInt(4) == 0 ? rnd.nextInt(0, 255) : rnd.nextInt(117, 137);
      x.setAtIndex(JAVA_INT, n, (rnd.nextInt(2) << 31) | (e << 23) | (rnd.nextInt() & 0x7fffff));
      y.setAtIndex(JAVA_FLOAT, n, (float) yi);
    }));
    // 3. y·log2 x straddling the overflow and underflow thresholds
    double[] ts = {128, 127.9999, -126, -149, -150, -149.5, -125.9999};
    out.add(counted(4L * samples * 16384, (x, y, n) -> {
      float xv;
      do xv = Float.intBitsToFloat(rnd.nextInt(0x00800000, 0x7f800000)); while (xv == 1.0f);
      double t = ts[rnd.nextInt(ts.length)];
      float yv = (float) (t / (Math.log(xv) / Math.log(2)));
      int d = rnd.nextInt(-8, 9);
      int yb = Float.floatToRawIntBits(yv) + d;
      x.setAtIndex(JAVA_FLOAT, n, xv);
      y.setAtIndex(JAVA_INT, n, yb);
    }));
    // 4. x near 1, large |y|
    out.add(counted(2L * samples * 16384, (x, y, n) -> {
      int k = rnd.nextInt(1, 1 << 16);
      x.setAtIndex(JAVA_INT, n, rnd.nextBoolean() ? 0x3f800000 + k : 0x3f800000 - k);
      y.setAtIndex(JAVA_INT, n, (rnd.nextInt(2) << 31) | (rnd.nextInt(127 + 8, 127 + 40) << 23) | (rnd.nextInt() & 0x7fffff));
    }));
    // 5. every pair of specials
    out.add(counted((long) SPECIALS.length * SPECIALS.length, new Pair() {
      int i = 0;
      public void set(MemorySegment x, MemorySegment y, int n) {
        x.setAtIndex(JAVA_INT, n, SPECIALS[i / SPECIALS.length]);
        y.setAtIndex(JAVA_INT, n, SPECIALS[i % SPECIALS.length]);
        i++;
      }
    }));
    return out;
  }

  interface Pair { void set(MemorySegment x, MemorySegment y, int n); }

  static Source counted(long total, Pair p) {
    return new Source() {
      long done = 0;
      public int fill(MemorySegment x, MemorySegment y) {
        int n = (int) Math.min(CHUNK, total - done);
        for (int i = 0; i < n; i++) p.set(x, y, i);
        done += n;
        return n;
      }
    };
  }
}
