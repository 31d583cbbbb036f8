package org.packetizer.core.fuzz;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code FuzzMain --isolate}: runs the fuzzer in child JVMs so that a case that crashes the JVM (a
 * packet function that segfaults when the differential check calls it) or hangs is recorded as a
 * failure and the run goes on. The child appends every outcome to a file as it is known and names each
 * case in {@code progress.log} before running it; when the child dies, the last case named there is
 * the culprit: it is recorded as FAILED (and its C source saved), and a new child starts at its index
 * with it skipped. Outcomes a restarted child repeats are counted once.
 */
final class Isolated {
  private Isolated() {}

  /** A case that makes no progress for this long is killed. */
  static final long STALL_SECONDS = Long.getLong("packetizer.fuzz.stallSeconds", 180);

  private static final Pattern CASE = Pattern.compile("^(\\w+):(\\d+) ");

  /** The class path for the child (surefire hides the test class path behind a manifest-only jar). */
  static String classPath() {
    String cp = System.getProperty("surefire.test.class.path");
    return cp != null && !cp.isBlank() ? cp : System.getProperty("java.class.path");
  }

  static String line(FuzzRunner.Outcome o) {
    return o.status() + "\t" + o.id() + "\t" + o.detail().replace("\\", "\\\\").replace("\n", "\\n").replace("\t", "\\t");
  }

  static FuzzRunner.Outcome parse(String line) {
    String[] f = line.split("\t", 3);
    String detail = f.length < 3 ? "" : f[2].replace("\\t", "\t").replace("\\n", "\n").replace("\\\\", "\\");
    return new FuzzRunner.Outcome(f[1], FuzzRunner.Status.valueOf(f[0]), detail);
  }

  static FuzzMain.Summary run(List<String> childArgs, long seed, int first, int cases, String mode, Path out, PrintStream log)
      throws IOException {
    long t0 = System.nanoTime();
    Path outcomes = out.resolve("outcomes.tsv");
    Path progress = out.resolve("progress.log");
    Files.deleteIfExists(outcomes);
    Set<String> skip = new LinkedHashSet<>();
    Map<String, FuzzRunner.Outcome> crashes = new LinkedHashMap<>();
    int next = first;
    int end = first + cases;
    String java = ProcessHandle.current().info().command().orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    while (next < end) {
      List<String> cmd = new ArrayList<>(List.of(java, "--enable-native-access=ALL-UNNAMED", "-Xss8m", "-XX:ErrorFile=" + out.resolve("hs_err_%p.log"), "-cp", classPath(), FuzzMain.class.getName()));
      cmd.addAll(childArgs);
      cmd.addAll(List.of("--first", Integer.toString(next), "--cases", Integer.toString(end - next), "--out", out.toString(), "--outcomes",
          outcomes.toString()));
      if (!skip.isEmpty()) cmd.addAll(List.of("--skip", String.join(",", skip)));
      Files.deleteIfExists(progress);
      Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
      Thread pump = Thread.ofPlatform().daemon().start(() -> {
        try (var r = p.inputReader(StandardCharsets.UTF_8)) {
          for (String l; (l = r.readLine()) != null; ) {
            // the child's own summary is replaced by the parent's
            if (!l.startsWith("fuzz: ") && !l.startsWith("  ") && !l.startsWith("rejections") && !l.startsWith("failures")) log.println(l);
          }
        } catch (IOException e) {
          // the child is gone
        }
      });
      boolean hung = false;
      try {
        while (!p.waitFor(5, TimeUnit.SECONDS)) {
          long last = Files.exists(progress) ? Files.getLastModifiedTime(progress).toMillis() : System.currentTimeMillis();
          if (System.currentTimeMillis() - last > STALL_SECONDS * 1000) {
            hung = true;
            p.destroyForcibly().waitFor();
            break;
          }
        }
        pump.join(10_000);
      } catch (InterruptedException e) {
        p.destroyForcibly();
        Thread.currentThread().interrupt();
        break;
      }
      int code = p.exitValue();
      List<String> lines = Files.exists(progress) ? Files.readAllLines(progress) : List.of();
      // done (nothing failed, or some cases failed cleanly): the child's last word is "done"
      if (!hung && (code == 0 || code == 1) && !lines.isEmpty() && lines.getLast().equals(FuzzMain.DONE)) break;
      // the child died: the last case it named is the culprit
      // (the last case line; the batch it belongs to starts at the last batch line before it)
      int batchStart = next;
      String lastCase = null;
      for (String l : lines) {
        if (l.startsWith(FuzzMain.BATCH)) batchStart = Integer.parseInt(l.substring(FuzzMain.BATCH.length()).trim());
        else if (CASE.matcher(l).find()) lastCase = l;
      }
      Matcher m = lastCase == null ? null : CASE.matcher(lastCase);
      if (m == null || !m.find()) {
        log.println("fuzz: the child JVM exited with " + code + " before naming a case; stopping");
        break;
      }
      String key = m.group(1) + ":" + m.group(2);
      int index = Integer.parseInt(m.group(2));
      String what = hung ? "hung (no progress for " + STALL_SECONDS + " s; killed)" : "crashed the JVM (exit " + code + "; hs_err file in " + out + ")";
      FuzzRunner.Outcome o = crashOutcome(seed, m.group(1), index, what, out);
      log.println(o);
      crashes.put(key, o);
      skip.add(key);
      // restart at the batch's start, skipping every case that has its outcomes already (in mode
      // opt a batch runs its -O1 cases, then its -O2 cases: restarting at the culprit's index would
      // leave out the -O2 cases of the indices before it)
      skip.addAll(doneCases(outcomes));
      next = Math.min(index, batchStart);
    }
    // outcomes, each id once (a restarted child repeats the cases of its batch before the culprit)
    Map<String, FuzzRunner.Outcome> byId = new LinkedHashMap<>();
    if (Files.exists(outcomes)) {
      for (String l : Files.readAllLines(outcomes)) {
        if (l.isBlank()) continue;
        FuzzRunner.Outcome o = parse(l);
        byId.putIfAbsent(o.id(), o);
      }
    }
    for (FuzzRunner.Outcome o : crashes.values()) byId.putIfAbsent(o.id(), o);
    FuzzMain.Summary s = new FuzzMain.Summary();
    s.add(new ArrayList<>(byId.values()));
    Set<String> fns = new LinkedHashSet<>();
    for (FuzzRunner.Outcome o : byId.values()) fns.add(o.id().split(" ")[0]);
    for (String fn : fns) {
      if (fn.endsWith("/O1")) s.o1Cases++;
      else if (fn.endsWith("/O2")) s.o2Cases++;
      else if (fn.startsWith("stress-")) s.stressCases++;
      else s.cCases++;
    }
    s.nanos = System.nanoTime() - t0;
    return s;
  }

