package org.packetizer.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Stack;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.packetizer.core.api.IntegerMasks;
import org.packetizer.core.api.MemoryStrategy;
import org.packetizer.core.api.ParamKind;
import org.packetizer.core.Packetizer;
import org.packetizer.core.api.PacketizerOptions;
import org.packetizer.core.api.WrapperMode;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code packetize}: whole-function vectorization of LLVM IR from the command line, in the manner of
 * {@code opt}. See {@code packetize --help}; the exit codes are in {@link ExitCodes}.
 */
@Command(
    name = "packetize",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    sortOptions = false,
    usageHelpAutoWidth = true,
    subcommands = {DemoCommand.class, BenchCommand.class},
    headerHeading = "",
    header = "Whole-function vectorization of LLVM IR: turn a scalar function into a packet function that "
        + "computes W calls of it at once, one lane per call.",
    synopsisHeading = "%nUsage: ",
    customSynopsis = {
        "@|bold packetize|@ [OPTIONS] INPUT... [-f SCALAR[:SIMD]]...",
        "       @|bold packetize demo|@ [--kernel NAME | --list]"},
    description = {"",
        "INPUT is LLVM bitcode (.bc) or textual IR (.ll), or - for standard input. The output holds the "
            + "whole module: the original functions and the new packet functions."},
    parameterListHeading = "%nInputs:%n",
    optionListHeading = "%nOptions:%n",
    commandListHeading = "%nCommands:%n",
    footerHeading = "%n",
    footer = {
        "Parameter kinds (--params), one letter group per scalar parameter:",
        "  v    varying: each lane has its own value (T becomes <W x T>)",
        "  u    uniform: one value for all lanes",
        "  l    linear: lane k gets base+k; lN: base+k*N; lnN: base-k*N (pointers: bytes)",
        "  s    pointer to struct-of-arrays data, one object per lane",
        "  aN   suffix: lane 0's value is N-byte aligned (OpenMP aligned), e.g. ua32",
        "  Default: v for scalars, s for pointers (or from a declared SIMD prototype).",
        "",
        "Exit codes:",
        "  0  success",
        "  1  --check found a lane that differs (or checked code crashed or never returned)",
        "  2  usage or input error: missing or invalid file, unknown function, bad option",
        "  3  the function uses a construct the packetizer does not support",
        "  4  internal error (a bug: please report it with the input)",
        "",
        "Examples:",
        "  packetize kernels.bc -f shade                 writes kernels.packet.bc",
        "  packetize k.ll -f mandelbrot --params vvu -S -o -",
        "                                                textual IR on standard output",
        "  packetize k.bc -f f -f g:g_v4 -w 4 --check    two functions, checked",
        "  packetize -j 2 -o out/ a.bc b.bc c.bc -f k    a batch, two at a time",
        "  packetize k.bc -f k -w 32 --wrapper loop      W/N calls of an N-wide function",
        "  packetize k.bc -f f --params v --vector-abi   named _ZGVbN8v_f (SSE module)",
        "  packetize demo                                a tour on a bundled kernel"})
public final class PacketizeCommand implements java.util.concurrent.Callable<Integer> {

  @Spec CommandSpec spec;

  @Parameters(paramLabel = "INPUT", arity = "0..*",
      description = "Input modules (.bc or .ll); - reads standard input.")
  List<String> inputs = new ArrayList<>();

  @Option(names = {"-f", "--function"}, paramLabel = "SCALAR[:SIMD]",
      description = {"Function to packetize (repeatable); SIMD names the new function (default: SCALAR_simdW; with"
          + " --vector-abi its vector-function-ABI name _ZGV...). Without -f: the module's only defined function."})
  List<String> functions = new ArrayList<>();

  @Option(names = {"-w", "--width"}, paramLabel = "W", defaultValue = "8",
      description = "Packet width: lanes per call, a power of two from 2 to " + Packetizer.MAX_WIDTH + " (default: ${DEFAULT-VALUE}).")
  int width;

  @Option(names = "--hardware-width", paramLabel = "N",
      description = "The hardware width N (a power of two dividing W) for --wrapper instead of the one detected from the"
          + " target. Alone it means --wrapper loop: an N-wide function and a W-wide wrapper calling it W/N times on"
          + " slices of the arguments (thesis 4.6). No effect with --wrapper direct.")
  Integer hardwareWidth;

  @Option(names = "--wrapper", paramLabel = "auto|loop|direct",
      description = "How a width W above the hardware width N is served (thesis 4.6): loop: the N-wide function"
          + " SIMD.nN and a W-wide SIMD calling it W/N times; direct: one W-wide function (LLVM splits the vectors);"
          + " auto: loop only where the measurements say it is faster (docs/wrapper.md). N: --hardware-width, else"
          + " detected from the target (--target-cpu, --target-features, the function's attributes, the host). A W"
          + " not above N is always direct. Default: loop with --hardware-width, else auto.")
  String wrapper;

