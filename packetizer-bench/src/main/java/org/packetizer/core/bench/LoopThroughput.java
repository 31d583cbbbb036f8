package org.packetizer.core.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.packetizer.core.toolchain.BundledClang;
import org.packetizer.core.toolchain.ProcessResult;

/**
 * Where the cycles of a packet loop go, by the bundled {@code llvm-mca}: the innermost loops of a
 * function in an assembly listing (the bench's {@code --dump} files), each simulated on a CPU's
 * scheduling model, with the busiest execution resource. The W16 section of docs/performance.md
 * uses it to tell a loop bound by an execution port that a double-pumped AVX-512 host splits (so its
 * per-element cost is the same at 8 and 16 lanes) from one bound by latency or by memory.
 *
 * <p>{@code bin/mca-loops DIR} runs {@link #main} over every {@code KERNEL.wW.CPU.packet.s} file of a
 * dump folder and prints, per innermost loop of {@code bench_packet}, the simulated cycles per
 * iteration, the block reciprocal throughput, the busiest resource, and both per element (W lanes
 * times the interleave count read from the inlined {@code _simdW.xK} names); a loop that calls
 * functions (the exact math helpers) is marked, since llvm-mca does not follow the call.
 */
public final class LoopThroughput {
  private LoopThroughput() {}

  /** One innermost loop: its header label, the block name llc wrote next to it, and its instructions. */
  public record Loop(String label, String block, List<String> instructions) {
    public Loop {
      instructions = List.copyOf(instructions);
    }

    /** Calls in the loop: llvm-mca simulates the call instruction, not the callee's body. */
    public int calls() {
      return (int) instructions.stream().filter(i -> i.startsWith("call")).count();
    }
  }

  /**
   * The simulation of one loop: cycles per iteration (of {@code iterations}), the block's reciprocal
   * throughput, and the resource with the most cycles per iteration.
   */
  public record Estimate(int instructions, double cyclesPerIteration, double blockThroughput,
                         String busiestResource, double busiestPressure) {}

  private static final Pattern LABEL = Pattern.compile("^(\\.LBB[0-9_]+):\\s*(?:#\\s*(\\S+))?.*$");
  private static final Pattern JUMP = Pattern.compile("^\\s+j[a-z]+\\s+(\\.LBB[0-9_]+)\\s*(#.*)?$");
  private static final Pattern FUNCTION = Pattern.compile("^([A-Za-z_.$][A-Za-z0-9_.$]*):.*$");

  /**
   * The innermost loops of {@code function} in {@code asm}: every block llc marks as an inner loop
   * header ({@code # =>This Inner Loop Header}, also with leading parent-loop lines), with the
   * instructions from that label up to and including the first jump back to it (blocks in between
   * are part of the loop; labels, directives and comments are dropped).
   */
  public static List<Loop> innermostLoops(String asm, String function) {
    List<String> lines = functionLines(asm, function);
    List<Loop> loops = new ArrayList<>();
    for (int i = 0; i < lines.size(); i++) {
      Matcher m = LABEL.matcher(lines.get(i));
      if (!m.matches() || !isInnerHeader(lines, i)) continue;
      String label = m.group(1);
      String block = m.group(2) == null ? "" : m.group(2);
      List<String> body = new ArrayList<>();
      boolean closed = false;
      for (int j = i + 1; j < lines.size() && !closed; j++) {
        String line = lines.get(j);
        String t = line.strip();
        if (t.isEmpty() || t.startsWith("#") || t.startsWith(".") || FUNCTION.matcher(t).matches()) continue;
        body.add(t.replaceAll("\\s*#.*$", ""));
        Matcher jm = JUMP.matcher(line);
        closed = jm.matches() && jm.group(1).equals(label);
      }
      if (closed) loops.add(new Loop(label, block, body));
    }
    return loops;
  }

  private static boolean isInnerHeader(List<String> lines, int labelLine) {
    for (int k = labelLine + 1; k < lines.size(); k++) {
      String t = lines.get(k).strip();
      if (!t.startsWith("#")) return false;
      if (t.contains("Inner Loop Header")) return true;
    }
    return false;
  }

  private static List<String> functionLines(String asm, String function) {
    List<String> out = new ArrayList<>();
    boolean in = false;
    for (String line : asm.split("\n", -1)) {
      if (!in) {
        in = line.startsWith(function + ":");
        continue;
      }
      if (line.startsWith(".Lfunc_end") || line.strip().startsWith(".size\t" + function + ",")) break;
      out.add(line);
    }
    if (!in) throw new IllegalArgumentException("no function '" + function + "' in the assembly");
    return out;
  }

  /** Simulates {@code loop} on {@code cpu} (an llc/llvm-mca CPU name) for {@code iterations} iterations. */
  public static Estimate estimate(BundledClang clang, Loop loop, String cpu, int iterations) {
    String source = String.join("\n", loop.instructions()) + "\n";
    ProcessResult r = clang.run(List.of("llvm-mca", "-mtriple=x86_64", "-mcpu=" + cpu,
        "-iterations=" + iterations, "-"), null, source.getBytes(StandardCharsets.UTF_8),
        Duration.ofMinutes(1));
    if (!r.succeeded()) {
      throw new IllegalStateException("llvm-mca failed on loop " + loop.label() + " for " + cpu + ": "
          + r.stderr().strip());
    }
    return parse(r.stdoutText(), iterations);
  }

