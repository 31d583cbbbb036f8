package org.packetizer.cli;

import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import org.packetizer.core.api.PacketizerOptions;
import org.packetizer.core.bench.BenchOptions;
import org.packetizer.core.bench.BenchReport;
import org.packetizer.core.bench.BenchTarget;
import org.packetizer.core.bench.Benchmark;
import org.packetizer.core.bench.KernelFailure;
import org.packetizer.core.bench.ScalingBench;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code packetize bench}: measures the code generator. For every benchmark kernel (manifest family
 * "kernel" plus a few thesis examples) and target (W=4 on SSE4.2, W=8 on AVX2, W=16 on AVX-512) it
 * times three loops over the same N inputs in one process: the scalar kernel (clang -O3, vectorizers
 * off), the auto-vectorized kernel (clang -O3, kernel inlined) and the loop over the packet function;
 * prints a table, geometric means and the goals each kernel misses; writes JSON and an SVG chart on
 * request. A kernel whose packet loop computes other outputs than the scalar loop is not reported.
 *
 * <p>Times are medians of the calling thread's CPU time (wall-clock medians are in the JSON too): on
 * a machine shared with other work, wall time mostly measures the other work.
 *
 * <p>JSON: {@code {schema, generated, host{cpu,cores,java,libmvec,load_average}, options{...},
 * results[{kernel, family, width, isa, cpu, elements, reps, scalar_ns_per_elem, autovec_ns_per_elem,
 * packet_ns_per_elem, speedup_vs_scalar, speedup_vs_autovec, autovec_speedup_vs_scalar,
 * scalar_wall_ns_per_elem, autovec_wall_ns_per_elem, packet_wall_ns_per_elem, spread_pct,
 * autovec_matches, scalar_instructions, packet_instructions, code_growth, packetize_ms, gathers,
 * scatters, vector_calls, scalarized_calls, linearized_branches, kept_branches}], failures[{kernel,
 * width, isa, stage, message}], geomeans[{target, width, isa, kernels, speedup_vs_scalar,
 * speedup_vs_autovec, autovec_speedup_vs_scalar, code_growth, max_code_growth}], goals[{goal, required,
 * actual, met, misses[]}], scaling{points[...], summary{...}} (with --scaling/--all), notes[], seconds}}.
 *
 * <p>Exit status: 0 when the run completed; 1 when a packet loop computed wrong outputs, crashed or
 * hung (or, with {@code --strict}, when anything was not reported; with {@code --fail-on-goals}, when
 * a goal is missed); 2 for bad usage.
 */
@Command(name = "bench", mixinStandardHelpOptions = true, sortOptions = false,
    description = "Benchmarks the packetizer: scalar vs auto-vectorized vs packet loops over the benchmark kernels per width and ISA, "
        + "and (--scaling) packetization time over generated functions of 1k-50k instructions.")