  @Option(names = "--target-triple", paramLabel = "TRIPLE",
      description = "Packetize for another target than the module's (e.g. aarch64-linux-gnu, riscv64-linux-gnu): the module"
          + " gets that triple and data layout and every function --target-cpu/--target-features (a function's own ones"
          + " for another instruction set are dropped) before packetizing. --check then runs the code under qemu-user"
          + " (docs/cross-targets.md).")
  String targetTriple;

  @Option(names = "--vector-bits", paramLabel = "N",
      description = "The SVE or RISC-V V register width in bits (128..2048) for fixed-length code, as clang's"
          + " -msve-vector-bits=N / -mrvv-vector-bits=N: every function gets vscale_range, and the hardware width is N/32"
          + " float lanes. Needs --target-triple (or an AArch64/RISC-V module) and +sve or +v in the features.")
  Integer vectorBits;

  @Option(names = "--target-cpu", paramLabel = "CPU",
      description = "Compile the packet functions for this CPU (e.g. x86-64-v3, znver4); also used by --check and to"
          + " detect the hardware width.")
  String targetCpu;

  @Option(names = "--target-features", paramLabel = "FEATURES",
      description = "Target features for the packet functions (e.g. +avx2,+fma); also used by --check and to detect"
          + " the hardware width.")
  String targetFeatures;

  @Option(names = "--params", paramLabel = "LETTERS",
      description = "Parameter kinds, one letter group per scalar parameter (see below), e.g. vvu. Once for all"
          + " functions, or once per -f in the same order.")
  List<String> params = new ArrayList<>();

  @Option(names = "--masked", description = "Add a trailing <W x i1> mask parameter: inactive lanes do nothing.")
  boolean masked;

  @Option(names = "--vector-abi",
      description = "Publish the packet functions under LLVM's vector function ABI: named _ZGV<isa><N|M><W><params>_SCALAR"
          + " unless -f gives a SIMD name (isa from SCALAR's target-features), and every call of SCALAR in the module"
          + " annotated (vector-function-abi-variant) so that LLVM's loop vectorizer can call it. Pointer parameters"
          + " need --params u, v or l (s has no ABI letter).")
  boolean vectorAbi;

  @Option(names = "--array-driver", paramLabel = "PATTERN", arity = "0..1", fallbackValue = "*_map",
      preprocessor = AttachedOnly.class,
      description = "Also emit, per packet function, a C-callable array driver void NAME(inputs..., OUT *out, size_t n)"
          + " mapping the scalar function over n elements: varying parameters become arrays, uniform ones stay values,"
          + " linear ones give element 0's value; full packets run the packet function, the remainder one masked packet"
          + " (docs/drivers.md). PATTERN names it, * standing for the scalar name (default: *_map; attach it:"
          + " --array-driver=PATTERN).")
  String arrayDriver;

  @Option(names = "--refill", paramLabel = "WHEN", arity = "0..1", fallbackValue = "on", preprocessor = AttachedOnly.class,
      description = "With --array-driver: lane refill (docs/drivers.md). on (the default value): for a function with a loop"
          + " at its top level, lanes that leave the loop finish their element and take the next one while the others keep"
          + " iterating; auto: where the static rule holds (a loop whose trip count differs between lanes holding at least"
          + " half of the instructions with its own counted 8 times, an estimated trip count; an x86 target with AVX2 or AVX-512) a driver that times the plain and the refill body on"
          + " a few chunks and runs the faster until the next such trial, the trials backing off exponentially while the choice"
          + " holds (its state kept between calls in NAME.state); off: the plain driver. A remark reports the decision (attach"
          + " it: --refill=auto).")
  String refill;

  @Option(names = "--refill-batch", paramLabel = "LANES",
      description = "With --refill: leave the loop's iterations to refill lanes once this many are free, 1 to W. Default: on"
          + " AVX-512, AVX2 and SVE of known length a refill round every k iterations, k adapted while running; else W/2"
          + " (docs/drivers.md).")
  Integer refillBatch;

  @Option(names = "--interleave", paramLabel = "IC",
      description = "With --array-driver: the interleave count, IC independent W-lane packets per driver step (IC x W"
          + " elements; docs/drivers.md). auto (the default): 2 where the function's loops are bound by the latency of a"
          + " loop-carried chain and registers allow, else 1, reported as a remark; 1: never; 2 or 4: forced."
          + " With --refill: IC independent refill states per step (auto: up to 4).")
  String interleave;

