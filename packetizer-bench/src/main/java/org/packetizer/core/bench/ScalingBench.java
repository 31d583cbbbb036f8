package org.packetizer.core.bench;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import org.packetizer.core.api.PacketizationException;
import org.packetizer.core.api.PacketizationResult;
import org.packetizer.core.Packetizer;
import org.packetizer.core.api.PacketizerOptions;
import org.packetizer.core.ir.Function;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.toolchain.BundledClang;

/**
 * Packetization time against function size: generates scalar C functions of about 1,000 to 50,000
 * instructions (after clang -O2) out of random segments — arithmetic chains, divergent if/else
 * nests, loops with uniform and with per-lane trip counts, nested loops, escape-time while loops —
 * packetizes each after a JVM warm-up and reports milliseconds per 1,000 instructions (goal: at most
 * {@value #GOAL_MS_PER_1K}, growing linearly).
 */
public final class ScalingBench {
  private ScalingBench() {}

  /** Issue 16's goal: CPU ms per 1,000 scalar instructions (JIT users packetize at run time). */
  public static final double GOAL_MS_PER_1K = 15.0;
  /** Largest log-log slope of time over size still called linear. */
  public static final double LINEAR_SLOPE = 1.2;

  public static final List<Integer> DEFAULT_SIZES = List.of(1_000, 2_000, 5_000, 10_000, 20_000, 50_000);
  public static final List<Integer> QUICK_SIZES = List.of(500, 1_000, 2_000);

  /**
   * Segment kinds: {@code arith} (a chain of float arithmetic), {@code if} (divergent if/else),
   * {@code nestedif} (nested divergent ifs), {@code uloop} (loop with the uniform trip count n and a
   * divergent if inside), {@code vloop} (per-lane trip count 0..7), {@code nestedloop} (nested loops,
   * per-lane counts, a break from the inner loop), {@code escape} (escape-time while loop with two
   * exit conditions), {@code int} (integer hashing with shifts).
   */
  public static final List<String> KINDS = List.of("arith", "if", "nestedif", "uloop", "vloop", "nestedloop", "escape", "int", "branchy");

  /**
   * The shape of kind {@code branchy} (alone: it is a whole function, not a segment): exactly this many
   * divergent if/else branches in sequence, each arm a long chain of float arithmetic over
   * {@value #BRANCHY_VARIABLES} variables, so that a 20,000-instruction function has few, long blocks
   * and many values live across each join.
   */
  public static final int BRANCHY_BRANCHES = 40;

  public static final int BRANCHY_VARIABLES = 16;

  /** The default mix: arithmetic three times as often as each other kind. */
  public static final List<String> DEFAULT_MIX = List.of("arith", "arith", "arith", "if", "nestedif", "uloop", "vloop", "nestedloop",
      "escape", "int");

  /**
   * Options of the scaling study.
   *
   * @param sizes  instruction counts aimed at
   * @param width  packet width
   * @param reps   packetizations per size (median reported)
   * @param warmup packetizations of a mid-size function before measuring
   * @param seed   generator seed
   * @param kinds  segment kinds drawn from (see {@link #KINDS}; repeats weight them)
   * @param perKindSize when positive, also one function of about this many instructions per kind alone
   */
  public record Options(List<Integer> sizes, int width, int reps, int warmup, long seed, List<String> kinds, int perKindSize) {
    public Options {
      sizes = List.copyOf(sizes);
      kinds = List.copyOf(kinds);
      for (String k : kinds) if (!KINDS.contains(k)) throw new IllegalArgumentException("unknown segment kind '" + k + "' (known: " + KINDS + ")");
      if (kinds.contains("branchy") && kinds.stream().anyMatch(k -> !k.equals("branchy"))) {
        throw new IllegalArgumentException("segment kind 'branchy' is a whole function: it cannot be mixed with other kinds");
      }
      if (kinds.isEmpty()) throw new IllegalArgumentException("no segment kinds");
      if (sizes.isEmpty()) throw new IllegalArgumentException("no sizes");
    }

