package org.packetizer.core.wrapper;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import org.packetizer.core.api.PacketizationResult;
import org.packetizer.core.Packetizer;
import org.packetizer.core.api.PacketizerOptions;
import org.packetizer.core.api.ParamKind;
import org.packetizer.core.api.WrapperMode;
import org.packetizer.core.check.CheckResult;
import org.packetizer.core.check.DifferentialCheck;
import org.packetizer.core.check.KernelChecks;
import org.packetizer.core.ir.Block;
import org.packetizer.core.ir.Function;
import org.packetizer.core.ir.IrBuilder;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.ir.Type;
import org.packetizer.core.ir.Value;
import org.packetizer.core.jit.Jit;
import org.packetizer.core.jit.JitFunction;
import org.packetizer.core.toolchain.Manifest;

/**
 * Measures the two ways of serving a packet width S above the hardware width N (thesis 4.6): LOOP
 * (the N-wide packet function called S/N times by a wrapper) against DIRECT (packetized at S, the
 * backend splits the vectors), for S = 16, 32, 64 on a 4-wide (x86-64, +sse4.2) and an 8-wide
 * (haswell, +avx2) target, plus the N-wide function itself as a reference.
 *
 * <p>Each variant is driven by a generated IR loop {@code void drive(ptr in, ptr out, i64 n)} that
 * runs n times over E elements, loading S-lane packets, calling the function and storing its result
 * (struct-of-arrays parameters get their packet's part of a buffer), so no per-call trampoline cost
 * is measured. Before timing, each kernel's DIRECT form is checked against the scalar function with
 * the differential harness, and LOOP and DIRECT must leave bit-identical memory on the benchmark's
 * inputs; kernels that fail are reported and skipped. Times are medians over rounds in which the
 * variants of one (kernel, N, S) run side by side, in alternating order, measured as the thread's CPU
 * time (the machine is shared: wall-clock time would count the time the thread waits for a core).
 * The DIRECT/LOOP column is the median of the per-round ratios.
 *
 * <p>Run from the repository root (arguments: rounds, default 11; a comma-separated list of kernels,
 * default all):
 *
 * <pre>
 * export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
 * mvn -q -o -pl packetizer-tests -am install -DskipTests
 * mvn -q -o -pl packetizer-tests dependency:build-classpath -Dmdep.includeScope=test -Dmdep.outputFile=target/bench.cp
 * $JAVA_HOME/bin/java --enable-native-access=ALL-UNNAMED -cp packetizer-tests/target/test-classes:\
 *   packetizer-tests/target/classes:packetizer-analysis/target/classes:testdata-bitcode/target/classes:\
 *   $(cat packetizer-tests/target/bench.cp) org.packetizer.core.wrapper.WrapperBenchmark 21
 * </pre>
 */
public final class WrapperBenchmark {
  /** Elements per driver pass (a multiple of 64). */
  static final int E = 2048;
  static final int[] WIDTHS = {16, 32, 64};
  static final String[][] TARGETS = {{"x86-64", "+sse4.2"}, {"haswell", "+avx2"}};
  /** Target (CPU) time of one measurement. */
  static final long TARGET_NANOS = 4_000_000;
  /** Thread CPU time: the machine is shared, and time spent descheduled must not count. */
  static final java.lang.management.ThreadMXBean THREADS = java.lang.management.ManagementFactory.getThreadMXBean();

  static long now() { return THREADS.getCurrentThreadCpuTime(); }

  private WrapperBenchmark() {}

  /** A kernel: where it comes from and how its parameters are fed. */
  record Kernel(String name, String label, Manifest.Entry entry, boolean fromTestdata) {}