  @Option(names = "--optimize", paramLabel = "speed|size",
      description = "What the packet function's code is optimized for, as a C compiler's -O2 and -Os. speed (the default):"
          + " the fastest code measured. size: machine code near the scalar function's (at most about 2.5 times): math"
          + " calls that speed turns into the module's bit-exact vector helpers (expf, logf, exp2f, log2f, powf, sinf, cosf"
          + " with --vector-math intrinsics) loop over the lanes calling libm instead (still bit-identical); loads from"
          + " one varying pointer get no dynamic variants; and a function that writes at most its own local variables"
          + " (masked or not) whose packet code would"
          + " still be more than 2.5 times the scalar code (measured by compiling both) becomes a loop over the lanes"
          + " running the scalar code; the measured speed cost: docs/performance.md.")
  String optimize;

  @Option(names = "--header", paramLabel = "FILE",
      description = "With --array-driver: write a C header declaring the drivers (plain C types, no vector types).")
  Path header;
  @Option(names = "--c-abi",
      description = "Publish the packet functions in C's calling convention where LLVM's differs: vector arguments"
          + " and results wider than the target's widest vector register in memory (as clang and GCC pass vector_size"
          + " types; clang callers declare such a result as a one-member struct; on AArch64 (AAPCS64) wider than 16"
          + " bytes by reference, results through x8), the --masked mask as an unsigned"
          + " integer bit mask; LLVM's form stays as SIMD.ir. x86-64 and AArch64. Not with --vector-abi.")
  boolean cAbi;

  @Option(names = "--scalable",
      description = "Scalable packets: the packet function takes <vscale x W x T> values and a <vscale x W x i1>"
          + " predicate (always masked) and computes vscale x W lanes, vscale known only at run time (SVE, RISC-V V)."
          + " With --vector-abi: the SVE variant _ZGVsMx..._F (svbool_t predicate); with --array-driver: a loop under"
          + " whilelt predicates; --check runs it under qemu at several vector lengths. Code that moves data between"
          + " lanes is refused as UNSUPPORTED (docs/cross-targets.md).")
  boolean scalable;

  @Option(names = "--declared-variants",
      description = "Make every vector variant the functions declare: clang -fopenmp-simd records each"
          + " '#pragma omp declare simd' as _ZGV<isa><N|M><W><params>_SCALAR attributes; each variant whose ISA the"
          + " function's target-features support is packetized under that name, at its width, masked where it says M,"
          + " with its parameter shapes, in the x86 vector function ABI's calling convention (GCC's loops call them);"
          + " on AArch64 with +sve the scalable _ZGVsMx variants (as --vector-abi --scalable)."
          + " The names fix width, mask and shapes: -w, --masked and --params are not used. Without -f: every function"
          + " that declares variants.")
  boolean declaredVariants;

  @Option(names = "--memory", paramLabel = "gather|cascade", defaultValue = "gather",
      description = "Accesses through arbitrary per-lane addresses: masked gather/scatter, or W guarded scalar accesses"
          + " (default: ${DEFAULT-VALUE}).")
  String memory;

  @Option(names = "--integer-masks", paramLabel = "auto|always|never", defaultValue = "auto",
      description = "Masks as <W x i32> lanes of all ones or zeros instead of <W x i1>: auto does it on targets without"
          + " AVX-512 mask registers from W=4 (on AVX2 the legalizer would pack every <8 x i1> to 16-bit lanes and back)"
          + " (default: ${DEFAULT-VALUE}).")
  String integerMasks;

  @Option(names = "--vector-math", paramLabel = "intrinsics|libmvec", defaultValue = "libmvec",
      description = "Math calls (sinf, expf, ...): glibc's libmvec where it has a variant for the target (at most 4 ULP"
          + " from libm), SLEEF for lgamma and tgamma (link -lsleef; --check compares against the same variants), or LLVM"
          + " vector intrinsics, which call libm per lane (bit-identical, slower; under a partial mask only the active"
          + " lanes call; a call with the afn flag, as clang writes for -ffast-math, still takes libmvec); in that mode sinf"
          + " and cosf on x86-64 targets with FMA and AVX2 are vector IR of glibc's own algorithm (bit-identical), and so are"
          + " expf, logf, exp2f and log2f on every x86-64 target and powf on those with FMA and AVX2, checked once per process"
          + " against the linked libm. fmod, remainder, fmin, fmax, fdim,"
          + " nextafter, ldexp, scalbn, scalbln, ilogb and logb are exact vector IR either way; every function's route:"
          + " docs/vector-math.md (default: ${DEFAULT-VALUE}).")
  String vectorMath;

  @Option(names = "-o", paramLabel = "FILE",
      description = "Output file; - for standard output; with several inputs an existing directory, or one to create"
          + " written with a trailing '/' (-o out/)."
          + " Default: INPUT with .packet.bc (.packet.ll with -S); standard output for standard input.")
  String output;

  @Option(names = "-S", description = "Write textual IR instead of bitcode.")
  boolean textual;

