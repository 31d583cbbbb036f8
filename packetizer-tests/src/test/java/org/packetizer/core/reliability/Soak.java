package org.packetizer.core.reliability;

import java.io.IOException;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.packetizer.core.api.PacketizationException;
import org.packetizer.core.Packetizer;
import org.packetizer.core.api.PacketizerOptions;
import org.packetizer.core.check.CheckResult;
import org.packetizer.core.check.DifferentialCheck;
import org.packetizer.core.check.KernelChecks;
import org.packetizer.core.check.NativeMemory;
import org.packetizer.core.check.ParamSpec;
import org.packetizer.core.ir.IrLoadException;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.jit.Jit;
import org.packetizer.core.jit.JitFunction;
import org.packetizer.core.toolchain.Manifest;

/**
 * The soak workload: what a renderer recompiling shaders does, over and over in one JVM. Each
 * iteration, in a fresh {@link LlvmContext}: load a kernel's bitcode, packetize it, JIT-compile the
 * module and differentially check it (which JITs it again and calls both functions); call the packet
 * function through a {@link Jit} directly; and walk the failure paths (a rejected packetization, a
 * module that does not parse, a check whose specs do not fit) so their clean-up is soaked too.
 * Resident memory ({@code VmRSS} from /proc/self/status) is sampled as it goes.
 *
 * <p>{@code main}: the long documented run, e.g. {@code Soak 3000} (iterations).
 */
public final class Soak {
  /** Kernels the soak cycles through: loops, math, pointers. */
  static final List<String> KERNELS = List.of("mandelbrot", "bs_call", "shade", "integrate", "julia", "noise3");

  /**
   * One sample: iteration, resident memory in kB before and after returning free heap to the system
   * ({@code malloc_trim}), Java heap in use after a full collection, and live bytes malloc'd
   * (glibc's {@code mallinfo2}: in-use chunks plus mmapped ones; the JVM's own mallocs included).
   */
  public record Sample(int iteration, long rssKb, long rssTrimmedKb, long heapKb, long mallocKb, int mappings,
      long jvmCommittedKb, long jvmMallocKb, double seconds) {
    /**
     * Live malloc'd memory that is not the JVM's own (its compiler arenas, GC and class metadata:
     * Native Memory Tracking's malloc total): LLVM's, javacpp's and the JIT's. The JVM's share swings
     * by tens of MB while its compiler threads work; this one does not. -1 without NMT or glibc.
     */
    public long nativeKb() { return mallocKb < 0 || jvmMallocKb < 0 ? -1 : mallocKb - jvmMallocKb; }

    /** One line for the child-JVM protocol of {@link SoakTest}. */
    String line() {
      return String.format(Locale.ROOT, "soak-sample %d %d %d %d %d %d %d %d %.3f", iteration, rssKb, rssTrimmedKb, heapKb, mallocKb, mappings,
          jvmCommittedKb, jvmMallocKb, seconds);
    }

    static Sample parse(String line) {
      String[] f = line.trim().split(" ");
      if (f.length != 10 || !f[0].equals("soak-sample")) throw new IllegalArgumentException("not a soak sample: " + line);
      return new Sample(Integer.parseInt(f[1]), Long.parseLong(f[2]), Long.parseLong(f[3]), Long.parseLong(f[4]), Long.parseLong(f[5]),
          Integer.parseInt(f[6]), Long.parseLong(f[7]), Long.parseLong(f[8]), Double.parseDouble(f[9]));
    }
  }

  /** Memory mappings of the process (/proc/self/maps lines): a leak of mmapped memory (JIT code, guard pages) shows here. */
  static int mappings() {
    try (var lines = Files.lines(Path.of("/proc/self/maps"))) {
      return (int) lines.count();
    } catch (IOException | UncheckedIOException e) {
      return -1;
    }
  }

  private Soak() {}

  /** Resident set size of this process in kB (/proc/self/status VmRSS), -1 where unavailable. */
  public static long rssKb() {
    try {
      for (String l : Files.readAllLines(Path.of("/proc/self/status"))) {
        if (l.startsWith("VmRSS:")) return Long.parseLong(l.replaceAll("[^0-9]", ""));
      }
    } catch (IOException | UncheckedIOException e) {
      return -1;
    }
    return -1;
  }

  static List<Manifest.Entry> kernels(Manifest manifest) {
    List<Manifest.Entry> out = new ArrayList<>();
    for (String n : KERNELS) manifest.entry(n).ifPresent(out::add);
    if (out.isEmpty()) out.addAll(manifest.family("kernel"));
    if (out.isEmpty()) throw new IllegalStateException("no kernels in the manifest");
    return out;
  }

  /** Parts of the iteration to run (for bisecting a leak): p packetize, c check, j JIT, f failure paths. */
  static final String PARTS = System.getProperty("packetizer.soak.parts", "pcjf");