public final class BenchCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Option(names = "--quick", description = "CI mode: checker and fig417, N=1024, 1 warm-up + 3 timed runs (with --scaling: three small sizes).")
  boolean quick;

  @Option(names = "--scaling", description = "Measure packetization time over generated functions instead of kernel speed.")
  boolean scaling;

  @Option(names = "--all", description = "Kernel benchmark and the scaling study.")
  boolean all;

  @Option(names = {"-k", "--kernels"}, split = ",", paramLabel = "NAME",
      description = "Manifest kernels to run (default: family \"kernel\" and fig23, fig47, fig411, fig414).")
  List<String> kernels;

  @Option(names = {"-t", "--targets"}, paramLabel = "W:ISA,...",
      description = "Widths and ISAs, e.g. 4:sse4.2,8:avx2,16:avx512 (the default; avx512 means znver4 on Zen 4 hosts, "
          + "skylake-avx512 elsewhere) or 8:avx512@znver4.")
  String targets;

  @Option(names = {"-n", "--elements"}, paramLabel = "N",
      description = "Elements per run (default: 65536, reduced to as low as 16384 for slow kernels; --quick: 1024).")
  Integer elements;

  @Option(names = "--reps", description = "Timed runs of each loop (default 11; --quick 3).")
  Integer reps;

  @Option(names = "--warmup", description = "Untimed runs of each loop first (default 2; --quick 1).")
  Integer warmup;

  @Option(names = "--seed", description = "Input seed (default 1).")
  Long seed;

  @Option(names = "--interleave", paramLabel = "IC",
      description = "The packet loop's interleave count: auto (default: 2 where the kernel's loops are bound by the latency of a"
          + " loop-carried chain, as the array drivers choose; the table shows e.g. W8/AVX2 x2, still 8-lane vectors), 1 (off:"
          + " one W-lane packet per step), 2 or 4 (forced).")
  String interleave;

  @Option(names = "--inputs", paramLabel = "ORDER",
      description = "random (default: independent inputs per element, the worst case for divergent kernels) or coherent "
          + "(elements ordered along a Z-order curve of their first two varying inputs, as pixels of an image tile).")
  String inputs;

  @Option(names = "--vector-math", paramLabel = "KIND",
      description = "intrinsics (default: scalar libm per lane) or libmvec (packetizer maps to glibc's vector math; the "
          + "auto-vectorizer gets -fveclib=libmvec).")
  String vectorMath;

  @Option(names = "--in-process", description = "Run kernels in this JVM instead of one child JVM per kernel "
      + "(faster; a crash or endless loop in generated code ends the whole run).")
  boolean inProcess;

  @Option(names = "--timeout", paramLabel = "SECONDS", description = "Per loop run / per kernel limit (default 600; --quick 300).")
  Integer timeout;

  @Option(names = "--json", paramLabel = "FILE", description = "Write the results as JSON.")
  Path json;

  @Option(names = {"--svg", "--chart"}, paramLabel = "FILE", description = "Write the speed-up chart as SVG.")
  Path svg;

  @Option(names = "--markdown", paramLabel = "FILE", description = "Write the table as Markdown: between the lines"
      + " '<!-- bench:begin -->' and '<!-- bench:end -->' of FILE when it has them (the rest of the document is kept), else"
      + " the whole file.")
  Path markdown;

  @Option(names = "--dump", paramLabel = "DIR", description = "Write the IR and assembly of all three loops per kernel and target, and of the array drivers' modules.")
  Path dump;

  @Option(names = "--scaling-sizes", split = ",", paramLabel = "N",
      description = "Instruction counts of the generated functions (default 1000,2000,5000,10000,20000,50000).")
  List<Integer> scalingSizes;

  @Option(names = "--scaling-kinds", split = ",", paramLabel = "KIND",
      description = "Segment kinds of the generated functions: arith, if, nestedif, uloop, vloop, nestedloop, escape, int; or branchy alone (40 divergent if/else with long arms over 16 variables) "
          + "(default: all, arith three times as often).")
  List<String> scalingKinds;

  @Option(names = "--scaling-per-kind", paramLabel = "N",
      description = "Also time one function of about N instructions per segment kind alone (default 2000; --quick 0: off).")
  Integer scalingPerKind;

  @Option(names = "--strict", description = "Exit 1 when any kernel or target was not reported (also packetization failures).")
  boolean strict;

  @Option(names = "--fail-on-goals", description = "Exit 1 when a goal is missed.")
  boolean failOnGoals;

  @Option(names = {"-q", "--quiet"}, description = "No progress messages on standard error.")
  boolean quiet;

  public static void main(String[] args) {
    System.exit(new CommandLine(new BenchCommand()).execute(args));
  }

  @Override
  public Integer call() throws IOException {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    BenchOptions opt;
    try {
      opt = options();
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage(), e);
    }
    PrintStream log = quiet ? new PrintStream(PrintStream.nullOutputStream()) : new PrintStream(new WriterStream(err), true,
        StandardCharsets.UTF_8);
    ScalingBench.Options so = quick ? ScalingBench.Options.quick() : ScalingBench.Options.defaults();
    try {
      if (scalingSizes != null && !scalingSizes.isEmpty()) so = so.withSizes(scalingSizes);
      if (scalingKinds != null && !scalingKinds.isEmpty()) so = so.withKinds(scalingKinds);
      if (scalingPerKind != null) so = so.withPerKindSize(scalingPerKind);
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage(), e);
    }
    BenchReport report;
    if (scaling && !all) {
      report = Benchmark.runScaling(opt, so, log);
    } else {
      report = Benchmark.run(opt, log);
      if (all) report = report.withScaling(ScalingBench.run(so, log));
    }
    log.flush();
    out.print(report.table());
    out.flush();
    if (json != null) write(json, report.json());
    if (svg != null && !report.results().isEmpty()) write(svg, report.svg());
    if (markdown != null) writeMarkdown(markdown, report);
    boolean wrongCode = report.failures().stream().anyMatch(BenchCommand::isWrongCode);
    if (wrongCode) {
      err.println("bench: some packet loops computed wrong results, crashed or did not finish (see 'Not reported')");
      return ExitCodes.CHECK_MISMATCH;
    }
    if (strict && !report.failures().isEmpty()) return ExitCodes.CHECK_MISMATCH;
    if (strict && !report.scaling().isEmpty() && report.scaling().stream().anyMatch(p -> p.error() != null)) return ExitCodes.CHECK_MISMATCH;
    if (failOnGoals && report.goals().stream().anyMatch(g -> !g.met())) return ExitCodes.CHECK_MISMATCH;
    return ExitCodes.OK;
  }

  static boolean isWrongCode(KernelFailure f) {
    return f.isMismatch() || f.stage().equals("crash") || f.stage().equals("timeout");
  }

  BenchOptions options() {
    BenchOptions o = quick ? BenchOptions.quickDefaults() : BenchOptions.defaults();
    if (kernels != null && !kernels.isEmpty()) o = o.withKernels(kernels);
    if (targets != null) o = o.withTargets(BenchTarget.parseList(targets));
    if (elements != null) o = o.withElements(elements);
    if (reps != null || warmup != null) o = o.withRuns(warmup == null ? o.warmup() : warmup, reps == null ? o.reps() : reps);
    if (seed != null) o = o.withSeed(seed);
    if (inputs != null) {
      o = o.withCoherent(switch (inputs.toLowerCase(java.util.Locale.ROOT)) {
        case "random" -> false;
        case "coherent" -> true;
        default -> throw new IllegalArgumentException("--inputs must be random or coherent, not '" + inputs + "'");
      });
    }
    if (interleave != null) {
      o = o.withInterleave(switch (interleave) {
        case "auto" -> 0;
        case "1", "2", "4" -> Integer.parseInt(interleave);
        default -> throw new IllegalArgumentException("--interleave must be auto, 1, 2 or 4, not '" + interleave + "'");
      });
    }
    if (inProcess) o = o.withIsolate(false);
    if (timeout != null) o = o.withTimeoutSeconds(timeout);
    if (vectorMath != null) {
      o = o.withVectorMath(switch (vectorMath.toLowerCase(java.util.Locale.ROOT)) {
        case "intrinsics" -> PacketizerOptions.VectorMath.INTRINSICS;
        case "libmvec" -> PacketizerOptions.VectorMath.LIBMVEC;
        default -> throw new IllegalArgumentException("--vector-math must be intrinsics or libmvec, not '" + vectorMath + "'");
      });
    }
    if (dump != null) o = o.withDumpDir(dump.toAbsolutePath().toString());
    return o;
  }

  static final String MD_BEGIN = "<!-- bench:begin -->", MD_END = "<!-- bench:end -->";

  /** The report as Markdown, spliced between the markers of an existing document or as the whole file. */
  private void writeMarkdown(Path file, BenchReport report) throws IOException {
    String cmd = "./bin/bench " + String.join(" ", spec.commandLine().getParseResult().originalArgs());
    String block = MD_BEGIN + "\n<!-- generated by ./bin/bench (its markdown output; the command is the first line below); do not edit by hand -->\n\n```\n$ " + cmd + "\n"
        + report.table() + "```\n" + MD_END;
    String text = Files.exists(file) ? Files.readString(file) : "";
    // the markers on lines of their own (a mention of them in the prose is not one)
    int b = text.indexOf("\n" + MD_BEGIN + "\n"), e = b < 0 ? -1 : text.indexOf("\n" + MD_END, b);
    if (b >= 0 && e > b) text = text.substring(0, b + 1) + block + text.substring(e + 1 + MD_END.length());
    else text = "# Benchmark results\n\n" + block + "\n";
    write(file, text);
  }

  private static void write(Path file, String text) throws IOException {
    Path parent = file.toAbsolutePath().getParent();
    if (parent != null) Files.createDirectories(parent);
    Files.writeString(file, text);
  }

  /** An OutputStream over a PrintWriter (progress goes to picocli's error writer). */
  private static final class WriterStream extends java.io.OutputStream {
    private final PrintWriter w;
    private final java.io.ByteArrayOutputStream line = new java.io.ByteArrayOutputStream();

    WriterStream(PrintWriter w) { this.w = w; }

    @Override
    public synchronized void write(int b) {
      line.write(b);
      if (b == '\n') flush();
    }

    @Override
    public synchronized void flush() {
      w.print(line.toString(StandardCharsets.UTF_8));
      w.flush();
      line.reset();
    }
  }
}
