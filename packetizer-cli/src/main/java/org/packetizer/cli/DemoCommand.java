package org.packetizer.cli;

import java.io.PrintWriter;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.packetizer.core.api.PacketizationException;
import org.packetizer.core.api.PacketizationResult;
import org.packetizer.core.Packetizer;
import org.packetizer.core.api.PacketizerOptions;
import org.packetizer.core.api.Remark;
import org.packetizer.core.ir.Function;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.toolchain.Manifest;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code packetize demo}: packetize a bundled kernel, check it differentially, show the scalar and
 * packet IR side by side, the remarks, and the measured speedup.
 */
@Command(
    name = "demo",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    sortOptions = false,
    usageHelpAutoWidth = true,
    description = {
        "A guided tour on a bundled kernel (default: mandelbrot): packetize it, check the packet function against "
            + "the scalar one lane by lane, show both side by side with the remarks, and measure the speedup "
            + "(N elements through a loop calling the scalar function W times per step vs one calling the packet "
            + "function once; JIT-compiled for this CPU; median of several runs)."})
final class DemoCommand implements Callable<Integer> {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Option(names = "--kernel", paramLabel = "NAME", defaultValue = "mandelbrot",
      description = "The bundled kernel to packetize (default: ${DEFAULT-VALUE}); see --list.")
  String kernel;

  @Option(names = "--list", description = "List the bundled kernels and exit.")
  boolean list;

  @Option(names = "--all", description = "With --list: also the test kernels (control-flow, memory and type cases).")
  boolean all;

  @Option(names = {"-w", "--width"}, paramLabel = "W", defaultValue = "8", description = "Packet width (default: ${DEFAULT-VALUE}).")
  int width;

  @Option(names = "--check", paramLabel = "N", defaultValue = "100", description = "Differential check runs (default: ${DEFAULT-VALUE}).")
  int checkRuns;

  @Option(names = "--elements", paramLabel = "N", defaultValue = "0",
      description = "Elements for the speed measurement (default: enough for about 60 ms of scalar work per run).")
  long elements;

  @Option(names = "--runs", paramLabel = "N", defaultValue = "7", description = "Timed runs of each loop; the median counts (default: ${DEFAULT-VALUE}).")
  int runs;

  @Option(names = "--lines", paramLabel = "N", defaultValue = "30", description = "IR lines shown per function (default: ${DEFAULT-VALUE}).")
  int lines;

  @Option(names = "--debug", description = "Show stack traces of errors.")
  boolean debug;

  private PrintWriter out;

  @Override
  public Integer call() {
    out = spec.commandLine().getOut();
    Manifest man = Kernels.requireManifest();
    if (list) return list(man);
    PacketizeCommand.checkWidth("width", width);
    if (runs < 1) throw CliException.usage("--runs needs at least 1");
    if (checkRuns < 1) throw CliException.usage("--check needs at least 1 run");
    if (lines < 1) throw CliException.usage("--lines needs at least 1");
    Manifest.Entry e = man.entry(kernel).orElseThrow(() -> CliException.usage("no bundled kernel '" + kernel + "'"
        + didYouMean(man, kernel) + "; see 'packetize demo --list'"));
    long start = System.nanoTime();
    int code = run(man, e);
    out.printf(Locale.ROOT, "%n(demo took %.1f s)%n", (System.nanoTime() - start) / 1e9);
    out.flush();
    return code;
  }