  /** One iteration of the workload on kernel {@code e}. */
  static void iteration(Manifest manifest, Manifest.Entry e, int i) {
    int w = new int[] {4, 8, 16}[i % 3];
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.load(manifest.bitcode(e), e.bitcode())) {
      String simd = e.function() + "_simd";
      // a failing packetization first (rolled back), then the real one
      if (PARTS.contains("f")) try {
        new Packetizer(PacketizerOptions.builder().width(3).build()).run(m, e.function(), simd);
        throw new AssertionError("width 3 was accepted");
      } catch (PacketizationException expected) {
        // rolled back
      }
      if (!PARTS.contains("p")) return;
      new Packetizer(PacketizerOptions.builder().width(w).params(KernelChecks.paramKinds(e))
          .vectorMath(PacketizerOptions.VectorMath.INTRINSICS).build()).run(m, e.function(), simd); // bit-exact checks
      if (PARTS.contains("c")) try (DifferentialCheck c = KernelChecks.checkBuilder(e, m, simd, w).build()) {
        CheckResult r = c.runMany(2, i);
        if (!r.passed()) throw new AssertionError(e.name() + " W=" + w + " iteration " + i + ":\n" + r.report());
      }
      // a check whose specs do not fit: its JIT must be closed on the failure path
      if (PARTS.contains("f")) try (DifferentialCheck bad = DifferentialCheck.builder(m, e.function(), simd, w).params(List.<ParamSpec>of()).build()) {
        throw new AssertionError("specs accepted: " + bad);
      } catch (IllegalArgumentException expected) {
        // the builder closed its JIT
      }
      // the JIT on its own: compile and call the packet function when its arguments are all scalars
      if (PARTS.contains("j") && !e.hasPointerParams()) {
        try (Jit jit = Jit.host()) {
          jit.addModule(m);
          JitFunction f = jit.function(simd);
          f.argsSize();
          jit.lookup(e.function());
        }
      }
      // a module that does not parse, in the same context
      if (PARTS.contains("f")) try (LlvmModule broken = ctx.parseIr("define i32 @f( {", "broken.ll")) {
        throw new AssertionError("parsed: " + broken);
      } catch (IrLoadException expected) {
        // nothing leaked
      }
    }
  }

  /**
   * Runs the workload until {@code budget} has passed or {@code maxIterations} are done, sampling
   * RSS every {@code every} iterations.
   */
  public static List<Sample> run(Duration budget, int maxIterations, int every, PrintStream log) {
    Manifest manifest = Manifest.load();
    List<Manifest.Entry> ks = kernels(manifest);
    List<Sample> samples = new ArrayList<>();
    long t0 = System.nanoTime();
    long deadline = t0 + budget.toNanos();
    Runtime rt = Runtime.getRuntime();
    for (int i = 0; i < maxIterations; i++) {
      iteration(manifest, ks.get(i % ks.size()), i);
      leak();
      if ((i + 1) % every == 0) {
        // a full collection first: what is measured is what stays, not garbage awaiting the collector
        // (javacpp frees native memory of unreferenced pointers when they are collected)
        System.gc();
        long rss = rssKb();
        NativeMemory.mallocTrim();
        // (the JVM's malloc total right before and after glibc's: what the JVM frees in between lands on neither)
        long jvm0 = NativeMemory.jvmMallocKb();
        long all = NativeMemory.mallocKb();
        long jvm1 = NativeMemory.jvmMallocKb();
        Sample s = new Sample(i + 1, rss, rssKb(), (rt.totalMemory() - rt.freeMemory()) / 1024, all, mappings(),
            NativeMemory.jvmCommittedKb(), jvm0 < 0 || jvm1 < 0 ? -1 : Math.min(jvm0, jvm1), (System.nanoTime() - t0) / 1e9);
        samples.add(s);
        if (log != null) {
          log.printf(Locale.ROOT, "soak: iteration %5d  RSS %6.1f MB (after malloc_trim %6.1f MB)  malloc'd %5.1f MB"
              + " (not the JVM's %5.1f MB)  Java heap %5.1f MB  mappings %5d%s  %6.1f s%n", s.iteration(), s.rssKb() / 1024.0,
              s.rssTrimmedKb() / 1024.0, s.mallocKb() / 1024.0, s.nativeKb() / 1024.0, s.heapKb() / 1024.0, s.mappings(),
              s.jvmCommittedKb() < 0 ? "" : String.format(Locale.ROOT, "  JVM committed %6.1f MB", s.jvmCommittedKb() / 1024.0),
              s.seconds());
        }
      }
      if (System.nanoTime() > deadline) break;
    }
    return samples;
  }

  /** Least-squares slope of the trimmed RSS (kB) per iteration over the samples. */
  public static double slopeKbPerIteration(List<Sample> ss) {
    return slope(ss, Sample::rssTrimmedKb);
  }

  /**
   * Theil–Sen slope of a sample's value (kB) per iteration: the median of the slopes between every two
   * samples. A transient burst (memory allocated around one sample and freed by the next: a JIT
   * compilation, a malloc arena growing and trimmed) moves the least-squares slope by the burst's height
   * over the run's length, the median hardly at all; a steady leak moves both by the leak per iteration.
   */
  public static double medianSlope(List<Sample> ss, java.util.function.ToLongFunction<Sample> value) {
    List<Double> slopes = new ArrayList<>();
    for (int i = 0; i < ss.size(); i++)
      for (int j = i + 1; j < ss.size(); j++) {
        long dx = ss.get(j).iteration() - ss.get(i).iteration();
        if (dx != 0) slopes.add((double) (value.applyAsLong(ss.get(j)) - value.applyAsLong(ss.get(i))) / dx);
      }
    if (slopes.isEmpty()) return 0;
    java.util.Collections.sort(slopes);
    int n = slopes.size();
    return n % 2 == 1 ? slopes.get(n / 2) : (slopes.get(n / 2 - 1) + slopes.get(n / 2)) / 2;
  }

  /** Least-squares slope of a sample's value (kB) per iteration. */
  public static double slope(List<Sample> ss, java.util.function.ToLongFunction<Sample> value) {
    int n = ss.size();
    if (n < 2) return 0;
    double mx = 0, my = 0;
    for (Sample s : ss) {
      mx += s.iteration();
      my += value.applyAsLong(s);
    }
    mx /= n;
    my /= n;
    double num = 0, den = 0;
    for (Sample s : ss) {
      num += (s.iteration() - mx) * (value.applyAsLong(s) - my);
      den += (s.iteration() - mx) * (s.iteration() - mx);
    }
    return den == 0 ? 0 : num / den;
  }

  /**
   * {@code Soak [iterations (3000)] [every (100)] [--protocol] [--leak-kb K]}: the long run, printing
   * memory as it goes, then the fitted slopes after warm-up. {@code --protocol} also prints every
   * sample as a {@code soak-sample} line (what {@link SoakTest} reads from its child JVM);
   * {@code --leak-kb K} leaks K kB of malloc'd memory per iteration on purpose, to show that the
   * slopes see a leak of that size.
   */
  public static void main(String[] args) {
    List<String> pos = new ArrayList<>();
    boolean protocol = false;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--protocol" -> protocol = true;
        case "--leak-kb" -> leakKb = Integer.parseInt(args[++i]);
        default -> pos.add(args[i]);
      }
    }
    int n = pos.size() > 0 ? Integer.parseInt(pos.get(0)) : 3000;
    int every = pos.size() > 1 ? Integer.parseInt(pos.get(1)) : 100;
    List<Sample> ss = run(Duration.ofDays(1), n, every, System.out);
    if (protocol) for (Sample s : ss) System.out.println(s.line());
    List<Sample> after = afterWarmup(ss);
    System.out.printf(Locale.ROOT, "soak: %d iterations; after warm-up (iteration %d) RSS %.1f MB (trimmed %.1f MB), at the"
        + " end %.1f MB (trimmed %.1f MB); slopes after warm-up: RSS %.2f, trimmed RSS %.2f, malloc'd %.2f, malloc'd but not by"
        + " the JVM %.2f kB/iteration; mappings %+d%n",
        ss.getLast().iteration(), after.getFirst().iteration(), after.getFirst().rssKb() / 1024.0,
        after.getFirst().rssTrimmedKb() / 1024.0, ss.getLast().rssKb() / 1024.0, ss.getLast().rssTrimmedKb() / 1024.0,
        slope(after, Sample::rssKb), slopeKbPerIteration(after), slope(after, Sample::mallocKb), slope(after, Sample::nativeKb),
        ss.getLast().mappings() - after.getFirst().mappings());
  }

  /** The samples after warm-up (class loading, the JVM's compilers, allocator pools): all but the first third. */
  public static List<Sample> afterWarmup(List<Sample> ss) {
    return ss.subList(Math.min(ss.size() - 1, ss.size() / 3), ss.size());
  }

  /** kB of malloc'd memory leaked per iteration on purpose ({@code --leak-kb}); 0 normally. */
  static int leakKb = Integer.getInteger("packetizer.soak.leakKb", 0);

  private static final MethodHandle MALLOC = Linker.nativeLinker().defaultLookup().find("malloc")
      .map(a -> Linker.nativeLinker().downcallHandle(a, FunctionDescriptor.of(ValueLayout.ADDRESS, ValueLayout.JAVA_LONG))).orElse(null);

  /** The deliberate leak: memory malloc'd as LLVM would, never freed. */
  static void leak() {
    if (leakKb <= 0 || MALLOC == null) return;
    try {
      MemorySegment unused = (MemorySegment) MALLOC.invokeExact((long) leakKb * 1024);
    } catch (Throwable t) {
      throw new IllegalStateException(t);
    }
  }
}