  /** Reads llvm-mca's summary and per-iteration resource pressure. */
  static Estimate parse(String report, int iterations) {
    int instructions = (int) Math.round(number(report, "Instructions:") / iterations);
    double cycles = number(report, "Total Cycles:") / iterations;
    double rthroughput = number(report, "Block RThroughput:");
    List<String> names = new ArrayList<>();
    Matcher rm = Pattern.compile("(?m)^\\[([0-9.]+)\\]\\s+-\\s+(\\S+)$").matcher(report);
    while (rm.find()) names.add(rm.group(2));
    String[] lines = report.split("\n");
    String busiest = "";
    double most = 0;
    for (int i = 0; i + 2 < lines.length; i++) {
      if (!lines[i].startsWith("Resource pressure per iteration:")) continue;
      String[] values = lines[i + 2].strip().split("\\s+");
      for (int k = 0; k < values.length && k < names.size(); k++) {
        if (values[k].equals("-")) continue;
        double v = Double.parseDouble(values[k]);
        if (v > most) {
          most = v;
          busiest = names.get(k);
        }
      }
      break;
    }
    return new Estimate(instructions, cycles, rthroughput, busiest, most);
  }

  private static double number(String report, String key) {
    Matcher m = Pattern.compile("(?m)^" + Pattern.quote(key) + "\\s+([0-9.]+)").matcher(report);
    if (!m.find()) throw new IllegalStateException("llvm-mca's report has no '" + key + "'");
    return Double.parseDouble(m.group(1));
  }

  private static final Pattern DUMP_NAME = Pattern.compile("(.+)\\.w([0-9]+)\\.([A-Za-z0-9_-]+)\\.packet\\.s");

  /** The interleave count of a bench loop: K of the inlined {@code _simdW.xK} names, else 1. */
  static int interleave(String asm, int width) {
    Matcher m = Pattern.compile("_simd" + width + "\\.x([0-9]+)").matcher(asm);
    return m.find() ? Integer.parseInt(m.group(1)) : 1;
  }

  /**
   * {@code bin/mca-loops DIR [--cpu CPU] [--function F]}: the table over a bench {@code --dump} folder;
   * {@code --cpu} simulates every file on one CPU's model (e.g. the host's) instead of the one in its name.
   */
  public static void main(String[] args) throws IOException {
    Path dir = null;
    String cpuOverride = null;
    String function = "bench_packet";
    for (int i = 0; i < args.length; i++) {
      if ((args[i].equals("--cpu") || args[i].equals("--function")) && i + 1 < args.length) {
        if (args[i].equals("--cpu")) cpuOverride = args[++i];
        else function = args[++i];
      } else if (dir == null && !args[i].startsWith("-")) {
        dir = Path.of(args[i]);
      } else {
        dir = null;
        break;
      }
    }
    if (dir == null) {
      System.err.println("usage: mca-loops DIR [--cpu CPU] [--function F]   (DIR: a folder written by "
          + "bench --dump; CPU: simulate every file on this model; F: default bench_packet)");
      System.exit(2);
    }
    if (!Files.isDirectory(dir)) {
      System.err.println("mca-loops: not a folder: " + dir);
      System.exit(2);
    }
    BundledClang clang = BundledClang.locate();
    List<Path> files;
    try (Stream<Path> s = Files.list(dir)) {
      files = s.filter(p -> DUMP_NAME.matcher(p.getFileName().toString()).matches()).sorted().toList();
    }
    if (files.isEmpty()) {
      System.err.println("mca-loops: no KERNEL.wW.CPU.packet.s files in " + dir);
      System.exit(2);
    }
    System.out.printf(Locale.ROOT, "%-11s %-4s %-10s %-8s %-3s %-28s %5s %9s %9s %9s %9s  %s%n", "kernel", "W",
        "code for", "model", "IC", "loop", "instr", "cyc/iter", "rthru", "cyc/elem", "rthru/el", "busiest (cycles/iter)");
    for (Path f : files) {
      Matcher m = DUMP_NAME.matcher(f.getFileName().toString());
      if (!m.matches()) continue;
      String asm = Files.readString(f);
      int width = Integer.parseInt(m.group(2));
      String cpu = cpuOverride != null ? cpuOverride : m.group(3);
      int ic = interleave(asm, width);
      List<Loop> loops;
      try {
        loops = innermostLoops(asm, function);
      } catch (IllegalArgumentException e) {
        System.out.println(m.group(1) + " w" + width + " " + cpu + ": " + e.getMessage());
        continue;
      }
      for (Loop loop : loops) {
        Estimate e;
        try {
          e = estimate(clang, loop, cpu, 100);
        } catch (IllegalStateException ex) {
          System.err.println("mca-loops: " + f.getFileName() + ": " + ex.getMessage());
          System.exit(1);
          return;
        }
        double lanes = (double) width * ic;
        System.out.printf(Locale.ROOT, "%-11s %-4s %-10s %-8s %-3d %-28s %5d %9.1f %9.1f %9.3f %9.3f  %s (%.1f)%s%n",
            m.group(1), "W" + width, m.group(3), cpu, ic, loop.label() + " " + loop.block(), e.instructions(),
            e.cyclesPerIteration(), e.blockThroughput(), e.cyclesPerIteration() / lanes,
            e.blockThroughput() / lanes, e.busiestResource(), e.busiestPressure(),
            loop.calls() == 0 ? "" : "  + " + loop.calls() + " calls, callees not simulated");
      }
    }
  }
}
