package org.packetizer.core.fuzz;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.packetizer.core.toolchain.ToolchainException;

/**
 * The fuzzer's command line ({@code bin/fuzz} runs it):
 *
 * <pre>
 * FuzzMain [--seed S] [--cases N] [--first I] [--mode c|stress|both] [--widths 4,8,16]
 *          [--runs R] [--batch B] [--out DIR] [--verbose]
 * </pre>
 *
 * Case i (from I to I+N-1) of seed S is reproducible on its own: {@code --seed S --first i --cases 1}.
 * In mode {@code both} each index runs one llvm-stress case and one generated C case. Before each
 * case its id is appended to {@code DIR/progress.log}, so if LLVM crashes the JVM the last line names
 * the culprit. Failing C cases are written to {@code DIR} as complete C files ready to become
 * regression tests (src/test/resources/fuzz-regressions/). Exit code 0 when nothing failed, 1
 * otherwise.
 */
public final class FuzzMain {
  public static void main(String[] args) throws IOException {
    long seed = 1;
    int cases = 100;
    int first = 0;
    String mode = "both";
    int[] widths = {4, 8, 16};
    int runs = 8;
    int batch = 16;
    Path out = Path.of("target/fuzz");
    boolean verbose = false;
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      switch (a) {
        case "--seed" -> seed = Long.parseLong(args[++i]);
        case "--cases" -> cases = Integer.parseInt(args[++i]);
        case "--first" -> first = Integer.parseInt(args[++i]);
        case "--mode" -> mode = args[++i];
        case "--widths" -> widths = Arrays.stream(args[++i].split(",")).mapToInt(Integer::parseInt).toArray();
        case "--runs" -> runs = Integer.parseInt(args[++i]);
        case "--batch" -> batch = Integer.parseInt(args[++i]);
        case "--out" -> out = Path.of(args[++i]);
        case "--verbose", "-v" -> verbose = true;
        case "--help", "-h" -> {
          System.out.println("usage: fuzz [--seed S] [--cases N] [--first I] [--mode c|stress|both] [--widths 4,8,16]"
              + " [--runs R] [--batch B] [--out DIR] [--verbose]");
          return;
        }
        default -> {
          System.err.println("fuzz: unknown argument '" + a + "' (try --help)");
          System.exit(2);
        }
      }
    }
    if (!mode.equals("c") && !mode.equals("stress") && !mode.equals("both")) {
      System.err.println("fuzz: --mode must be c, stress or both");
      System.exit(2);
    }
    Files.createDirectories(out);
    Summary s = run(seed, first, cases, mode, widths, runs, batch, out, verbose, System.out);
    System.out.println(s.report());
    System.exit(s.failed.isEmpty() ? 0 : 1);
  }

  /** What a fuzz run found. */
  public static final class Summary {
    public int stressCases, cCases;
    public final List<FuzzRunner.Outcome> all = new ArrayList<>();
    public final List<FuzzRunner.Outcome> failed = new ArrayList<>();
    public final Map<String, Integer> rejections = new TreeMap<>();
    public long nanos;

    void add(List<FuzzRunner.Outcome> os) {
      for (FuzzRunner.Outcome o : os) {
        all.add(o);
        if (o.status() == FuzzRunner.Status.FAILED) failed.add(o);
        if (o.status() == FuzzRunner.Status.REJECTED) rejections.merge(normalize(o.detail()), 1, Integer::sum);
      }
    }

    public String report() {
      StringBuilder sb = new StringBuilder();
      sb.append(String.format(Locale.ROOT, "fuzz: %d llvm-stress cases, %d C cases, %d packetizations: %s (%.1f s)%n",
          stressCases, cCases, all.size(), FuzzRunner.tally(all), nanos / 1e9));
      if (!rejections.isEmpty()) {
        sb.append("rejections (clean UNSUPPORTED / INVALID_INPUT), by message:\n");
        rejections.entrySet().stream().sorted((x, y) -> y.getValue() - x.getValue()).limit(25)
            .forEach(e -> sb.append(String.format(Locale.ROOT, "  %5d  %s%n", e.getValue(), e.getKey())));
      }
      for (FuzzRunner.Outcome o : failed) sb.append("FAILED ").append(o).append('\n');
      return sb.toString();
    }
  }

  /** Messages without numbers, value names and instruction text, to group rejections. */
  static String normalize(String msg) {
    String m = msg.replaceAll("in function @[\\w.$]+(, block %[\\w.$-]+)?: ", "")
        .replaceAll("%[\\w.$-]+", "%_").replaceAll("@[\\w.$]+", "@_").replaceAll("\\d+", "N");
    return m.length() > 150 ? m.substring(0, 150) + "..." : m;
  }

  /** The llvm-stress seed and size of case i. */
  static long stressSeed(long seed, int i) { return (seed * 1_000_003L + i) & 0xffffffffL; }

  static int stressSize(int i) { return 10 + (i % 5) * 20; }

  public static Summary run(long seed, int first, int cases, String mode, int[] widths, int runs, int batch, Path out,
      boolean verbose, PrintStream log) throws IOException {
    Summary s = new Summary();
    long t0 = System.nanoTime();
    FuzzRunner runner = new FuzzRunner(runs);
    Path progress = out.resolve("progress.log");
    boolean stress = !mode.equals("c");
    boolean c = !mode.equals("stress");
    for (int start = first; start < first + cases; start += batch) {
      int end = Math.min(first + cases, start + batch);
      if (stress) {
        for (int i = start; i < end; i++) {
          long ss = stressSeed(seed, i);
          int size = stressSize(i);
          note(progress, "stress seed=" + ss + " size=" + size + " (case " + i + " of --seed " + seed + ")");
          List<FuzzRunner.Outcome> os;
          try {
            os = runner.runStress(ss, size);
          } catch (RuntimeException e) {
            os = List.of(new FuzzRunner.Outcome("stress-" + ss + "-" + size, FuzzRunner.Status.FAILED, "unexpected " + FuzzRunner.stack(e)));
          }
          s.stressCases++;
          s.add(os);
          print(log, os, verbose);
        }
      }
      if (c) {
        List<CGenerator.Case> cs = new ArrayList<>();
        for (int i = start; i < end; i++) cs.add(CGenerator.generate(seed, i));
        byte[] bc = null;
        try {
          bc = FuzzRunner.compile(FuzzRunner.translationUnit(cs), "fuzz_" + seed + "_" + start + ".c");
        } catch (ToolchainException e) {
          log.println("batch " + start + ".." + (end - 1) + " did not compile; compiling its cases one by one");
        }
        for (CGenerator.Case cc : cs) {
          note(progress, "c seed=" + seed + " index=" + cc.index() + " kinds=" + cc.kinds());
          byte[] one = bc;
          List<FuzzRunner.Outcome> os;
          try {
            if (one == null) one = FuzzRunner.compile(cc.source(), cc.name() + ".c");
            os = runner.runC(cc, one, widths);
          } catch (RuntimeException e) {
            os = List.of(new FuzzRunner.Outcome(cc.name(), FuzzRunner.Status.FAILED, "unexpected " + FuzzRunner.stack(e)));
          }
          s.cCases++;
          s.add(os);
          print(log, os, verbose);
          if (os.stream().anyMatch(o -> o.status() == FuzzRunner.Status.FAILED)) save(out, cc, os);
        }
      }
      log.printf(Locale.ROOT, "... %d/%d cases, %s, %.0f s%n", end - first, cases, FuzzRunner.tally(s.all), (System.nanoTime() - t0) / 1e9);
    }
    s.nanos = System.nanoTime() - t0;
    return s;
  }

  private static void print(PrintStream log, List<FuzzRunner.Outcome> os, boolean verbose) {
    for (FuzzRunner.Outcome o : os) {
      if (verbose || o.status() == FuzzRunner.Status.FAILED) log.println(o);
    }
  }

  private static void note(Path progress, String line) throws IOException {
    Files.writeString(progress, line + "\n", StandardOpenOption.CREATE, StandardOpenOption.APPEND);
  }

  /** Writes a failing case as a complete C file with what failed in its header. */
  static void save(Path out, CGenerator.Case c, List<FuzzRunner.Outcome> os) throws IOException {
    StringBuilder sb = new StringBuilder();
    sb.append("/* packetizer fuzz failure\n");
    sb.append(" * found: FuzzMain --mode c --seed ").append(c.seed()).append(" --first ").append(c.index()).append(" --cases 1\n");
    sb.append(" * function: ").append(c.name()).append('\n');
    sb.append(" * kinds: ").append(c.kinds()).append('\n');
    for (FuzzRunner.Outcome o : os) {
      if (o.status() != FuzzRunner.Status.FAILED) continue;
      sb.append(" * failed: ").append(o.id()).append(": ")
          .append(o.detail().replace("*/", "* /").replace("\n", "\n *   ")).append('\n');
    }
    sb.append(" */\n").append(CGenerator.PRELUDE).append('\n').append(c.function());
    Path f = out.resolve(c.name() + ".c");
    Files.writeString(f, sb.toString());
  }
}