    public static Options defaults() { return new Options(DEFAULT_SIZES, 8, 3, 5, 7, DEFAULT_MIX, 2_000); }

    public static Options quick() { return new Options(QUICK_SIZES, 8, 1, 1, 7, DEFAULT_MIX, 0); }

    public Options withSizes(List<Integer> s) { return new Options(s, width, reps, warmup, seed, kinds, perKindSize); }

    public Options withKinds(List<String> k) { return new Options(sizes, width, reps, warmup, seed, k, perKindSize); }

    public Options withPerKindSize(int n) { return new Options(sizes, width, reps, warmup, seed, kinds, n); }
  }

  /** One generated function and how long packetizing it took. */
  @JsonPropertyOrder({"mix", "target_instructions", "instructions", "blocks", "packet_instructions", "ms", "ms_min", "cpu_ms",
      "ms_per_1k_instructions", "cpu_ms_per_1k_instructions", "error"})
  public record Point(
      @JsonProperty("mix") String mix,
      @JsonProperty("target_instructions") int targetInstructions,
      @JsonProperty("instructions") int instructions,
      @JsonProperty("blocks") int blocks,
      @JsonProperty("packet_instructions") int packetInstructions,
      @JsonProperty("ms") double ms,
      @JsonProperty("ms_min") double msMin,
      @JsonProperty("cpu_ms") double cpuMs,
      @JsonProperty("ms_per_1k_instructions") double msPer1k,
      @JsonProperty("cpu_ms_per_1k_instructions") double cpuMsPer1k,
      @JsonProperty("phase_ms") java.util.Map<String, Double> phaseMs,
      @JsonProperty("error") String error) {
    boolean ok() { return error == null; }

    boolean isMix() { return mix.equals(MIX); }
  }

  /**
   * @param maxMsPer1k    largest wall-clock ms per 1,000 instructions
   * @param maxCpuMsPer1k largest CPU ms per 1,000 instructions (what the goal is judged on: on a shared
   *                      machine wall time also counts other processes)
   * @param slope         least-squares slope of log(cpu ms) over log(instructions) (1: linear)
   * @param met        every point within the goal and the growth linear
   */
  @JsonPropertyOrder({"max_ms_per_1k_instructions", "max_cpu_ms_per_1k_instructions", "slope", "goal_ms_per_1k_instructions", "met"})
  public record Summary(@JsonProperty("max_ms_per_1k_instructions") double maxMsPer1k,
      @JsonProperty("max_cpu_ms_per_1k_instructions") double maxCpuMsPer1k, @JsonProperty("slope") double slope,
      @JsonProperty("goal_ms_per_1k_instructions") double goal, @JsonProperty("met") boolean met) {}

  /** Name of the points made with {@link Options#kinds()} (the size series). */
  public static final String MIX = "mix";

  public static List<Point> run(Options o, PrintStream log) {
    BundledClang clang = BundledClang.locate();
    List<String> mixes = new ArrayList<>();
    List<Integer> aims = new ArrayList<>();
    List<byte[]> bitcode = new ArrayList<>();
    for (int size : o.sizes()) {
      mixes.add(MIX);
      aims.add(size);
      bitcode.add(generateSized(clang, size, o.seed() + size, o.kinds(), log));
    }
    if (o.perKindSize() > 0) {
      for (String k : KINDS) {
        mixes.add(k);
        aims.add(o.perKindSize());
        bitcode.add(generateSized(clang, o.perKindSize(), o.seed() + k.hashCode(), List.of(k), log));
      }
    }
    // warm up the JVM on a mid-size function of the mix
    byte[] warm = bitcode.get(Math.min(o.sizes().size() - 1, 2));
    for (int i = 0; i < o.warmup(); i++) {
      try {
        packetize(warm, o.width());
      } catch (PacketizationException e) {
        break;
      }
    }
    List<Point> out = new ArrayList<>();
    for (int s = 0; s < bitcode.size(); s++) {
      Point p = measure(mixes.get(s), aims.get(s), bitcode.get(s), o);
      out.add(p);
      log.println("bench: scaling: " + p.mix() + " " + (p.ok()
          ? String.format(Locale.ROOT, "%d instructions: %.1f ms, cpu %.1f ms (%.2f cpu ms / 1k)", p.instructions(), p.ms(), p.cpuMs(), p.cpuMsPer1k())
          : p.instructions() + " instructions: FAILED: " + p.error()));
    }
    return out;
  }