  @Option(names = {"-j", "--jobs"}, paramLabel = "N", defaultValue = "1",
      description = "Process up to N inputs in parallel (default: ${DEFAULT-VALUE}).")
  int jobs;

  @Option(names = "--check", paramLabel = "N", arity = "0..1", fallbackValue = "100", preprocessor = AttachedOnly.class,
      description = "After packetizing, JIT both functions and compare them lane by lane on N generated inputs"
          + " (default N: 100; write --check=N). Exits 1 on a difference and shows it. The checked code runs in a"
          + " child process: a crash or a hang is reported with the call that was running.")
  Integer check;

  @Option(names = "--range", paramLabel = "[NAME=]LO:HI",
      description = "Input range for --check (repeatable): LO:HI for all scalar parameters, NAME=LO:HI (name or index)"
          + " for one. Bundled kernels bring their own; else [-1000, 1000].")
  List<String> ranges = new ArrayList<>();

  @Option(names = "--buffer", paramLabel = "NAME=TYPE[*COUNT][:DIR]",
      description = "For --check (repeatable): what pointer parameter NAME (name or index) points to: COUNT elements"
          + " of the LLVM type TYPE (default 1; per lane for v and s pointers), DIR in, out or inout (default), e.g."
          + " table=float*16:in. Bundled kernels bring their own.")
  List<String> buffers = new ArrayList<>();

  @Option(names = "--seed", paramLabel = "N", defaultValue = "1", description = "Seed of the --check inputs (default: ${DEFAULT-VALUE}).")
  long seed;

  @Option(names = "--check-timeout", paramLabel = "SECONDS", defaultValue = "60",
      description = "Give up a --check that takes longer (a call that never returns); 0: wait forever (default: ${DEFAULT-VALUE}).")
  int checkTimeout;

  @Option(names = "--dot", paramLabel = "DIR",
      description = "Write Graphviz drawings of the scalar CFG (with the analysis: uniform/varying values, divergent"
          + " branches in red, partial-mask blocks, kept branches, loops) and of the packet CFG into DIR; and .svg"
          + " files when Graphviz's dot is on PATH.")
  Path dot;

  @Option(names = "--remarks", paramLabel = "FILE", arity = "0..1", fallbackValue = "", preprocessor = RemarksValue.class,
      description = "Explain what was done where: one line per remark on stderr, or with --remarks=FILE (or --remarks"
          + " FILE, unless FILE ends in .bc/.ll or is an existing non-YAML file: then it is an input) as YAML"
          + " optimization records (like clang's -fsave-optimization-record).")
  String remarks;

  @Option(names = "--print-shapes", description = "Print the analysis of each function on stderr: every block of the"
      + " prepared scalar copy (full or partial mask, divergent or kept branch, divergent loop) and the shape of every"
      + " named value in it (uniform, consecutive, linear(stride), varying).")
  boolean printShapes;

  @Option(names = "--verify-each", description = "Run the IR verifier after every phase (slower; for bug reports).")
  boolean verifyEach;

  @Option(names = {"-q", "--quiet"}, description = "Only errors and warnings on stderr.")
  boolean quiet;

  @Option(names = "--debug", description = "Show stack traces of errors.")
  boolean debug;

  private final InputStream stdin;
  private final OutputStream stdout;
  private final boolean stdoutIsTerminal;
  private final boolean stderrIsTerminal;

  /** The command on the process's standard streams. */
  public PacketizeCommand() {
    this(System.in, System.out, Terminal.isTerminal(Terminal.STDOUT), Terminal.isTerminal(Terminal.STDERR));
  }

  /** For embedding and tests: where "-" reads from and writes to; whether to draw a progress bar. */
  public PacketizeCommand(InputStream stdin, OutputStream stdout, boolean stdoutIsTerminal, boolean stderrIsTerminal) {
    this.stdin = stdin;
    this.stdout = stdout;
    this.stdoutIsTerminal = stdoutIsTerminal;
    this.stderrIsTerminal = stderrIsTerminal;
  }

  public static void main(String[] args) {
    int code = commandLine(new PacketizeCommand()).execute(args);
    System.out.flush();
    System.err.flush();
    System.exit(code);
  }

  /** A configured picocli command line (error handlers, exit codes) around {@code command}. */
  public static CommandLine commandLine(PacketizeCommand command) {
    CommandLine cl = new CommandLine(command);
    cl.setCaseInsensitiveEnumValuesAllowed(true);
    cl.setParameterExceptionHandler(PacketizeCommand::usageError);
    cl.setExecutionExceptionHandler((e, c, parsed) -> {
      boolean debug = parsed.hasMatchedOption("--debug")
          || (parsed.subcommand() != null && parsed.subcommand().hasMatchedOption("--debug"));
      PrintWriter err = c.getErr();
      if (e instanceof CliException ce) {
        err.println("packetize: error: " + ce.getMessage());
        if (debug) e.printStackTrace(err);
        err.flush();
        return ce.exitCode();
      }
      err.println("packetize: internal error: " + e + (debug ? "" : " (run with --debug for the stack trace; please report it)"));
      if (debug) e.printStackTrace(err);
      err.flush();
      return ExitCodes.INTERNAL;
    });
    cl.setExitCodeExceptionMapper(t -> t instanceof CliException ce ? ce.exitCode() : ExitCodes.INTERNAL);
    return cl;
  }