  public static void main(String[] args) throws Exception {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 11;
    List<String> only = args.length > 1 ? List.of(args[1].split(",")) : List.of();
    Manifest mf = Manifest.load();
    List<Kernel> kernels = new ArrayList<>();
    kernels.add(new Kernel("mandelbrot", "escape-time loop (divergent loop, uniform limit)", mf.require("mandelbrot"), true));
    kernels.add(new Kernel("march", "sphere tracing (divergent loop, sqrtf)", mf.require("march"), true));
    kernels.add(new Kernel("fig23", "Fig 2.3 (divergent loop, 0-100 iterations)", mf.require("fig23"), true));
    kernels.add(new Kernel("checker", "checker texture (if/else, floorf)", mf.require("checker"), true));
    kernels.add(new Kernel("noise3", "gradient noise (branchy, table gathers)", mf.require("noise3"), true));
    kernels.add(new Kernel("bs_call", "Black-Scholes (expf, logf, sqrtf)", mf.require("bs_call"), true));
    kernels.add(new Kernel("escape_color", "escape loop, colour out through SOA", escapeColorEntry(), false));
    kernels.add(new Kernel("fig414", "Fig 4.14 (nested loops, SOA Color out)", mf.require("fig414"), true));
    kernels.add(new Kernel("shade", "Phong shading (SOA Hit in, SOA Color out, powf)", mf.require("shade"), true));
    kernels.add(new Kernel("soa_math", "normalise SOA vector to SOA colour (sqrt, one branch)", soaMathEntry(), false));
    kernels.add(new Kernel("fig417", "Fig 4.17 (SOA Color in/out, one divergent store)", mf.require("fig417"), true));

    System.out.printf(Locale.ROOT, "WrapperBenchmark: host %s, %d elements per pass, %d rounds, medians in ns per element%n",
        org.packetizer.core.ir.Llvm.hostCpuName(), E, rounds);
    List<String> rows = new ArrayList<>();
    Map<String, int[]> wins = new LinkedHashMap<>();
    for (Kernel k : kernels) {
      if (!only.isEmpty() && !only.contains(k.name())) continue;
      for (String[] t : TARGETS) {
        int n = HardwareWidth.of(t[0], t[1]);
        try {
          List<String> r = measure(mf, k, t[0], t[1], n, rounds, wins);
          rows.addAll(r);
          r.forEach(System.out::println);
        } catch (RuntimeException e) {
          String msg = "| " + k.name() + " | " + n + " | - | skipped: " + e.getMessage().lines().findFirst().orElse("")
              + " | | | | |";
          rows.add(msg);
          System.out.println(msg);
        }
      }
    }
    System.out.println();
    System.out.println("| kernel | N | S | LOOP ns/elem | DIRECT ns/elem | DIRECT/LOOP | N-wide alone ns/elem | faster | AUTO picks |");
    System.out.println("|---|---|---|---|---|---|---|---|---|");
    rows.forEach(System.out::println);
    System.out.println();
    wins.forEach((key, w) -> System.out.println(key + ": LOOP faster in " + w[0] + ", DIRECT faster in " + w[1]
        + " (by more than 3%), ties " + w[2]));
  }

  private static final String VEC3 = "{ float, float, float }";

  /** The escape-loop-with-colour kernel of bench.ll, described like a manifest entry. */
  static Manifest.Entry escapeColorEntry() {
    List<Manifest.Param> ps = List.of(
        new Manifest.Param("cx", "float", "varying", null, List.of(-2.0, 1.0), "real part of c", null, null, null, null, null),
        new Manifest.Param("cy", "float", "varying", null, List.of(-1.5, 1.5), "imaginary part of c", null, null, null, null, null),
        new Manifest.Param("maxIter", "i32", "uniform", null, List.of(100, 100), "iteration limit", null, null, null, null, null),
        new Manifest.Param("out", "ptr", "soa", null, null, "colour", VEC3, null, 1L, "out", Manifest.Init.ZERO));
    return new Manifest.Entry("escape_color", "bench.ll", "bench.ll", "escape_color", "bench", "escape loop, colour out",
        ps, new Manifest.Returns("void", ""), "vvus", false, false, 0, List.of());
  }

  /** The normalise-to-colour kernel of bench.ll. */
  static Manifest.Entry soaMathEntry() {
    List<Manifest.Param> ps = List.of(
        new Manifest.Param("in", "ptr", "soa", null, null, "vector", VEC3, null, 1L, "in", Manifest.Init.random(-2, 2)),
        new Manifest.Param("out", "ptr", "soa", null, null, "colour", VEC3, null, 1L, "out", Manifest.Init.ZERO));
    return new Manifest.Entry("soa_math", "bench.ll", "bench.ll", "soa_math", "bench", "normalise to colour", ps,
        new Manifest.Returns("void", ""), "ss", false, true, 0, List.of());
  }

