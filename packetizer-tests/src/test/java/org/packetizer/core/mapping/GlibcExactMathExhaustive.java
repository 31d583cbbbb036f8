package org.packetizer.core.mapping;

import static java.lang.foreign.ValueLayout.*;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.util.ArrayList;
import java.util.List;
import org.packetizer.core.Packetizer;
import org.packetizer.core.api.PacketizerOptions;
import org.packetizer.core.api.Remark;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.jit.Jit;
import org.packetizer.core.toolchain.BundledClang;

/**
 * The exhaustive check of the glibc-exact expf and logf ({@link GlibcMath}, issue 16), and of exp2f and
 * log2f ({@link GlibcPow}; powf has its sampled sweep, {@link GlibcPowSweep}): every one of
 * the 2^32 float inputs through the packet function (its array driver) at W4 (x86-64-v2: the plain
 * variant), W8 (haswell: the FMA variant) and W16 (x86-64-v4) where the host runs them, against this
 * machine's libm (a C loop calling expf/logf once per element), bit for bit. Too long for the regular
 * suite (a few minutes); run once, nice'd:
 * <pre>  nice bin/exhaustive-math [expf|logf|exp2f|log2f ...]</pre>
 * Prints the number of differing inputs per function and width (and the first few) and exits
 * non-zero when any differs.
 */
public final class GlibcExactMathExhaustive {
  private GlibcExactMathExhaustive() {}

  static final Linker C = Linker.nativeLinker();
  static final int CHUNK = 1 << 24;

  public static void main(String[] args) throws Throwable {
    List<String> fns = args.length == 0 ? List.of("expf", "logf", "exp2f", "log2f") : List.of(args);
    String host = Jit.host().features();
    List<MathSources.Isa> isas = new ArrayList<>();
    for (MathSources.Isa isa : MathSources.ISAS) {
      if (isa.march().equals("haswell") && !host.contains("+avx2")) continue;
      if (isa.march().equals("x86-64-v4") && !host.contains("+avx512f")) continue;
      isas.add(isa);
    }
    long totalBad = 0;
    List<LlvmContext> ctxs = new ArrayList<>();
    List<LlvmModule> mods = new ArrayList<>();
    List<Jit> jits = new ArrayList<>();
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment in = arena.allocate(4L * CHUNK, 64), want = arena.allocate(4L * CHUNK, 64), got = arena.allocate(4L * CHUNK, 64);
      List<MethodHandle[]> drivers = new ArrayList<>(); // per ISA: one driver per function
      MethodHandle fill = null;
      MethodHandle[] refs = new MethodHandle[fns.size()];
      for (MathSources.Isa isa : isas) {
        StringBuilder src = new StringBuilder("float expf(float);\nfloat logf(float);\nfloat exp2f(float);\nfloat log2f(float);\n");
        src.append("void fill(unsigned *a, unsigned start, long n) { for (long i = 0; i < n; i++) a[i] = start + (unsigned) i; }\n");
        for (String fn : fns) {
          src.append("float k_").append(fn).append("(float x) { return ").append(fn).append("(x); }\n");
          src.append("void ref_").append(fn).append("(const float *in, float *out, long n) { for (long i = 0; i < n; i++) out[i] = ")
              .append(fn).append("(in[i]); }\n");
        }
        LlvmContext ctx = LlvmContext.create();
        ctxs.add(ctx);
        LlvmModule m = ctx.load(BundledClang.locate().compileToBitcode(src.toString(), "exhaustive.c",
            List.of("-O2", "-march=" + isa.march(), "-nostdlibinc")), "exhaustive.c");
        mods.add(m);
        for (String fn : fns) {
          List<Remark> rem = new ArrayList<>();
          new Packetizer(PacketizerOptions.builder().width(isa.width()).params("v").arrayDriver("*_map")
              .vectorMath(PacketizerOptions.VectorMath.INTRINSICS).remarks(rem::add).build()).run(m, "k_" + fn, "k_" + fn + "_v");
          if (rem.stream().noneMatch(r -> r.message().contains("glibc-exact vector (verified at run time)"))) {
            throw new IllegalStateException(fn + " " + isa.name() + ": not the glibc-exact route: " + rem);
          }
        }
        Jit jit = Jit.host();
        jits.add(jit);
        jit.addModule(m);
        MethodHandle[] d = new MethodHandle[fns.size()];
        for (int i = 0; i < fns.size(); i++) {
          d[i] = C.downcallHandle(MemorySegment.ofAddress(jit.lookup("k_" + fns.get(i) + "_map")), FunctionDescriptor.ofVoid(ADDRESS, ADDRESS, JAVA_LONG));
          if (refs[i] == null) {
            refs[i] = C.downcallHandle(MemorySegment.ofAddress(jit.lookup("ref_" + fns.get(i))), FunctionDescriptor.ofVoid(ADDRESS, ADDRESS, JAVA_LONG));
          }
        }
        if (fill == null) fill = C.downcallHandle(MemorySegment.ofAddress(jit.lookup("fill")), FunctionDescriptor.ofVoid(ADDRESS, JAVA_INT, JAVA_LONG));
        drivers.add(d);
      }
      long[][] bad = new long[isas.size()][fns.size()];
      long t0 = System.nanoTime();
      for (long start = 0; start < (1L << 32); start += CHUNK) {
        fill.invokeExact(in, (int) start, (long) CHUNK);
        for (int f = 0; f < fns.size(); f++) {
          refs[f].invokeExact(in, want, (long) CHUNK);
          for (int i = 0; i < isas.size(); i++) {
            drivers.get(i)[f].invokeExact(in, got, (long) CHUNK);
            long off = 0;
            while (true) {
              long mm = MemorySegment.mismatch(want, off, 4L * CHUNK, got, off, 4L * CHUNK);
              if (mm < 0) break;
              long k = mm / 4;
              if (bad[i][f]++ < 5) {
                System.out.printf("  %s %s: %s(0x%08x) = 0x%08x, packet 0x%08x%n", fns.get(f), isas.get(i).name(), fns.get(f),
                    in.getAtIndex(JAVA_INT, k), want.getAtIndex(JAVA_INT, k), got.getAtIndex(JAVA_INT, k));
              }
              off = (k + 1) * 4;
              if (off >= 4L * CHUNK) break;
            }
          }
        }
        if ((start / CHUNK) % 32 == 31) System.out.printf("  %d%% (%.0f s)%n", (start + CHUNK) * 100 / (1L << 32), (System.nanoTime() - t0) / 1e9);
      }
      for (int f = 0; f < fns.size(); f++) {
        for (int i = 0; i < isas.size(); i++) {
          System.out.printf("%s %s: %d of 4294967296 inputs differ from this machine's libm%n", fns.get(f), isas.get(i).name(), bad[i][f]);
          totalBad += bad[i][f];
        }
      }
      System.out.printf("%.0f s%n", (System.nanoTime() - t0) / 1e9);
    } finally {
      for (Jit j : jits) j.close();
      for (LlvmModule m : mods) m.close();
      for (LlvmContext c : ctxs) c.close();
    }
    System.exit(totalBad == 0 ? 0 : 1);
  }
}