  private static int usageError(CommandLine.ParameterException e, String[] args) {
    CommandLine cl = e.getCommandLine();
    PrintWriter err = cl.getErr();
    err.println("packetize: error: " + e.getMessage());
    CommandLine.UnmatchedArgumentException.printSuggestions(e, err); // "Did you mean ...?" when it has one
    String name = cl.getCommandSpec().qualifiedName();
    err.println("Try '" + name + " --help' for more information.");
    err.flush();
    return ExitCodes.USAGE_OR_INPUT;
  }

  /**
   * For {@code --check[=N]} and {@code --remarks[=FILE]}: a value counts only when attached with '=',
   * so {@code --check file.bc} checks file.bc rather than reading "file.bc" as N.
   */
  static final class AttachedOnly implements CommandLine.IParameterPreprocessor {
    @Override
    public boolean preprocess(Stack<String> args, CommandSpec commandSpec, ArgSpec argSpec, Map<String, Object> info) {
      if (" ".equals(info.get("separator"))) args.push(fallback(argSpec));
      return false;
    }

    static String fallback(ArgSpec a) {
      return a instanceof CommandLine.Model.OptionSpec o ? o.fallbackValue() : "";
    }
  }

  /**
   * {@code --remarks FILE} (opt's spelling, with a space) means {@code --remarks=FILE} when FILE is not
   * an input: it does not end in .bc or .ll, is not - or an option, and is not an existing file other
   * than a YAML one (so an input is never overwritten with remarks). Otherwise {@code --remarks}
   * alone: remarks on stderr, and the word is an input.
   */
  static final class RemarksValue implements CommandLine.IParameterPreprocessor {
    @Override
    public boolean preprocess(Stack<String> args, CommandSpec commandSpec, ArgSpec argSpec, Map<String, Object> info) {
      if (!" ".equals(info.get("separator"))) return false;
      if (args.isEmpty() || !isRemarksFile(args.peek())) args.push(AttachedOnly.fallback(argSpec));
      return false;
    }

    static boolean isRemarksFile(String word) {
      if (word.isEmpty() || word.startsWith("-")) return false;
      String lower = word.toLowerCase(Locale.ROOT);
      if (lower.endsWith(".bc") || lower.endsWith(".ll")) return false;
      boolean yaml = lower.endsWith(".yaml") || lower.endsWith(".yml");
      try {
        Path p = Path.of(word);
        if (Files.exists(p) && (!yaml || Files.isDirectory(p))) return false;
      } catch (java.nio.file.InvalidPathException e) {
        return false;
      }
      return true;
    }
  }

  // ==== running ====