  static String benchIr() {
    try (InputStream in = WrapperBenchmark.class.getResourceAsStream("/wrapper/bench.ll")) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  // ---- one kernel on one target ----

  /** One packet function variant and its driver. */
  record Variant(String label, String fn, int width) {
    String driver() { return "drive." + fn; }
  }

  static List<String> measure(Manifest mf, Kernel k, String cpu, String features, int n, int rounds, Map<String, int[]> wins) {
    Manifest.Entry e = k.entry();
    try (LlvmContext ctx = LlvmContext.create();
        LlvmModule m = k.fromTestdata() ? ctx.load(mf.bitcode(e), e.bitcode()) : ctx.parseIr(benchIr(), "bench.ll")) {
      String fn = e.function();
      String letters = String.join("", e.params().stream().map(Manifest.Param::letters).toList());
      List<ParamKind> kinds = ParamKind.parseLetters(letters);
      Layout layout = new Layout(ctx, m, e);
      Variant ref = new Variant("N", fn + ".ref" + n, n);
      PacketizationResult refResult = packetize(m, fn, ref.fn(), n, n, letters, WrapperMode.DIRECT);
      Map<Integer, Variant[]> byS = new LinkedHashMap<>();
      for (int s : WIDTHS) {
        Variant loop = new Variant("LOOP", fn + ".s" + s + ".loop", s);
        Variant direct = new Variant("DIRECT", fn + ".s" + s + ".direct", s);
        packetize(m, fn, loop.fn(), s, n, letters, WrapperMode.LOOP);
        packetize(m, fn, direct.fn(), s, n, letters, WrapperMode.DIRECT);
        byS.put(s, new Variant[] {loop, direct});
      }
      List<Variant> all = new ArrayList<>();
      all.add(ref);
      byS.values().forEach(v -> all.addAll(List.of(v)));
      for (Variant v : all) driver(m, v, kinds, layout);
      m.verifyOrThrow("benchmark module");

      verifyAgainstScalar(m, e, fn, byS.get(16)[1].fn(), 16, cpu, features);

      List<String> rows = new ArrayList<>();
      try (Jit jit = Jit.forTarget(cpu, features); Arena arena = Arena.ofShared()) {
        jit.addModuleRetargeted(m);
        Buffers buf = new Buffers(arena, layout, 1);
        // LOOP and DIRECT must agree bit for bit on the benchmark inputs
        for (Variant[] v : byS.values()) {
          byte[][] a = buf.runOnce(jit.function(v[0].driver()));
          byte[][] b = buf.runOnce(jit.function(v[1].driver()));
          if (!Arrays.equals(a[0], b[0]) || !Arrays.equals(a[1], b[1])) {
            throw new IllegalStateException("LOOP and DIRECT disagree at S=" + v[0].width());
          }
        }
        double refNs = median(time(jit, buf, List.of(ref), rounds).get(0));
        for (var entry : byS.entrySet()) {
          List<double[]> t = time(jit, buf, List.of(entry.getValue()), rounds);
          double loopNs = median(t.get(0));
          double directNs = median(t.get(1));
          double[] ratios = new double[rounds];
          for (int i = 0; i < rounds; i++) ratios[i] = t.get(1)[i] / t.get(0)[i];
          double ratio = median(ratios);
          int[] w = wins.computeIfAbsent("N=" + n + " S=" + entry.getKey(), x -> new int[3]);
          if (ratio > 1.03) w[0]++;
          else if (ratio < 1 / 1.03) w[1]++;
          else w[2]++;
          String faster = ratio > 1.03 ? "LOOP" : ratio < 1 / 1.03 ? "DIRECT" : "tie";
          String auto = LoopWrapper.prefersLoop(entry.getKey(), n, refResult) ? "LOOP" : "DIRECT";
          rows.add(String.format(Locale.ROOT, "| %s | %d | %d | %.2f | %.2f | %.2f | %.2f | %s | %s |", k.name(), n,
              entry.getKey(), loopNs, directNs, ratio, refNs, faster, auto));
        }
      }
      return rows;
    }
  }

  static PacketizationResult packetize(LlvmModule m, String fn, String simd, int s, int n, String letters, WrapperMode mode) {
    return new Packetizer(PacketizerOptions.builder().width(s).params(letters).hardwareWidth(n).wrapperMode(mode).build())
        .run(m, fn, simd);
  }

  /** DIRECT at S against the scalar function (catches kernels the packet emitter gets wrong). */
  static void verifyAgainstScalar(LlvmModule m, Manifest.Entry e, String fn, String simd, int s, String cpu, String features) {
    try (DifferentialCheck c = KernelChecks.checkBuilder(e, m, fn, simd, s).target(cpu, features).build()) {
      CheckResult r = c.runMany(20, 1);
      if (!r.passed()) {
        throw new IllegalStateException("the packet function disagrees with the scalar one (a packetizer bug, not the"
            + " wrapper's): " + r.report().lines().skip(1).findFirst().orElse("").strip());
      }
    }
  }

  // ---- inputs and the driver ----

  /**
   * Where each parameter's data lives in the {@code in} buffer: varying scalars E values, uniform
   * pointers one object, struct-of-arrays pointers E objects (packet p's S objects at p*S*size).
   */
  static final class Layout {
    final Manifest.Entry entry;
    final Type[] pointee;
    final long[] offset;
    final long[] bytes;
    final long inBytes, outBytes;
    final long resultSize;

    Layout(LlvmContext ctx, LlvmModule m, Manifest.Entry e) {
      this.entry = e;
      int np = e.params().size();
      pointee = new Type[np];
      offset = new long[np];
      bytes = new long[np];
      long at = 0;
      for (int i = 0; i < np; i++) {
        Manifest.Param p = e.params().get(i);
        long size;
        if (p.isPointer()) {
          pointee[i] = KernelChecks.parseType(ctx, p.pointee());
          long obj = m.allocSize(pointee[i]) * p.count();
          size = p.isSoa() ? obj * E : obj;
        } else if (p.isUniform()) {
          size = 0;
        } else {
          size = 4L * E;
        }
        offset[i] = at;
        bytes[i] = size;
        at += (size + 63) & ~63L;
      }
      inBytes = Math.max(64, at);
      String rt = e.returns().type();
      resultSize = rt.equals("void") ? 0 : 4;
      outBytes = Math.max(64, resultSize * E);
    }

    /**
     * Fills {@code in}: every 4-byte word of a parameter's region from its range or init (the
     * benchmark kernels' buffers hold floats only).
     */
    void fill(MemorySegment in, long seed) {
      SplittableRandom rnd = new SplittableRandom(seed);
      for (int i = 0; i < entry.params().size(); i++) {
        Manifest.Param p = entry.params().get(i);
        if (bytes[i] == 0) continue;
        boolean isFloat = p.isPointer() || "float".equals(p.type());
        double lo, hi;
        if (p.isPointer()) {
          Manifest.Init init = p.init();
          lo = init.kind() == Manifest.Init.Kind.ZERO ? 0 : init.lo();
          hi = init.kind() == Manifest.Init.Kind.ZERO ? 0 : init.hi();
        } else {
          lo = p.lo();
          hi = p.hi();
        }
        for (long w = 0; w < bytes[i] / 4; w++) {
          long at = offset[i] + 4 * w;
          if (isFloat) in.set(ValueLayout.JAVA_FLOAT, at, (float) (lo + (hi - lo) * rnd.nextDouble()));
          else in.set(ValueLayout.JAVA_INT, at, (int) Math.round(lo + (hi - lo) * rnd.nextDouble()));
        }
      }
    }
  }

  /** {@code void drive.<fn>(ptr in, ptr out, i64 n)}: n passes over E elements in packets of the variant's width. */
  static void driver(LlvmModule m, Variant v, List<ParamKind> kinds, Layout layout) {
    LlvmContext ctx = m.context();
    Function f = m.function(v.fn()).orElseThrow();
    Type ptr = ctx.ptrType();
    Type i64 = ctx.i64();
    Function d = m.addFunction(v.driver(), ctx.functionType(ctx.voidType(), List.of(ptr, ptr, i64), false));
    Value in = d.param(0);
    Value out = d.param(1);
    Value n = d.param(2);
    int w = v.width();
    long packets = E / w;
    try (IrBuilder b = new IrBuilder(ctx)) {
      Block entry = d.appendBlock("entry");
      Block outer = d.appendBlock("outer");
      Block inner = d.appendBlock("inner");
      Block latch = d.appendBlock("outer.latch");
      Block exit = d.appendBlock("exit");
      b.atEnd(entry);
      b.br(outer);
      b.atEnd(outer);
      Value r = b.phi(i64, "r");
      b.br(inner);
      b.atEnd(inner);
      Value p = b.phi(i64, "p");
      List<Value> args = new ArrayList<>();
      Manifest.Entry e = layout.entry;
      for (int i = 0; i < kinds.size(); i++) {
        Manifest.Param mp = e.params().get(i);
        Type pt = f.param(i).type();
        switch (kinds.get(i)) {
          case ParamKind.Varying vk -> {
            Value off = b.add(b.i64(layout.offset[i]), b.mul(p, b.i64(4L * w), ""), "");
            args.add(b.load(pt, b.gep(ctx.i8(), in, List.of(off), true, ""), 4, mp.name()));
          }
          case ParamKind.Uniform u -> {
            if (pt.isPointer()) args.add(b.gep(ctx.i8(), in, List.of(b.i64(layout.offset[i])), true, mp.name()));
            else if (pt.isFloatingPoint()) args.add(b.constReal(pt, (mp.lo() + mp.hi()) / 2));
            else args.add(b.constInt(pt, (long) mp.hi()));
          }
          case ParamKind.SoaPointer s -> {
            long packetBytes = m.allocSize(layout.pointee[i]) * mp.count() * w;
            Value off = b.add(b.i64(layout.offset[i]), b.mul(p, b.i64(packetBytes), ""), "");
            args.add(b.gep(ctx.i8(), in, List.of(off), true, mp.name()));
          }
          case ParamKind.Linear l -> throw new IllegalArgumentException("linear parameters are not benchmarked");
        }
      }
      Value res = b.call(f, args, "res");
      org.bytedeco.llvm.global.LLVM.LLVMSetInstructionCallConv(res.ref(), f.callingConvention());
      if (layout.resultSize > 0) {
        Value off = b.mul(p, b.i64(layout.resultSize * w), "");
        b.store(res, b.gep(ctx.i8(), out, List.of(off), true, ""), 4);
      }
      Value p1 = b.add(p, b.i64(1), "p1");
      b.condBr(b.icmp(org.bytedeco.llvm.global.LLVM.LLVMIntULT, p1, b.i64(packets), ""), inner, latch);
      p.addIncoming(b.i64(0), outer);
      p.addIncoming(p1, inner);
      b.atEnd(latch);
      Value r1 = b.add(r, b.i64(1), "r1");
      b.condBr(b.icmp(org.bytedeco.llvm.global.LLVM.LLVMIntULT, r1, n, ""), outer, exit);
      r.addIncoming(b.i64(0), entry);
      r.addIncoming(r1, latch);
      b.atEnd(exit);
      b.retVoid();
    }
  }

  /** The benchmark's memory: the {@code in} and {@code out} buffers and the driver's argument block. */
  static final class Buffers {
    final Layout layout;
    final MemorySegment in, out, args;
    final byte[] initial;

    Buffers(Arena arena, Layout layout, long seed) {
      this.layout = layout;
      in = arena.allocate(layout.inBytes, 64);
      out = arena.allocate(layout.outBytes, 64);
      args = arena.allocate(3L * Jit.ARG_SLOT, 64);
      layout.fill(in, seed);
      initial = in.toArray(ValueLayout.JAVA_BYTE);
    }

    void reset() {
      MemorySegment.copy(MemorySegment.ofArray(initial), 0, in, 0, initial.length);
      out.fill((byte) 0);
    }

    void call(JitFunction drive, long n) {
      args.set(ValueLayout.JAVA_LONG, 0, in.address());
      args.set(ValueLayout.JAVA_LONG, Jit.ARG_SLOT, out.address());
      args.set(ValueLayout.JAVA_LONG, 2L * Jit.ARG_SLOT, n);
      drive.invoke(args, MemorySegment.NULL);
    }

    /** One pass from the initial contents; the memory afterwards. */
    byte[][] runOnce(JitFunction drive) {
      reset();
      call(drive, 1);
      return new byte[][] {in.toArray(ValueLayout.JAVA_BYTE), out.toArray(ValueLayout.JAVA_BYTE)};
    }
  }

  /**
   * ns per element of each variant, one sample per round; the variants of a round run back to back
   * in an order that alternates between rounds. Repetitions are calibrated so one sample takes about
   * {@link #TARGET_NANOS}.
   */
  static List<double[]> time(Jit jit, Buffers buf, List<Variant> variants, int rounds) {
    int nv = variants.size();
    JitFunction[] fs = new JitFunction[nv];
    long[] reps = new long[nv];
    for (int i = 0; i < nv; i++) {
      fs[i] = jit.function(variants.get(i).driver());
      buf.reset();
      buf.call(fs[i], 1); // warm-up and compile
      long t0 = now();
      buf.call(fs[i], 1);
      long one = Math.max(1, now() - t0);
      reps[i] = Math.max(1, TARGET_NANOS / one);
    }
    List<double[]> out = new ArrayList<>();
    for (int i = 0; i < nv; i++) out.add(new double[rounds]);
    for (int r = 0; r < rounds; r++) {
      for (int j = 0; j < nv; j++) {
        int i = (r % 2 == 0) ? j : nv - 1 - j;
        long t0 = now();
        buf.call(fs[i], reps[i]);
        long dt = now() - t0;
        out.get(i)[r] = (double) dt / (reps[i] * (double) E);
      }
    }
    return out;
  }

  static double median(double[] xs) {
    double[] c = xs.clone();
    Arrays.sort(c);
    int m = c.length / 2;
    return c.length % 2 == 1 ? c[m] : (c[m - 1] + c[m]) / 2;
  }
}