  /** The keys (MODE:INDEX) of the cases with outcomes in the file. */
  static Set<String> doneCases(Path outcomes) throws IOException {
    Set<String> out = new LinkedHashSet<>();
    if (!Files.exists(outcomes)) return out;
    Pattern id = Pattern.compile("^fz_\\d+_(\\d+)(?:_o)?(?:/(O[12]))? ");
    for (String l : Files.readAllLines(outcomes)) {
      if (l.isBlank()) continue;
      String name = l.split("\t", 3)[1];
      Matcher m = id.matcher(name);
      if (m.find()) out.add((m.group(2) == null ? "c" : m.group(2).toLowerCase(java.util.Locale.ROOT)) + ":" + m.group(1));
    }
    return out;
  }

  private static FuzzRunner.Outcome crashOutcome(long seed, String mode, int index, String what, Path out) throws IOException {
    return switch (mode) {
      case "o1", "o2", "c" -> {
        FuzzMain.BundledCompile how = switch (mode) {
          case "o1" -> FuzzMain.BundledCompile.O1;
          case "o2" -> FuzzMain.BundledCompile.O2;
          default -> FuzzMain.BundledCompile.KERNEL;
        };
        CGenerator.Case c = how == FuzzMain.BundledCompile.KERNEL ? CGenerator.generate(seed, index) : CGenerator.generateForeign(seed, index);
        String label = how == FuzzMain.BundledCompile.KERNEL ? "" : "/" + how.mode.toUpperCase(java.util.Locale.ROOT);
        FuzzRunner.Outcome o = new FuzzRunner.Outcome(c.name() + label + " (some width)", FuzzRunner.Status.FAILED, what);
        FuzzMain.save(out, c, List.of(o), how);
        yield o;
      }
      default -> new FuzzRunner.Outcome("stress-case-" + index + " of --seed " + seed, FuzzRunner.Status.FAILED, what);
    };
  }
}