  private int run(Manifest man, Manifest.Entry e) {
    String simd = FunctionSpec.defaultSimdName(e.function(), width);
    heading("packetize demo: " + e.name() + " at width " + width);
    out.println(wrap(e.description(), "  "));
    out.println("  " + prototype(e));
    String bundled = "testdata-bitcode/src/main/bc/" + e.bitcode();
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.load(man.bitcode(e), e.bitcode())) {
      Function scalar = m.function(e.function()).orElseThrow();
      // compile for this machine, as a user targeting it would (-march=native): the packet function
      // inherits these attributes and picks its vector math variants from them
      scalar.setStringAttribute("target-cpu", org.packetizer.core.ir.Llvm.hostCpuName());
      scalar.setStringAttribute("target-features", org.packetizer.core.ir.Llvm.hostCpuFeatures());
      String scalarIr = scalar.print();
      List<Remark> remarks = new ArrayList<>();
      PacketizerOptions opts = PacketizerOptions.builder().width(width).params(e.signature()).remarks(remarks::add).build();

      section("1. Packetize");
      if (Files.isRegularFile(Path.of(bundled))) {
        out.println("  $ packetize " + bundled + " -f " + e.function() + " --params " + e.signature() + " -w " + width
            + " --check --remarks -S -o -");
      }
      PacketizationResult r;
      try {
        r = new Packetizer(opts).run(m, e.function(), simd);
      } catch (PacketizationException ex) {
        out.println("  FAILED: " + ex.getMessage().replace("\n", "\n  "));
        if (debug) ex.printStackTrace(out);
        return InputJob.exitCodeOf(ex);
      }
      out.println("  " + InputJob.describe(r));

      section("2. Scalar and packet IR (first " + lines + " lines of each; the whole module: the command above)");
      sideBySide(scalarIr, m.function(simd).orElseThrow().print(), "@" + e.function() + " (scalar)",
          "@" + simd + " (packet, " + width + " lanes)");

      section("3. Remarks: what the packetizer did where (--remarks)");
      if (remarks.isEmpty()) out.println("  (none)");
      for (Remark rk : remarks) out.println(wrapLine("  " + rk.toLine(), "      "));

      section("4. Differential check (--check=" + checkRuns + ")");
      CheckPlan plan = CheckPlan.build(m, scalar, r.params(), false, width, Optional.of(e), CheckPlan.Ranges.NONE, CheckPlan.Buffers.NONE);
      Checker.Outcome o = Checker.runInProcess(m, e.function(), simd, width, plan, checkRuns, 1, 60, opts.vectorMath());
      if (o.timedOut()) {
        out.println("  FAILED: the check did not finish within 60 s (a call does not terminate)");
        return ExitCodes.CHECK_MISMATCH;
      }
      if (!o.passed()) {
        out.println("  " + o.report().replace("\n", "\n  "));
        return ExitCodes.CHECK_MISMATCH;
      }
      out.printf(Locale.ROOT, "  %d runs x %d lanes, inputs from the kernel's ranges: all %d lanes and %d bytes equal%s [%.0f ms]%n",
          checkRuns, width, o.lanesCompared(), o.bytesCompared(),
          plan.ulps() > 0 ? " (floats within " + plan.ulps() + " ulps)" : "", o.nanos() / 1e6);

      section("5. Speed");
      if (!SpeedBench.supports(e)) {
        out.println("  not measured: the driver loop handles kernels with scalar parameters and a scalar result only");
      } else {
        SpeedBench.Outcome b = SpeedBench.run(m, e, e.function(), simd, r.params(), width, false, elements, runs, 60);
        out.printf(Locale.ROOT, "  %,d elements (%s); JIT for %s, median of %d runs%n", b.elements(), b.inputs(), b.cpu(), b.runs());
        out.printf(Locale.ROOT, "    %-33s %9.2f ms%n", "scalar loop, " + width + " calls per step:", b.scalarNanos() / 1e6);
        out.printf(Locale.ROOT, "    %-33s %9.2f ms   %.2fx faster%n", "packet loop, 1 call per step:", b.packetNanos() / 1e6,
            b.speedup());
        if (b.differing() == 0) {
          out.printf(Locale.ROOT, "    all %,d results identical%n", b.elements());
        } else {
          out.printf(Locale.ROOT, "    %,d of %,d results differ%s%n", b.differing(), b.elements(),
              b.maxUlps() > 0 ? " (at most " + b.maxUlps() + " ulps)" : "");
        }
      }
      out.println();
      out.println("Next: packetize demo --list | packetize demo --kernel julia | packetize --help");
      return ExitCodes.OK;
    }
  }

  // ---- listing ----

  private int list(Manifest man) {
    List<Manifest.Entry> shown = man.kernels().stream().filter(k -> all || k.family().equals("kernel")).toList();
    int cols = Terminal.columns().orElse(100);
    int nameW = Math.max(6, shown.stream().mapToInt(k -> k.name().length()).max().orElse(6));
    int sigW = Math.max(9, shown.stream().mapToInt(k -> k.signature().length()).max().orElse(9));
    out.println(all ? "Bundled kernels (" + shown.size() + "):" : "Bundled kernels (packetize demo --kernel NAME):");
    String fmt = "  %-" + nameW + "s  %-" + sigW + "s  %s%n";
    out.printf(Locale.ROOT, fmt, "NAME", "SIGNATURE", all ? "FAMILY: DESCRIPTION" : "DESCRIPTION");
    int descW = Math.max(20, cols - nameW - sigW - 7);
    for (Manifest.Entry k : shown) {
      String d = (all ? k.family() + ": " : "") + k.description();
      out.printf(Locale.ROOT, fmt, k.name(), k.signature(), clip(d, descW));
    }
    if (!all) {
      long more = man.kernels().size() - shown.size();
      out.println("  ... and " + more + " test kernels (control flow, memory, types): packetize demo --list --all");
    }
    out.flush();
    return ExitCodes.OK;
  }

  // ---- formatting ----

  private void heading(String s) {
    out.println(s);
    out.println("=".repeat(Math.min(s.length(), 100)));
  }

  private void section(String s) {
    out.println();
    out.println(s);
    out.println("-".repeat(Math.min(s.length(), 100)));
  }

  private static String prototype(Manifest.Entry e) {
    List<String> ps = new ArrayList<>();
    for (Manifest.Param p : e.params()) {
      String r = p.range() == null ? "" : " in [" + CheckPlan.fmt(p.lo()) + ", " + CheckPlan.fmt(p.hi()) + "]";
      ps.add(p.kind() + " " + p.type() + " " + p.name() + r);
    }
    return e.returns().type() + " " + e.function() + "(" + String.join(", ", ps) + ")";
  }

  /** The two functions next to each other when the terminal is wide enough, else one after the other. */
  private void sideBySide(String left, String right, String leftTitle, String rightTitle) {
    List<String> a = head(left), b = head(right);
    int cols = Terminal.columns().orElse(80);
    int colW = (cols - 5) / 2;
    if (colW >= 48) {
      out.println("  " + pad(leftTitle, colW) + " | " + rightTitle);
      out.println("  " + "-".repeat(colW) + "-+-" + "-".repeat(colW));
      for (int i = 0; i < Math.max(a.size(), b.size()); i++) {
        String l = i < a.size() ? a.get(i) : "", r = i < b.size() ? b.get(i) : "";
        out.println(("  " + pad(clip(l, colW), colW) + " | " + clip(r, colW)).stripTrailing());
      }
    } else {
      out.println("  " + leftTitle + ":");
      for (String l : a) out.println("    " + l);
      out.println();
      out.println("  " + rightTitle + ":");
      for (String l : b) out.println("    " + l);
    }
  }

  private List<String> head(String ir) {
    List<String> out = new ArrayList<>();
    String[] ls = ir.strip().split("\n");
    int shown = 0;
    for (String l : ls) {
      if (l.startsWith("; Function Attrs")) continue;
      if (shown == lines) {
        out.add("... (" + (ls.length - shown) + " more lines)");
        break;
      }
      out.add(l.replace("\t", "  "));
      shown++;
    }
    return out;
  }

  private static final String ELLIPSIS = Charset.defaultCharset().equals(StandardCharsets.UTF_8)
      || "UTF-8".equalsIgnoreCase(System.getProperty("stdout.encoding")) ? "\u2026" : "~";

  private static String clip(String s, int w) {
    return s.length() <= w ? s : s.substring(0, Math.max(0, w - 1)) + ELLIPSIS;
  }

  private static String pad(String s, int w) { return s.length() >= w ? s : s + " ".repeat(w - s.length()); }

  private static String wrap(String text, String indent) { return wrapLine(indent + text, indent); }

  /** Wraps a long line at spaces to the terminal width, continuing with {@code indent}. */
  private static String wrapLine(String line, String indent) {
    int cols = Math.max(40, Terminal.columns().orElse(100));
    StringBuilder sb = new StringBuilder();
    String rest = line;
    while (rest.length() > cols) {
      int cut = rest.lastIndexOf(' ', cols);
      if (cut <= indent.length()) break;
      sb.append(rest, 0, cut).append('\n');
      rest = indent + rest.substring(cut + 1);
    }
    return sb.append(rest).toString();
  }

  private static String didYouMean(Manifest man, String name) {
    String best = null;
    int bestD = Integer.MAX_VALUE;
    for (Manifest.Entry k : man.kernels()) {
      int d = distance(name.toLowerCase(Locale.ROOT), k.name().toLowerCase(Locale.ROOT));
      if (d < bestD) {
        bestD = d;
        best = k.name();
      }
    }
    return best != null && bestD <= Math.max(2, name.length() / 3) ? "; did you mean '" + best + "'?" : "";
  }

  static int distance(String a, String b) {
    int[] prev = new int[b.length() + 1], cur = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) prev[j] = j;
    for (int i = 1; i <= a.length(); i++) {
      cur[0] = i;
      for (int j = 1; j <= b.length(); j++) {
        cur[j] = Math.min(Math.min(cur[j - 1] + 1, prev[j] + 1), prev[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1));
      }
      int[] t = prev;
      prev = cur;
      cur = t;
    }
    return prev[b.length()];
  }
}
