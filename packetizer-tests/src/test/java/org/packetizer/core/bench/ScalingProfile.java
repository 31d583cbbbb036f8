package org.packetizer.core.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.packetizer.core.Packetizer;
import org.packetizer.core.api.PacketizationResult;
import org.packetizer.core.api.PacketizerOptions;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.toolchain.BundledClang;

/**
 * A tool, not a test: packetizes a generated function of the scaling study over and over (for a
 * profiler such as JFR's CPU-time sampler to attach to) and prints the per-phase medians.
 * Arguments: KIND (mix or one of {@link ScalingBench#KINDS}) SEGMENTS REPS.
 */
public final class ScalingProfile {
  private ScalingProfile() {}

  public static void main(String[] args) {
    String kind = args[0];
    int segments = Integer.parseInt(args[1]);
    int reps = Integer.parseInt(args[2]);
    List<String> kinds = kind.equals("mix") ? ScalingBench.DEFAULT_MIX : List.of(kind);
    byte[] bc = BundledClang.locate().compileToBitcode(ScalingBench.generate(segments, 7, kinds), "scaling.c", BundledClang.KERNEL_FLAGS);
    Map<String, List<Double>> phases = new TreeMap<>();
    List<Double> total = new ArrayList<>();
    int instructions = 0;
    // -Dprofile.jfr=FILE: three untimed warm-up runs, then a JFR recording of CPU-time samples (which
    // include native frames' Java callers) over the timed runs
    String jfr = System.getProperty("profile.jfr");
    jdk.jfr.Recording recording = null;
    if (jfr != null) {
      for (int r = 0; r < 3; r++) {
        try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.parseBitcode(bc, "scaling")) {
          new Packetizer(PacketizerOptions.builder().width(8).params("vvu").build()).run(m, "big", "big_simd8");
        }
      }
      recording = new jdk.jfr.Recording();
      recording.enable("jdk.CPUTimeSample").with("throttle", "1ms");
      recording.start();
    }
    for (int r = 0; r < reps; r++) {
      try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.parseBitcode(bc, "scaling")) {
        instructions = m.function("big").orElseThrow().instructionCount();
        long c0 = java.lang.management.ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime();
        PacketizationResult res = new Packetizer(PacketizerOptions.builder().width(8).params("vvu").build()).run(m, "big", "big_simd8");
        total.add((java.lang.management.ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime() - c0) / 1e6);
        if (r == 0) {
          Map<String, Integer> byKind = new TreeMap<>();
          for (var rm : res.remarks()) byKind.merge(rm.kind() + (rm.instruction() == null ? "" : "+inst"), 1, Integer::sum);
          System.out.println("remarks: " + byKind);
        }
        res.phaseNanos().forEach((p, ns) -> phases.computeIfAbsent(p, x -> new ArrayList<>()).add(ns / 1e6));
      }
    }
    if (recording != null) {
      recording.stop();
      try {
        recording.dump(java.nio.file.Path.of(jfr));
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
      recording.close();
    }
    if (args.length > 3) passes(bc, reps, args[3]);
    System.out.printf(Locale.ROOT, "%s: %d instructions, median %.1f cpu ms (%.2f cpu ms/1k)%n", kind, instructions, median(total),
        median(total) * 1000 / instructions);
    phases.forEach((p, v) -> System.out.printf(Locale.ROOT, "  %-12s %8.2f ms%n", p, median(v)));
  }

  /**
   * Times each pass of a comma-separated pipeline alone, in sequence, on the raw packet function
   * (thread CPU time, median over the repetitions).
   */
  private static void passes(byte[] bc, int reps, String pipeline) {
    String[] ps = pipeline.split(",(?![^<]*>)");
    double[][] t = new double[ps.length][reps];
    int[] after = new int[ps.length + 1];
    var cpu = java.lang.management.ManagementFactory.getThreadMXBean();
    for (int r = 0; r < reps; r++) {
      try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.parseBitcode(bc, "scaling")) {
        new Packetizer(PacketizerOptions.builder().width(8).params("vvu").cleanup(false).build()).run(m, "big", "big_simd8");
        var f = m.function("big_simd8").orElseThrow();
        after[0] = f.instructionCount();
        for (int i = 0; i < ps.length; i++) {
          long t0 = cpu.getCurrentThreadCpuTime();
          LlvmModule.runPasses(f, ps[i], null);
          t[i][r] = (cpu.getCurrentThreadCpuTime() - t0) / 1e6;
          after[i + 1] = f.instructionCount();
        }
      }
    }
    System.out.println("raw: " + after[0] + " instructions");
    for (int i = 0; i < ps.length; i++) {
      List<Double> v = new ArrayList<>();
      for (double d : t[i]) v.add(d);
      System.out.printf(Locale.ROOT, "  %-40s %8.2f cpu ms  -> %d instructions%n", ps[i], median(v), after[i + 1]);
    }
  }

  private static double median(List<Double> v) {
    List<Double> s = new ArrayList<>(v);
    s.sort(null);
    return s.get(s.size() / 2);
  }
}