  private static Point measure(String mix, int aim, byte[] bc, Options o) {
    int[] c = count(bc);
    double[] ms = new double[o.reps()];
    double[] cpu = new double[o.reps()];
    int packetInstr = 0;
    java.util.Map<String, double[]> phases = new java.util.LinkedHashMap<>();
    for (int r = 0; r < o.reps(); r++) {
      try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.parseBitcode(bc, "scaling")) {
        long c0 = THREADS.getCurrentThreadCpuTime();
        PacketizationResult res = packetize(m, o.width());
        cpu[r] = (THREADS.getCurrentThreadCpuTime() - c0) / 1e6;
        ms[r] = res.nanos() / 1e6; // Packetizer.run from entry to return; parsing the module is not counted
        packetInstr = res.packetInstructions();
        final int rep = r;
        res.phaseNanos().forEach((ph, ns) -> phases.computeIfAbsent(ph, x -> new double[o.reps()])[rep] = ns / 1e6);
      } catch (PacketizationException e) {
        return new Point(mix, aim, c[0], c[1], 0, 0, 0, 0, 0, 0, java.util.Map.of(),
            e.getMessage().lines().findFirst().orElse(e.toString()));
      }
    }
    double[] sorted = ms.clone();
    Arrays.sort(sorted);
    double med = sorted[sorted.length / 2];
    double[] sc = cpu.clone();
    Arrays.sort(sc);
    double cmed = sc[sc.length / 2];
    double k = c[0] / 1000.0;
    java.util.Map<String, Double> phaseMs = new java.util.LinkedHashMap<>();
    phases.forEach((ph, v) -> {
      double[] sv = v.clone();
      Arrays.sort(sv);
      phaseMs.put(ph, sv[sv.length / 2]);
    });
    return new Point(mix, aim, c[0], c[1], packetInstr, med, sorted[0], cmed, med / k, cmed / k, phaseMs, null);
  }

  /** Bitcode of a generated function with about {@code size} instructions (up to three correction steps). */
  private static byte[] generateSized(BundledClang clang, int size, long seed, List<String> kinds, PrintStream log) {
    byte[] probe = compile(clang, generate(40, seed, kinds));
    double perSegment = Math.max(1, count(probe)[0] - 4) / 40.0;
    int segs = Math.max(1, (int) Math.round(size / perSegment));
    byte[] bc = compile(clang, generate(segs, seed, kinds));
    // (a few correction steps: the size of a branchy function is not proportional to a small probe's)
    for (int step = 0; step < 3; step++) {
      int got = count(bc)[0];
      if (Math.abs(got - size) <= size / 10) break;
      segs = Math.max(1, (int) Math.round(segs * (double) size / got));
      bc = compile(clang, generate(segs, seed, kinds));
    }
    log.printf(Locale.ROOT, "bench: scaling: generated %d instructions (aim %d, %s)%n", count(bc)[0], size,
        kinds.size() == 1 ? kinds.get(0) : "mix");
    return bc;
  }

  private static final java.lang.management.ThreadMXBean THREADS = java.lang.management.ManagementFactory.getThreadMXBean();

  /** Packetizes the generated function {@code big} of a fresh copy of the bitcode. */
  private static PacketizationResult packetize(byte[] bc, int width) {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.parseBitcode(bc, "scaling")) {
      return packetize(m, width);
    }
  }

  /**
   * Packetizes as the {@code packetize} command does without {@code --remarks}: the remarks carry no
   * instruction text ({@code -Dpacketizer.remarkInstructions=true} measures the library's default, which
   * prints the scalar function once for them).
   */
  private static PacketizationResult packetize(LlvmModule m, int width) {
    boolean texts = Boolean.parseBoolean(System.getProperty("packetizer.remarkInstructions", "false"));
    return new Packetizer(PacketizerOptions.builder().width(width).params("vvu").remarkInstructions(texts).build())
        .run(m, "big", "big_simd" + width);
  }

  /** [instructions, blocks] of {@code big}. */
  private static int[] count(byte[] bc) {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.parseBitcode(bc, "scaling")) {
      Function f = m.function("big").orElseThrow();
      return new int[] {f.instructionCount(), f.blocks().size()};
    }
  }

  private static byte[] compile(BundledClang clang, String c) {
    return clang.compileToBitcode(c, "scaling.c", BundledClang.KERNEL_FLAGS);
  }

  /**
   * C source of {@code float big(float a, float b, int n)} made of {@code segments} random pieces of
   * the given {@link #KINDS} (a kind listed twice is drawn twice as often). Deterministic for a seed.
   */
  static String generate(int segments, long seed, List<String> kinds) {
    if (kinds.isEmpty()) throw new IllegalArgumentException("no segment kinds");
    if (kinds.contains("branchy")) return generateBranchy(segments, seed);
    SplittableRandom rnd = new SplittableRandom(seed);
    StringBuilder sb = new StringBuilder();
    sb.append("float fabsf(float);\nfloat fminf(float, float);\nfloat sqrtf(float);\n\n");
    sb.append("float big(float a, float b, int n) {\n");
    sb.append("  float x = a, y = b, z = a - b, t = 0.5f;\n  unsigned k = 1u;\n");
    for (int s = 0; s < segments; s++) {
      String kind = kinds.get(rnd.nextInt(kinds.size()));
      String[] v = {"x", "y", "z", "t"};
      String p = v[rnd.nextInt(4)], q = v[rnd.nextInt(4)], r = v[rnd.nextInt(4)];
      switch (kind) {
        case "arith" -> sb.append(String.format(Locale.ROOT,
            "  %s = %s * %sf + %s;\n  %s = %s * %sf - %s;\n  %s = (%s + %s) * %sf;\n  t = t + x * %sf;\n",
            p, p, c(rnd), q, q, q, c(rnd), r, r, r, p, c(rnd), c(rnd)));
        case "if" -> sb.append(String.format(Locale.ROOT,
            "  if (%s > %s + %sf) {\n    %s = %s * %sf - t;\n    z = z + %sf;\n  } else {\n    %s = %s * %sf + x;\n    t = t - %sf;\n  }\n",
            p, q, c(rnd), p, p, c(rnd), c(rnd), q, q, c(rnd), c(rnd)));
        case "nestedif" -> sb.append(String.format(Locale.ROOT,
            "  if (%s < %sf) {\n    if (%s < t) {\n      %s = %s * %sf + %sf;\n    } else {\n      %s = %s - %sf * y;\n      k = k * 3u + 1u;\n    }\n"
                + "    t = t * %sf;\n  } else if (%s > %sf) {\n    x = x + %sf;\n  }\n",
            p, c(rnd), q, r, r, c(rnd), c(rnd), q, q, c(rnd), c(rnd), r, c(rnd), c(rnd)));
        case "uloop" -> sb.append(String.format(Locale.ROOT,
            "  for (int i = 0; i < n; ++i) {\n    %s = %s * %sf + %s;\n    if (%s > %sf) %s = %s - %sf;\n  }\n",
            p, p, c(rnd), q, p, c(rnd), p, p, c(rnd)));
        case "vloop" -> sb.append(String.format(Locale.ROOT,
            "  {\n    int m = (int)fminf(fabsf(%s), 100.0f) & 7;\n    for (int i = 0; i < m; ++i) {\n      %s = %s * %sf + x;\n      %s = %s - %s * %sf;\n    }\n  }\n",
            p, q, q, c(rnd), r, r, q, c(rnd)));
        case "nestedloop" -> sb.append(String.format(Locale.ROOT,
            "  {\n    int m = (int)fminf(fabsf(%s), 100.0f) & 3;\n    for (int i = 0; i <= (int)(k & 3u); ++i) {\n      for (int j = 0; j < m; ++j) {\n"
                + "        %s = %s * %sf + %sf;\n        if (%s < %s) break;\n      }\n      %s = %s + %sf;\n    }\n  }\n",
            p, q, q, c(rnd), c(rnd), q, r, r, r, c(rnd)));
        case "escape" -> sb.append(String.format(Locale.ROOT,
            "  {\n    int c = 0;\n    float u = %s * 0.001f, w = %s * 0.001f;\n    while (c < 16 && u * u + w * w < 4.0f) {\n"
                + "      float nu = u * u - w * w + %sf;\n      w = 2.0f * u * w + %sf;\n      u = nu;\n      ++c;\n    }\n    k += (unsigned)c;\n    %s = %s + u;\n  }\n",
            p, q, c(rnd), c(rnd), r, r));
        case "int" -> sb.append(String.format(Locale.ROOT,
            "  k = (k ^ (unsigned)(int)fminf(fabsf(%s), 1000.0f)) * %du;\n  k = (k << 3) | (k >> 29);\n  %s = %s + (float)(k & 255u) * %sf;\n",
            p, 1 + 2 * rnd.nextInt(1000), q, q, c(rnd)));
        default -> throw new IllegalArgumentException("unknown segment kind '" + kind + "' (known: " + KINDS + ")");
      }
    }
    sb.append("  return x + y + z + t + (float)(k & 1023u) + sqrtf(fabsf(x));\n}\n");
    return sb.toString();
  }

  /**
   * {@code float big(float a, float b, int n)} with {@link #BRANCHY_BRANCHES} divergent if/else
   * branches in sequence and {@code statements} arithmetic statements over {@link #BRANCHY_VARIABLES}
   * variables, spread evenly before the branches and in their arms.
   */
  static String generateBranchy(int statements, long seed) {
    SplittableRandom rnd = new SplittableRandom(seed);
    int nv = BRANCHY_VARIABLES;
    StringBuilder sb = new StringBuilder("float big(float a, float b, int n) {\n  float ");
    for (int i = 0; i < nv; i++) sb.append(i == 0 ? "" : ", ").append(String.format(Locale.ROOT, "v%d = a * %sf + b", i, c(rnd)));
    sb.append(";\n");
    int per = Math.max(1, statements / (BRANCHY_BRANCHES * 3));
    for (int br = 0; br < BRANCHY_BRANCHES; br++) {
      chain(sb, rnd, per, "  ");
      sb.append(String.format(Locale.ROOT, "  if (v%d > v%d + %sf) {%n", rnd.nextInt(nv), rnd.nextInt(nv), c(rnd)));
      chain(sb, rnd, per, "    ");
      sb.append("  } else {\n");
      chain(sb, rnd, per, "    ");
      sb.append("  }\n");
    }
    sb.append("  return v0");
    for (int i = 1; i < nv; i++) sb.append(" + v").append(i);
    sb.append(" + (float) n;\n}\n");
    return sb.toString();
  }

  private static void chain(StringBuilder sb, SplittableRandom rnd, int statements, String indent) {
    for (int i = 0; i < statements; i++) {
      int p = rnd.nextInt(BRANCHY_VARIABLES), q = rnd.nextInt(BRANCHY_VARIABLES), r = rnd.nextInt(BRANCHY_VARIABLES);
      sb.append(String.format(Locale.ROOT, "%sv%d = v%d * %sf + v%d;%n", indent, p, q, c(rnd), r));
    }
  }

  private static String c(SplittableRandom rnd) {
    return String.format(Locale.ROOT, "%.4f", 0.25 + rnd.nextDouble() * 1.5);
  }

  static Summary summarize(List<Point> points) {
    List<Point> mix = points.stream().filter(Point::isMix).toList();
    List<Point> ok = mix.stream().filter(Point::ok).toList();
    double max = ok.stream().mapToDouble(Point::msPer1k).max().orElse(Double.NaN);
    double maxCpu = ok.stream().mapToDouble(Point::cpuMsPer1k).max().orElse(Double.NaN);
    double slope = Double.NaN;
    if (ok.size() >= 2) {
      double mx = 0, my = 0;
      for (Point p : ok) {
        mx += Math.log(p.instructions());
        my += Math.log(Math.max(p.cpuMs(), 1e-3));
      }
      mx /= ok.size();
      my /= ok.size();
      double sxy = 0, sxx = 0;
      for (Point p : ok) {
        double dx = Math.log(p.instructions()) - mx;
        sxy += dx * (Math.log(Math.max(p.cpuMs(), 1e-3)) - my);
        sxx += dx * dx;
      }
      slope = sxy / sxx;
    }
    boolean met = ok.size() == mix.size() && !ok.isEmpty() && maxCpu <= GOAL_MS_PER_1K && (Double.isNaN(slope) || slope <= LINEAR_SLOPE);
    return new Summary(max, maxCpu, slope, GOAL_MS_PER_1K, met);
  }

  static String table(List<Point> points) {
    StringBuilder sb = new StringBuilder("Packetization time (W=8, after JVM warm-up; median):\n");
    sb.append(String.format(Locale.ROOT, "  %-10s %12s %7s %10s %10s %10s %10s %12s%n", "segments", "instructions", "blocks", "wall ms",
        "cpu ms", "wall/1k", "cpu/1k", "packet instr"));
    for (Point p : points) {
      if (p.ok()) {
        sb.append(String.format(Locale.ROOT, "  %-10s %12d %7d %10.1f %10.1f %10.2f %10.2f %12d%n", p.mix(), p.instructions(), p.blocks(),
            p.ms(), p.cpuMs(), p.msPer1k(), p.cpuMsPer1k(), p.packetInstructions()));
      } else {
        sb.append(String.format(Locale.ROOT, "  %-10s %12d %7d   FAILED: %s%n", p.mix(), p.instructions(), p.blocks(), p.error()));
      }
    }
    // where the time goes: wall ms per 1,000 instructions per phase (medians)
    List<String> phaseNames = new ArrayList<>();
    for (Point p : points) for (String ph : p.phaseMs().keySet()) if (!phaseNames.contains(ph)) phaseNames.add(ph);
    if (!phaseNames.isEmpty()) {
      sb.append("  per phase, wall ms / 1k instructions:\n");
      sb.append(String.format(Locale.ROOT, "  %-10s %12s", "segments", "instructions"));
      for (String ph : phaseNames) sb.append(String.format(Locale.ROOT, " %11s", ph));
      sb.append('\n');
      for (Point p : points) {
        if (!p.ok()) continue;
        sb.append(String.format(Locale.ROOT, "  %-10s %12d", p.mix(), p.instructions()));
        for (String ph : phaseNames) {
          Double v = p.phaseMs().get(ph);
          sb.append(v == null ? String.format(Locale.ROOT, " %11s", "-") : String.format(Locale.ROOT, " %11.2f", v / (p.instructions() / 1000.0)));
        }
        sb.append('\n');
      }
    }
    Summary s = summarize(points);
    sb.append(String.format(Locale.ROOT, "  [%s] <= %.0f ms per 1k instructions and linear growth (mix, CPU time): max %.2f cpu ms / 1k"
        + " (wall %.2f), log-log slope %.2f%n", s.met() ? "met " : "MISS", GOAL_MS_PER_1K, s.maxCpuMsPer1k(), s.maxMsPer1k(), s.slope()));
    return sb.toString();
  }
}
