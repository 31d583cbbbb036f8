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
    // (usage: see the class comment; --mode also o1, o2, opt)
    long seed = 1;
    int cases = 100;
    int first = 0;
    String mode = "both";
    int[] widths = {4, 8, 16};
    int runs = 8;
    int batch = 16;
    Path out = Path.of("target/fuzz");
    boolean verbose = false;
    boolean isolate = false;
    Path outcomes = null;
    java.util.Set<String> skip = new java.util.HashSet<>();
    List<String> childArgs = new ArrayList<>();
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      if (!List.of("--isolate", "--first", "--cases", "--out", "--outcomes", "--skip").contains(a)) {
        childArgs.add(a);
        if (i + 1 < args.length && !args[i + 1].startsWith("--") && !a.equals("-v")) childArgs.add(args[i + 1]);
      }
      switch (a) {
        case "--isolate" -> isolate = true;
        case "--outcomes" -> outcomes = Path.of(args[++i]);
        case "--skip" -> skip.addAll(List.of(args[++i].split(",")));
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
          System.out.println("usage: fuzz [--seed S] [--cases N] [--first I] [--mode c|stress|both|o1|o2|opt] [--widths 4,8,16]"
              + " [--runs R] [--batch B] [--out DIR] [--isolate] [--verbose]");
          return;
        }
        default -> {
          System.err.println("fuzz: unknown argument '" + a + "' (try --help)");
          System.exit(2);
        }
      }
    }
    if (!MODES.contains(mode)) {
      System.err.println("fuzz: --mode must be one of " + String.join(", ", MODES));
      System.exit(2);
    }
    Files.createDirectories(out);
    Summary s = isolate ? Isolated.run(childArgs, seed, first, cases, mode, out, System.out)
        : run(seed, first, cases, mode, widths, runs, batch, out, verbose, System.out, skip, outcomes);
    System.out.println(s.report());
    System.exit(s.failed.isEmpty() ? 0 : 1);
  }

  /**
   * c: generated C with the kernels' flags; stress: llvm-stress; both: one of each per index; o1, o2:
   * generated C in the shape real code has ({@link CGenerator#generateForeign}: static helpers,
   * vectorizable statements) compiled with clang's default -O1 or -O2 pipeline (SLP and loop
   * vectorizers on, no flags of ours); opt: one -O1 and one -O2 case per index.
   */
  static final List<String> MODES = List.of("c", "stress", "both", "o1", "o2", "opt");

  /** What clang's default pipelines are given: only what keeps the output independent of the machine's headers and names. */
  static final List<String> O1_FLAGS = List.of("-O1", "-nostdlibinc", "-fno-ident");
  static final List<String> O2_FLAGS = List.of("-O2", "-nostdlibinc", "-fno-ident");

  /** What a fuzz run found. */
  public static final class Summary {
    public int stressCases, cCases, o1Cases, o2Cases;
    public final List<FuzzRunner.Outcome> all = new ArrayList<>();
    public final List<FuzzRunner.Outcome> failed = new ArrayList<>();
    public final Map<String, Integer> rejections = new TreeMap<>();
    public long nanos;

    /** Adds outcomes; with an outcomes file (a child of {@link Isolated}), appends them there too. */
    void add(List<FuzzRunner.Outcome> os, Path outcomesFile) throws IOException {
      add(os);
      if (outcomesFile == null) return;
      StringBuilder sb = new StringBuilder();
      for (FuzzRunner.Outcome o : os) sb.append(Isolated.line(o)).append('\n');
      Files.writeString(outcomesFile, sb.toString(), StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    }

    void add(List<FuzzRunner.Outcome> os) {
      for (FuzzRunner.Outcome o : os) {
        all.add(o);
        if (o.status() == FuzzRunner.Status.FAILED) failed.add(o);
        if (o.status() == FuzzRunner.Status.REJECTED) rejections.merge(normalize(o.detail()), 1, Integer::sum);
      }
    }

    public String report() {
      StringBuilder sb = new StringBuilder();
      sb.append(String.format(Locale.ROOT, "fuzz: %d llvm-stress cases, %d C cases, %d -O1 cases, %d -O2 cases, %d packetizations: %s"
          + " (%.1f s)%n", stressCases, cCases, o1Cases, o2Cases, all.size(), FuzzRunner.tally(all), nanos / 1e9));
      if (o1Cases + o2Cases > 0) {
        sb.append(String.format(Locale.ROOT, "  cases (all widths of a case): %s%n", caseTally()));
      }
      if (!rejections.isEmpty()) {
        sb.append("rejections (clean UNSUPPORTED / INVALID_INPUT), by message:\n");
        rejections.entrySet().stream().sorted((x, y) -> y.getValue() - x.getValue()).limit(25)
            .forEach(e -> sb.append(String.format(Locale.ROOT, "  %5d  %s%n", e.getValue(), e.getKey())));
      }
      if (!failed.isEmpty()) {
        Map<String, Integer> byMessage = new TreeMap<>();
        for (FuzzRunner.Outcome o : failed) byMessage.merge(normalize(failureLine(o.detail())), 1, Integer::sum);
        sb.append("failures, by message:\n");
        byMessage.entrySet().stream().sorted((x, y) -> y.getValue() - x.getValue())
            .forEach(e -> sb.append(String.format(Locale.ROOT, "  %5d  %s%n", e.getValue(), e.getKey())));
      }
      for (FuzzRunner.Outcome o : failed) sb.append("FAILED ").append(o).append('\n');
      return sb.toString();
    }

    /** Per case (function), not per packetization: passed everywhere / some clean rejection, none failed / some failed. */
    String caseTally() {
      Map<String, FuzzRunner.Status> worst = new java.util.LinkedHashMap<>();
      for (FuzzRunner.Outcome o : all) {
        String fn = o.id().split(" ")[0];
        worst.merge(fn, o.status(), (x, y) -> x.compareTo(y) >= 0 ? x : y);
      }
      long p = worst.values().stream().filter(x -> x == FuzzRunner.Status.PASSED).count();
      long r = worst.values().stream().filter(x -> x == FuzzRunner.Status.REJECTED).count();
      long f = worst.values().stream().filter(x -> x == FuzzRunner.Status.FAILED).count();
      return worst.size() + " functions: " + p + " packetized and passed at every width, " + r + " rejected cleanly (at some width), " + f
          + " failed";
    }
  }

  /** The line of a failure's detail that says what went wrong. */
  static String failureLine(String detail) {
    for (String l : detail.split("\n")) {
      String t = l.strip();
      if (t.isEmpty() || t.startsWith("at ") || t.equals("differential check failed:")) continue;
      return t;
    }
    return detail;
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
    return run(seed, first, cases, mode, widths, runs, batch, out, verbose, log, java.util.Set.of(), null);
  }

  /**
   * As above; cases whose key ({@code MODE:INDEX}, e.g. {@code o2:17}) is in {@code skip} are left
   * out, and with {@code outcomes} every outcome is also appended to that file as it is known.
   */
  static Summary run(long seed, int first, int cases, String mode, int[] widths, int runs, int batch, Path out,
      boolean verbose, PrintStream log, java.util.Set<String> skip, Path outcomes) throws IOException {
    Summary s = new Summary();
    long t0 = System.nanoTime();
    FuzzRunner runner = new FuzzRunner(runs);
    Path progress = out.resolve("progress.log");
    boolean stress = mode.equals("stress") || mode.equals("both");
    boolean c = mode.equals("c") || mode.equals("both");
    boolean o1 = mode.equals("o1") || mode.equals("opt");
    boolean o2 = mode.equals("o2") || mode.equals("opt");
    for (int start = first; start < first + cases; start += batch) {
      note(progress, BATCH + start);
      int end = Math.min(first + cases, start + batch);
      if (stress) {
        for (int i = start; i < end; i++) {
          if (skip.contains("stress:" + i)) continue;
          long ss = stressSeed(seed, i);
          int size = stressSize(i);
          note(progress, "stress:" + i + " seed=" + ss + " size=" + size + " (case " + i + " of --seed " + seed + ")");
          List<FuzzRunner.Outcome> os;
          try {
            os = runner.runStress(ss, size);
          } catch (RuntimeException e) {
            os = List.of(new FuzzRunner.Outcome("stress-" + ss + "-" + size, FuzzRunner.Status.FAILED, "unexpected " + FuzzRunner.stack(e)));
          }
          s.stressCases++;
          s.add(os, outcomes);
          print(log, os, verbose);
        }
      }
      if (c) runCBatch(s, runner, seed, start, end, false, BundledCompile.KERNEL, widths, out, progress, verbose, log, skip, outcomes);
      if (o1) runCBatch(s, runner, seed, start, end, true, BundledCompile.O1, widths, out, progress, verbose, log, skip, outcomes);
      if (o2) runCBatch(s, runner, seed, start, end, true, BundledCompile.O2, widths, out, progress, verbose, log, skip, outcomes);
      log.printf(Locale.ROOT, "... %d/%d cases, %s, %.0f s%n", end - first, cases, FuzzRunner.tally(s.all), (System.nanoTime() - t0) / 1e9);
    }
    s.nanos = System.nanoTime() - t0;
    note(progress, DONE);
    return s;
  }

  /** Progress.log's line before each batch (then the index of its first case). */
  static final String BATCH = "batch ";

  /** The last line of progress.log after a run that finished. */
  static final String DONE = "done";

  /** How a batch of generated C is compiled. */
  enum BundledCompile {
    KERNEL(org.packetizer.core.toolchain.BundledClang.KERNEL_FLAGS, "c"),
    O1(O1_FLAGS, "o1"),
    O2(O2_FLAGS, "o2");

    final List<String> flags;
    final String mode;

    BundledCompile(List<String> flags, String mode) {
      this.flags = flags;
      this.mode = mode;
    }
  }

  private static void runCBatch(Summary s, FuzzRunner runner, long seed, int start, int end, boolean foreign, BundledCompile how,
      int[] widths, Path out, Path progress, boolean verbose, PrintStream log, java.util.Set<String> skip, Path outcomes) throws IOException {
    List<CGenerator.Case> cs = new ArrayList<>();
    for (int i = start; i < end; i++) {
      if (!skip.contains(how.mode + ":" + i)) cs.add(foreign ? CGenerator.generateForeign(seed, i) : CGenerator.generate(seed, i));
    }
    if (cs.isEmpty()) return;
    byte[] bc = null;
    try {
      bc = FuzzRunner.compile(FuzzRunner.translationUnit(cs), "fuzz_" + seed + "_" + start + "_" + how.mode + ".c", how.flags);
    } catch (ToolchainException e) {
      log.println("batch " + start + ".." + (end - 1) + " (" + how.mode + ") did not compile; compiling its cases one by one");
    }
    for (CGenerator.Case cc : cs) {
      note(progress, how.mode + ":" + cc.index() + " seed=" + seed + " index=" + cc.index() + " kinds=" + cc.kinds());
      byte[] one = bc;
      List<FuzzRunner.Outcome> os;
      String label = how == BundledCompile.KERNEL ? "" : "/" + how.mode.toUpperCase(Locale.ROOT);
      try {
        if (one == null) one = FuzzRunner.compile(cc.source(), cc.name() + ".c", how.flags);
        os = runner.runC(cc.name(), cc.kinds(), one, widths, cc.seed() ^ cc.index(), label);
      } catch (RuntimeException e) {
        os = List.of(new FuzzRunner.Outcome(cc.name() + label, FuzzRunner.Status.FAILED, "unexpected " + FuzzRunner.stack(e)));
      }
      switch (how) {
        case KERNEL -> s.cCases++;
        case O1 -> s.o1Cases++;
        case O2 -> s.o2Cases++;
      }
      s.add(os, outcomes);
      print(log, os, verbose);
      if (os.stream().anyMatch(o -> o.status() == FuzzRunner.Status.FAILED)) save(out, cc, os, how);
    }
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
  static void save(Path out, CGenerator.Case c, List<FuzzRunner.Outcome> os, BundledCompile how) throws IOException {
    StringBuilder sb = new StringBuilder();
    sb.append("/* packetizer fuzz failure\n");
    sb.append(" * found: FuzzMain --mode ").append(how.mode).append(" --seed ").append(c.seed()).append(" --first ").append(c.index())
        .append(" --cases 1\n");
    sb.append(" * function: ").append(c.name()).append('\n');
    if (how != BundledCompile.KERNEL) sb.append(" * flags: ").append(String.join(" ", how.flags)).append('\n');
    sb.append(" * kinds: ").append(c.kinds()).append('\n');
    for (FuzzRunner.Outcome o : os) {
      if (o.status() != FuzzRunner.Status.FAILED) continue;
      sb.append(" * failed: ").append(o.id()).append(": ")
          .append(o.detail().replace("*/", "* /").replace("\n", "\n *   ")).append('\n');
    }
    sb.append(" */\n").append(CGenerator.PRELUDE).append('\n').append(c.function());
    Path f = out.resolve(c.name() + (how == BundledCompile.KERNEL ? "" : "_" + how.mode) + ".c");
    Files.writeString(f, sb.toString());
  }
}