  @Override
  public Integer call() {
    PrintWriter err = spec.commandLine().getErr();
    Settings settings = settings(err);
    List<InputJob.Input> ins = inputs.stream().map(InputJob.Input::of).toList();
    List<Path> outs = outputs(ins);
    int n = ins.size();
    int threads = Math.max(1, Math.min(jobs, n));
    List<InputJob.Result> results = new ArrayList<>();
    try (Progress progress = new Progress(err, n, stderrIsTerminal && n > 1)) {
      if (threads == 1) {
        for (int i = 0; i < n; i++) {
          String name = ins.get(i).name();
          progress.started(name);
          InputJob.Result r = new InputJob(settings, ins.get(i), outs.get(i), stdin).call();
          progress.completed(name);
          progress.print(r.log());
          results.add(r);
        }
      } else {
        ExecutorService pool = Executors.newFixedThreadPool(threads, r -> Thread.ofPlatform().daemon()
            .name("packetize-job").stackSize(8L << 20).unstarted(r));
        try {
          List<Future<InputJob.Result>> fs = new ArrayList<>();
          for (int i = 0; i < n; i++) {
            InputJob job = new InputJob(settings, ins.get(i), outs.get(i), stdin);
            String name = ins.get(i).name();
            fs.add(pool.submit(() -> {
              progress.started(name);
              try {
                return job.call();
              } finally {
                progress.completed(name);
              }
            }));
          }
          for (Future<InputJob.Result> f : fs) {
            InputJob.Result r = f.get();
            progress.print(r.log()); // in input order, whatever finished first
            results.add(r);
          }
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new CliException(ExitCodes.INTERNAL, "interrupted");
        } catch (java.util.concurrent.ExecutionException e) {
          throw new CliException(ExitCodes.INTERNAL, "internal error: " + e.getCause(), e.getCause());
        } finally {
          pool.shutdown();
        }
      }
    }
    int code = ExitCodes.OK;
    for (InputJob.Result r : results) code = Math.max(code, r.exitCode());
    for (InputJob.Result r : results) {
      if (r.stdout() != null) {
        try {
          stdout.write(r.stdout());
          stdout.flush();
        } catch (IOException e) {
          err.println("packetize: error: cannot write standard output: " + e.getMessage());
          code = Math.max(code, ExitCodes.USAGE_OR_INPUT);
        }
      }
    }
    if (remarks != null && !remarks.isEmpty()) {
      StringBuilder yaml = new StringBuilder();
      for (InputJob.Result r : results) yaml.append(r.yaml());
      try {
        Path file = Path.of(remarks);
        if (file.toAbsolutePath().getParent() != null) Files.createDirectories(file.toAbsolutePath().getParent());
        InputJob.write(file, yaml.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8));
        if (!quiet) err.println("packetize: wrote remarks to " + remarks);
      } catch (IOException e) {
        err.println("packetize: error: cannot write remarks to " + remarks + ": " + e.getMessage());
        code = Math.max(code, ExitCodes.USAGE_OR_INPUT);
      }
    }
    if (n > 1 && !quiet) {
      long failed = results.stream().filter(r -> r.exitCode() != 0).count();
      err.println("packetize: " + n + " inputs, " + (n - failed) + " done" + (failed > 0 ? ", " + failed + " failed" : ""));
    }
    err.flush();
    return code;
  }

  // ==== option checking ====

  private Settings settings(PrintWriter err) {
    if (inputs.isEmpty()) {
      throw CliException.usage("no input files (try 'packetize --help', or 'packetize demo' for a tour)");
    }
    checkWidth("width", width);
    if (hardwareWidth != null) {
      checkWidth("hardware width", hardwareWidth);
      if (hardwareWidth > width || width % hardwareWidth != 0) {
        throw CliException.usage("--hardware-width " + hardwareWidth + " must divide the width " + width);
      }
    }
    WrapperMode wrapperMode = OptionsBridge.wrapperMode(wrapper, hardwareWidth);
    if (wrapperMode == WrapperMode.DIRECT && hardwareWidth != null) {
      err.println("packetize: warning: --hardware-width " + hardwareWidth + " has no effect with --wrapper direct: the"
          + " packet function is " + width + " lanes wide");
    }
    if (jobs < 1) throw CliException.usage("-j needs at least 1 job, got " + jobs);
    if (check != null && check < 1) throw CliException.usage("--check=N needs N >= 1, got " + check);
    if (checkTimeout < 0) throw CliException.usage("--check-timeout must be 0 (no limit) or more seconds");
    List<List<ParamKind>> kinds = new ArrayList<>();
    for (String letters : params) {
      try {
        if (letters.isBlank()) throw new IllegalArgumentException("empty parameter letters");
        kinds.add(ParamKind.parseLetters(letters.strip()));
      } catch (IllegalArgumentException | ArithmeticException e) {
        throw CliException.usage("--params " + letters + ": " + e.getMessage());
      }
    }
    if (kinds.size() > 1 && kinds.size() != functions.size()) {
      throw CliException.usage("--params is given " + kinds.size() + " times for " + functions.size()
          + (functions.size() == 1 ? " function" : " functions") + "; give it once for all, or once per -f");
    }
    MemoryStrategy mem = switch (memory.toLowerCase(Locale.ROOT)) {
      case "gather" -> MemoryStrategy.GATHER;
      case "cascade" -> MemoryStrategy.CASCADE;
      default -> throw CliException.usage("--memory " + memory + ": expected gather or cascade");
    };
    IntegerMasks im = switch (integerMasks.toLowerCase(Locale.ROOT)) {
      case "auto" -> IntegerMasks.AUTO;
      case "always" -> IntegerMasks.ALWAYS;
      case "never" -> IntegerMasks.NEVER;
      default -> throw CliException.usage("--integer-masks " + integerMasks + ": expected auto, always or never");
    };
    PacketizerOptions.VectorMath vm = switch (vectorMath.toLowerCase(Locale.ROOT)) {
      case "intrinsics" -> PacketizerOptions.VectorMath.INTRINSICS;
      case "libmvec" -> PacketizerOptions.VectorMath.LIBMVEC;
      default -> throw CliException.usage("--vector-math " + vectorMath + ": expected intrinsics or libmvec");
    };
    PacketizerOptions.Optimize opt = optimize == null ? null : switch (optimize.toLowerCase(Locale.ROOT)) {
      case "speed" -> PacketizerOptions.Optimize.SPEED;
      case "size" -> PacketizerOptions.Optimize.SIZE;
      default -> throw CliException.usage("--optimize " + optimize + ": expected speed or size");
    };
    List<FunctionSpec> fns = new ArrayList<>();
    Map<String, String> simdNames = new HashMap<>();
    for (String f : functions) {
      FunctionSpec fs;
      try {
        fs = FunctionSpec.parse(f.strip());
      } catch (IllegalArgumentException e) {
        throw CliException.usage("-f " + f + ": " + e.getMessage());
      }
      if (fs.scalar().isEmpty()) throw CliException.usage("-f needs a function name");
      if (vectorAbi && fs.simd() == null) {
        // the name is the ABI's: known only with the module (its ISA letter), but one per scalar function
        if (simdNames.put("\0abi:" + fs.scalar(), fs.scalar()) != null) {
          throw CliException.usage("-f " + f + ": @" + fs.scalar() + " is already published under its vector-function-ABI"
              + " name by an earlier -f; give this one a SIMD name (-f " + fs.scalar() + ":NAME)");
        }
        fns.add(fs);
        continue;
      }
      String simd = fs.simdName(width);
      if (simd.equals(fs.scalar())) throw CliException.usage("-f " + f + ": the SIMD function needs a name other than the scalar one");
      String prev = simdNames.put(simd, fs.scalar());
      if (prev != null) {
        throw CliException.usage("-f " + f + ": @" + simd + " is already the SIMD name of @" + prev);
      }
      fns.add(fs);
    }
    if (header != null && arrayDriver == null) throw CliException.usage("--header needs --array-driver (it declares the drivers)");
    if (header != null && inputs.size() > 1) throw CliException.usage("--header takes one input module (give one per run)");
    if (arrayDriver != null && (arrayDriver.isBlank() || !arrayDriver.matches("[A-Za-z0-9_.$*]+"))) {
      throw CliException.usage("--array-driver=" + arrayDriver + ": expected a function name pattern of letters, digits, _, . and $,"
          + " with * standing for the scalar function's name (e.g. *_map)");
    }
    if (arrayDriver != null && !arrayDriver.contains("*") && fns.size() > 1) {
      throw CliException.usage("--array-driver=" + arrayDriver + " would give the drivers of " + fns.size() + " functions the same"
          + " name; use * for the scalar function's name (e.g. *_map)");
    }
    if ("-".equals(remarks)) {
      throw CliException.usage("--remarks=- is not supported; use --remarks for lines on stderr, or --remarks=FILE");
    }
    CheckPlan.Ranges rs = CheckPlan.Ranges.parse(ranges);
    CheckPlan.Buffers bs = CheckPlan.Buffers.parse(buffers);
    boolean yaml = remarks != null && !remarks.isEmpty();
    if (declaredVariants) {
      for (FunctionSpec fs : fns) {
        if (fs.simd() != null) {
          throw CliException.usage("-f " + fs.scalar() + ":" + fs.simd() + ": with --declared-variants the variants are named"
              + " by their _ZGV names; give -f " + fs.scalar());
        }
      }
      if (masked) throw CliException.usage("--masked does not apply to --declared-variants: M or N in each _ZGV name says it");
      if (!params.isEmpty()) {
        throw CliException.usage("--params does not apply to --declared-variants: each _ZGV name gives the parameter shapes");
      }
    }
    org.packetizer.core.api.Refill refillMode = org.packetizer.core.api.Refill.OFF;
    if (refill != null) {
      refillMode = switch (refill) {
        case "on" -> org.packetizer.core.api.Refill.ON;
        case "auto" -> org.packetizer.core.api.Refill.AUTO;
        case "off" -> org.packetizer.core.api.Refill.OFF;
        default -> throw CliException.usage("--refill=" + refill + ": expected on, auto or off");
      };
      if (arrayDriver == null) throw CliException.usage("--refill needs --array-driver (it changes the driver's loop)");
    }
    if (refillBatch != null) {
      if (refillMode == org.packetizer.core.api.Refill.OFF) {
        throw CliException.usage("--refill-batch needs --refill or --refill=auto (it sets when the refill driver refills lanes)");
      }
      if (refillBatch < 1 || refillBatch > width) {
        throw CliException.usage("--refill-batch=" + refillBatch + ": expected 1 to the width " + width + " (lanes)");
      }
    }
    int interleaveCount = 0;
    if (interleave != null) {
      switch (interleave) {
        case "auto" -> interleaveCount = 0;
        case "1", "2", "4" -> interleaveCount = Integer.parseInt(interleave);
        default -> throw CliException.usage("--interleave=" + interleave + ": expected auto, 1, 2 or 4");
      }
      if (arrayDriver == null) throw CliException.usage("--interleave needs --array-driver (it changes the driver's loop)");
    }
    if (arrayDriver != null && declaredVariants) {
      throw CliException.usage("--array-driver does not combine with --declared-variants (one driver per function: packetize it with -f)");
    }
    if (cAbi && (vectorAbi || declaredVariants)) {
      throw CliException.usage("--c-abi does not combine with " + (vectorAbi ? "--vector-abi" : "--declared-variants")
          + ": the vector function ABI has its own calling convention");
    }
    return new Settings(List.copyOf(fns), width, hardwareWidth, wrapperMode, vectorAbi, declaredVariants, cAbi, scalable, targetTriple, targetCpu, targetFeatures, vectorBits, List.copyOf(kinds), masked, mem, im, vm, verifyEach,
        textual, Optional.ofNullable(check), seed, rs, bs, checkTimeout, dot, inputs.size() > 1, remarks != null, yaml, printShapes, quiet, debug,
        arrayDriver, header, refillMode, refillBatch == null ? 0 : refillBatch, interleaveCount, opt);
  }

  static void checkWidth(String what, int w) {
    if (w >= 2 && w <= Packetizer.MAX_WIDTH && Integer.bitCount(w) == 1) return;
    String why = w == 1 ? "width 1 is the scalar function itself" : w <= 0 ? "it must be positive"
        : w > Packetizer.MAX_WIDTH ? "it is larger than " + Packetizer.MAX_WIDTH : "it is not a power of two";
    throw CliException.usage("invalid " + what + " " + w + ": " + why + "; use a power of two from 2 to " + Packetizer.MAX_WIDTH
        + " (2, 4, 8, 16, ...)");
  }

  /** One output per input: a file, or null for standard output. */
  private List<Path> outputs(List<InputJob.Input> ins) {
    List<Path> outs = new ArrayList<>();
    long stdins = ins.stream().filter(InputJob.Input::isStdin).count();
    if (stdins > 1) throw CliException.usage("standard input (-) can be read only once");
    String ext = textual ? ".packet.ll" : ".packet.bc";
    if (ins.size() == 1) {
      InputJob.Input in = ins.get(0);
      Path out;
      if (output == null) out = in.isStdin() ? null : sibling(in.path(), ext);
      else if (output.equals("-")) out = null;
      else if (Files.isDirectory(Path.of(output))) out = Path.of(output).resolve(InputJob.stem(in) + ext);
      else out = Path.of(output);
      if (out == null && !textual && stdoutIsTerminal) {
        throw CliException.usage("refusing to write bitcode to a terminal; add -S for textual IR, or -o FILE");
      }
      if (out != null && !in.isStdin() && sameFile(out, in.path())) {
        throw CliException.usage("the output " + out + " would overwrite the input; choose another -o");
      }
      outs.add(out);
      return outs;
    }
    if ("-".equals(output)) throw CliException.usage("-o - (standard output) takes one input, got " + ins.size());
    Path dir = null;
    if (output != null) {
      dir = Path.of(output);
      if (Files.exists(dir) && !Files.isDirectory(dir)) {
        throw CliException.usage("with " + ins.size() + " inputs, -o must name a directory; " + output + " is a file");
      }
      boolean slash = output.endsWith("/") || output.endsWith(java.io.File.separator);
      if (!Files.isDirectory(dir) && !slash) {
        // "-o out.bc" with several inputs is a mistake more often than a wish for a directory named out.bc
        throw CliException.usage("with " + ins.size() + " inputs, -o must name an existing directory, or end in '/' to create"
            + " one (-o " + output + "/); " + output + " does not exist");
      }
      try {
        Files.createDirectories(dir);
      } catch (IOException e) {
        throw CliException.usage("cannot create output directory " + output + ": " + e.getMessage());
      }
    }
    Map<Path, String> seen = new HashMap<>();
    for (InputJob.Input in : ins) {
      Path out = in.isStdin() ? (dir == null ? null : dir.resolve("stdin" + ext))
          : dir == null ? sibling(in.path(), ext) : dir.resolve(InputJob.stem(in) + ext);
      if (out == null) throw CliException.usage("standard input among several inputs needs -o DIR");
      String prev = seen.put(out.toAbsolutePath().normalize(), in.name());
      if (prev != null) {
        throw CliException.usage("inputs " + prev + " and " + in.name() + " would both be written to " + out
            + "; process them in separate runs or rename one");
      }
      outs.add(out);
    }
    return outs;
  }

  private static Path sibling(Path in, String ext) {
    String n = in.getFileName().toString();
    for (String e : List.of(".bc", ".ll")) {
      if (n.endsWith(e)) {
        n = n.substring(0, n.length() - e.length());
        break;
      }
    }
    return in.resolveSibling(n + ext);
  }

  private static boolean sameFile(Path a, Path b) {
    try {
      return Files.exists(a) && Files.isSameFile(a, b);
    } catch (IOException e) {
      return false;
    }
  }
}
