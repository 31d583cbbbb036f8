package org.packetizer.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import org.packetizer.core.api.PacketizationException;
import org.packetizer.core.api.PacketizationResult;
import org.packetizer.core.Packetizer;
import org.packetizer.core.api.Remark;
import org.packetizer.core.api.WrapperMode;
import org.packetizer.core.ir.Function;
import org.packetizer.core.ir.IrLoadException;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmException;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.mapping.VectorAbi;
import org.packetizer.core.toolchain.IsolatedLoad;
import org.packetizer.core.toolchain.Manifest;
import org.packetizer.core.wrapper.HardwareWidth;

/**
 * Everything {@code packetize} does for one input file, in its own {@link LlvmContext} (LLVM contexts
 * are single-threaded, so jobs may run in parallel): load, packetize each function, draw, check and
 * write the output. Messages are collected and printed by the command in input order.
 */
final class InputJob implements Callable<InputJob.Result> {

  /** One input: a file, or standard input when {@code path} is null. */
  record Input(String arg, Path path, String name) {
    static Input of(String arg) {
      return arg.equals("-") ? new Input(arg, null, "<stdin>") : new Input(arg, Path.of(arg), arg);
    }

    boolean isStdin() { return path == null; }
  }

  /**
   * @param exitCode  see {@link ExitCodes}
   * @param log       the messages for stderr
   * @param yaml      remarks as YAML documents (with {@code --remarks=FILE})
   * @param stdout    the output module when it goes to standard output, else null
   */
  record Result(int exitCode, String log, String yaml, byte[] stdout) {}

  private final Settings s;
  private final Input input;
  private final Path output; // null: standard output
  private final InputStream stdin;
  private final StringWriter logText = new StringWriter();
  private final PrintWriter log = new PrintWriter(logText);
  private final StringBuilder yaml = new StringBuilder();
  private int exitCode = ExitCodes.OK;
  private byte[] bytes = new byte[0];

  InputJob(Settings settings, Input input, Path output, InputStream stdin) {
    this.s = settings;
    this.input = input;
    this.output = output;
    this.stdin = stdin;
  }

  @Override
  public Result call() {
    byte[] out = null;
    try {
      out = process();
    } catch (CliException e) {
      error(e.getMessage(), e.exitCode(), e);
    } catch (IrLoadException e) {
      loadError(e);
    } catch (RuntimeException | Error e) {
      error("internal error: " + e + (s.debug() ? "" : " (run with --debug for the stack trace; please report it with the input)"),
          ExitCodes.INTERNAL, e);
    }
    log.flush();
    return new Result(exitCode, logText.toString(), yaml.toString(), out);
  }

  private byte[] process() {
    bytes = read();
    // bitcode is read once in a child process first: LLVM's reader crashes on some corrupt files,
    // which in this JVM would end the whole batch (IsolatedLoad)
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = IsolatedLoad.load(ctx, bytes, input.name())) {
      retarget(m);
      List<FunctionSpec> fns = s.declaredVariants() ? declaringFunctions(m) : functions(m);
      List<PacketizationResult> done = new ArrayList<>();
      boolean failed = false;
      for (int fi = 0; fi < fns.size(); fi++) {
        if (s.declaredVariants()) {
          failed |= !declaredVariants(m, fns.get(fi), fi, done);
          continue;
        }
        FunctionSpec f = fns.get(fi);
        String simd = s.simdName(f); // null: the core names it (--vector-abi)
        List<Remark> remarks = new ArrayList<>();
        try {
          Set<String> before = functionNames(m);
          PacketizationResult r = new Packetizer(s.options(fi, remarks::add)).run(m, f.scalar(), simd);
          done.add(r);
          applyTarget(m, before);
          if (!s.quiet()) {
            log.println(input.name() + ": " + describe(r));
            wrapperLine(m, r, before).ifPresent(l -> log.println(input.name() + ":   " + l));
            if (s.vectorAbi()) log.println(input.name() + ":   " + vectorAbiLine(r));
            if (s.cAbi()) {
              r.remarks().stream().filter(rm -> rm.kind() == Remark.Kind.NOTE && rm.message().startsWith("published in the C"))
                  .findFirst().ifPresent(rm -> log.println(input.name() + ":   " + rm.message()));
            }
            r.driver().ifPresent(d -> log.println(input.name() + ":   array driver: " + d.cDeclaration()));
          }
          if (s.vectorAbi()) vectorAbiTargetWarning(m, r);
          raceWarnings(remarks);
          remarks(remarks);
          if (s.printShapes()) log.print(r.shapesDump());
          if (s.remarksYaml()) RemarkYaml.packetized(yaml, input.name(), r);
        } catch (PacketizationException e) {
          remarks(remarks);
          if (s.remarksYaml()) RemarkYaml.failure(yaml, input.name(), f.scalar(), e);
          String hint = e.kind() == PacketizationException.Kind.INTERNAL
              ? "\n  (a bug in the packetizer: please report it with this input" + (s.debug() ? "" : "; --debug shows the stack trace")
                  + ")" : "";
          error(e.getMessage() + hint, exitCodeOf(e), e);
          failed = true;
        }
      }
      if (failed) {
        if (!done.isEmpty()) {
          note("no output written for " + input.name() + ": it is written only when every function packetizes");
        }
        return null;
      }
      if (s.header() != null) writeHeader(done);
      if (s.dotDir() != null) for (PacketizationResult r : done) dot(m, r);
      if (s.checkRuns().isPresent()) {
        for (PacketizationResult r : done) check(bytes, m, r);
      }
      byte[] module = s.textual() ? m.toIr().getBytes(java.nio.charset.StandardCharsets.UTF_8) : m.toBitcode();
      if (output == null) return module;
      try {
        write(output, module);
      } catch (IOException e) {
        throw CliException.usage("cannot write " + output + ": " + e.getMessage());
      }
      if (!s.quiet()) log.println(input.name() + ": wrote " + output);
      return null;
    }
  }

  /**
   * The packet function in LLVM's form: a vector-function-ABI variant whose ABI form differs (ABI
   * masks, results through memory) is a thin function around {@code <name>.ir}, which --check and
   * --dot look at.
   */
  static String llvmForm(LlvmModule m, PacketizationResult r) {
    String ir = r.packetFunction() + VectorAbi.IR_FORM_SUFFIX;
    return m.function(ir).isPresent() ? ir : r.packetFunction();
  }

  /** --declared-variants without -f: every defined function that declares _ZGV variants. */
  private List<FunctionSpec> declaringFunctions(LlvmModule m) {
    if (!s.functions().isEmpty()) return s.functions();
    List<FunctionSpec> out = new ArrayList<>();
    for (Function f : m.functions()) {
      if (!f.isDeclaration() && f.stringAttributes().keySet().stream().anyMatch(k -> k.startsWith("_ZGV"))) {
        out.add(new FunctionSpec(f.name(), null));
      }
    }
    if (out.isEmpty()) {
      throw CliException.usage(input.name() + ": --declared-variants: no function declares vector variants (compile the C"
          + " source with clang -fopenmp-simd and put '#pragma omp declare simd' on the definitions)");
    }
    return out;
  }

  /** Makes the variants @f declares; false when it failed (reported). */
  private boolean declaredVariants(LlvmModule m, FunctionSpec f, int index, List<PacketizationResult> done) {
    List<Remark> remarks = new ArrayList<>();
    Set<String> before = functionNames(m);
    try {
      Optional<Function> scalar = m.function(f.scalar());
      List<String> declared = new ArrayList<>();
      scalar.ifPresent(sf -> {
        for (VectorAbi.Variant v : VectorAbi.declaredVariants(sf)) declared.add(v.mangledName());
        for (VectorAbi.ScalableVariant v : VectorAbi.declaredScalableVariants(sf)) {
          declared.add(v.mangledName());
        }
      });
      List<PacketizationResult> rs = new Packetizer(s.options(index, remarks::add)).runDeclaredVariants(m, f.scalar());
      applyTarget(m, before);
      for (PacketizationResult r : rs) {
        done.add(r);
        if (!s.quiet()) {
          log.println(input.name() + ": " + describe(r));
          log.println(input.name() + ":   " + vectorAbiLine(r));
        }
        if (s.remarksYaml()) RemarkYaml.packetized(yaml, input.name(), r);
      }
      Set<String> made = new HashSet<>();
      for (PacketizationResult r : rs) made.add(r.packetFunction());
      List<String> skipped = new ArrayList<>();
      for (String v : declared) {
        if (!made.contains(v) && !before.contains(v)) skipped.add(v);
      }
      if (declared.isEmpty()) {
        List<String> names = scalar.map(sf -> sf.stringAttributes().keySet().stream().filter(k -> k.startsWith("_ZGV")).sorted()
            .toList()).orElse(List.of());
        warning("--declared-variants: @" + f.scalar() + " declares no vector variant this packetizer can make " + (names.isEmpty()
            ? "(clang records them with -fopenmp-simd and '#pragma omp declare simd' on the definition)"
            : "(it declares " + String.join(", ", names) + "; made are x86 _ZGV[bcde], AArch64 _ZGVn and scalable SVE _ZGVsMx"
            + " variants, not fixed-length SVE ones)"));
      } else if (!skipped.isEmpty() && !s.quiet()) {
        note("@" + f.scalar() + ": not made, the ISA is above @" + f.scalar() + "'s target-features: "
            + String.join(", ", skipped));
      }
      remarks(remarks);
      return true;
    } catch (PacketizationException e) {
      remarks(remarks);
      if (s.remarksYaml()) RemarkYaml.failure(yaml, input.name(), f.scalar(), e);
      String hint = e.kind() == PacketizationException.Kind.INTERNAL
          ? "\n  (a bug in the packetizer: please report it with this input" + (s.debug() ? "" : "; --debug shows the stack trace")
              + ")" : "";
      error(e.getMessage() + hint, exitCodeOf(e), e);
      return false;
    }
  }

  // ---- steps ----

  private void writeHeader(List<PacketizationResult> done) {
    List<PacketizationResult.DriverInfo> drivers = new ArrayList<>();
    for (PacketizationResult r : done) r.driver().ifPresent(drivers::add);
    String guard = "PACKETIZER_" + s.header().getFileName().toString();
    String text = org.packetizer.core.driver.ArrayDriver.header(drivers, guard, input.name());
    try {
      write(s.header(), text.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw CliException.usage("cannot write " + s.header() + ": " + e.getMessage());
    }
    if (!s.quiet()) log.println(input.name() + ": wrote " + s.header() + " (" + drivers.size() + " array driver"
        + (drivers.size() == 1 ? "" : "s") + ")");
  }

  private byte[] read() {
    if (input.isStdin()) {
      try {
        return stdin.readAllBytes();
      } catch (IOException e) {
        throw CliException.usage("cannot read standard input: " + e.getMessage());
      }
    }
    Path p = input.path();
    if (Files.isDirectory(p)) throw CliException.usage(input.name() + ": is a directory, not a .bc or .ll file");
    try {
      return Files.readAllBytes(p);
    } catch (NoSuchFileException e) {
      throw CliException.usage(input.name() + ": no such file");
    } catch (AccessDeniedException e) {
      throw CliException.usage(input.name() + ": permission denied");
    } catch (IOException e) {
      throw CliException.usage(input.name() + ": cannot read: " + e.getMessage());
    }
  }

  private List<FunctionSpec> functions(LlvmModule m) {
    if (!s.functions().isEmpty()) return s.functions();
    List<Function> defined = m.functions().stream().filter(f -> !f.isDeclaration()).toList();
    if (defined.size() == 1) return List.of(new FunctionSpec(defined.get(0).name(), null));
    if (defined.isEmpty()) throw CliException.usage(input.name() + ": the module defines no function to packetize");
    List<String> names = defined.stream().map(f -> "@" + f.name()).toList();
    throw CliException.usage(input.name() + ": which function? the module defines " + names.size() + ": "
        + String.join(", ", names.subList(0, Math.min(10, names.size()))) + (names.size() > 10 ? ", ..." : "")
        + "; name one or more with -f SCALAR[:SIMD]");
  }

  /**
   * --target-cpu / --target-features: the packet function is compiled for that CPU, and so is every
   * other function the packetization defined (the N-wide function of a wrapper, packet versions of
   * callees): they do the work.
   */
  private void applyTarget(LlvmModule m, Set<String> before) {
    if (s.targetCpu() == null && s.targetFeatures() == null) return;
    for (Function f : m.functions()) {
      if (f.isDeclaration() || before.contains(f.name())) continue;
      if (s.targetCpu() != null) f.setStringAttribute("target-cpu", s.targetCpu());
      if (s.targetFeatures() != null) f.setStringAttribute("target-features", s.targetFeatures());
    }
  }

  /** --target-triple / --vector-bits: the module becomes that target's before anything else (TargetSpec). */
  private void retarget(LlvmModule m) {
    if (s.targetTriple() == null && s.vectorBits() == null) return;
    String triple = s.targetTriple() != null ? s.targetTriple() : m.targetTriple();
    if (triple.isEmpty()) {
      throw CliException.usage("--vector-bits is for SVE and RISC-V V: give --target-triple aarch64-linux-gnu or"
          + " riscv64-linux-gnu (" + input.name() + " names no target)");
    }
    try {
      org.packetizer.core.api.TargetSpec.of(triple, s.targetCpu(), s.targetFeatures(), s.vectorBits() == null ? 0 : s.vectorBits())
          .applyTo(m);
    } catch (IllegalArgumentException | LlvmException e) {
      throw CliException.usage("--target-triple " + triple + ": " + e.getMessage());
    }
  }

  private static Set<String> functionNames(LlvmModule m) {
    Set<String> out = new HashSet<>();
    for (Function f : m.functions()) out.add(f.name());
    return out;
  }

  /**
   * What form the packet function took: "wrapper: ..." when the core emitted the N-wide function
   * {@code <simd>.n<N>} and the W-wide wrapper around it (--wrapper loop, or auto where it chose
   * loop); for --wrapper loop without a wrapper, why not. Empty for the direct form otherwise.
   */
  private Optional<String> wrapperLine(LlvmModule m, PacketizationResult r, Set<String> before) {
    String simd = r.packetFunction();
    for (int n = r.width() / 2; n >= 1; n /= 2) {
      String inner = simd + ".n" + n;
      if (!before.contains(inner) && m.function(inner).map(g -> !g.isDeclaration()).orElse(false)) {
        return Optional.of("wrapper: @" + simd + " calls the " + n + "-wide @" + inner + " " + (r.width() / n)
            + " times (" + (s.wrapperMode() == WrapperMode.AUTO ? "--wrapper auto chose loop" : "--wrapper loop") + ")");
      }
    }
    if (s.wrapperMode() != WrapperMode.LOOP) return Optional.empty();
    String n = s.hardwareWidth() != null ? s.hardwareWidth() + " (--hardware-width)"
        : HardwareWidth.resolve(m.function(r.scalarFunction()).orElseThrow(), s.targetCpu(), s.targetFeatures()).width()
            + " (detected)";
    return Optional.of("no wrapper: the width " + r.width() + " is not above the hardware width " + n
        + ", so --wrapper loop emits @" + simd + " directly");
  }

  /** The name the packet function was published under, and what the core said about its call sites. */
  private static String vectorAbiLine(PacketizationResult r) {
    for (Remark rm : r.remarks()) {
      if (rm.kind() == Remark.Kind.NOTE && rm.message().startsWith("published ")
          && rm.message().contains("@" + r.scalarFunction())) {
        return rm.message();
      }
    }
    return "published under the vector function ABI as @" + r.packetFunction();
  }

  /**
   * The ISA letter of the vector-function-ABI variant says how callers pass the vectors (b: 128-bit
   * registers, c/d: 256, e: 512); the core takes it from the scalar function's target-features. When
   * --target-cpu/--target-features compile the packet function for other registers, a caller that
   * follows the variant (LLVM's loop vectorizer, through the annotated call sites) would pass the
   * vectors in other registers than the function reads.
   */
  private void vectorAbiTargetWarning(LlvmModule m, PacketizationResult r) {
    if (s.targetCpu() == null && s.targetFeatures() == null) return;
    Function scalar = m.function(r.scalarFunction()).orElseThrow();
    Function packet = m.function(r.packetFunction()).orElseThrow();
    char isa;
    try {
      isa = VectorAbi.demangle(r.packetFunction()).filter(v -> v.scalarName().equals(r.scalarFunction()))
          .map(VectorAbi.Variant::isa).orElse(VectorAbi.isa(m.targetTriple(), scalar.stringAttribute("target-features").orElse("")));
    } catch (IllegalArgumentException e) {
      return;
    }
    int named = switch (isa) {
      case 'b', 'n' -> HardwareWidth.SSE;
      case 'c', 'd' -> HardwareWidth.AVX;
      default -> HardwareWidth.AVX512;
    };
    int compiled = HardwareWidth.of(m.targetTriple(), packet.stringAttribute("target-cpu").orElse(""),
        packet.stringAttribute("target-features").orElse(""), HardwareWidth.vscaleMin(packet));
    if (compiled != named) {
      warning("--vector-abi: @" + r.packetFunction() + " is compiled for " + (compiled * 32) + "-bit vector registers"
          + " (--target-cpu/--target-features) but its vector-function-ABI ISA letter '" + isa + "', from @"
          + r.scalarFunction() + "'s own target-features, means " + (named * 32) + "-bit ones: callers would pass the"
          + " vectors in other registers than it reads; compile @" + r.scalarFunction() + " for the same target instead");
    }
  }

  /** Cross-lane races are warnings whether or not remarks were asked for (the result may differ from W scalar calls). */
  private void raceWarnings(List<Remark> remarks) {
    for (Remark r : remarks) {
      if (r.kind() != Remark.Kind.CROSS_LANE_RACE) continue;
      warning("in function @" + r.function() + (r.block() == null ? "" : ", block %" + r.block()) + ": " + r.message()
          + (r.instruction() == null ? "" : "\n  at: " + r.instruction().strip()));
    }
  }

  private void remarks(List<Remark> remarks) {
    if (!s.remarks()) return;
    for (Remark r : remarks) {
      if (s.remarksYaml()) RemarkYaml.remark(yaml, input.name(), r);
      else log.println(input.name() + ": remark: " + r.toLine());
    }
  }

  private void dot(LlvmModule m, PacketizationResult r) {
    String prefix = s.prefixDot() ? stem(input) + "." : "";
    try {
      Files.createDirectories(s.dotDir());
      Path scalar = s.dotDir().resolve(prefix + r.scalarFunction() + ".scalar.dot");
      Path packet = s.dotDir().resolve(prefix + r.packetFunction() + ".packet.dot");
      write(scalar, Dot.scalarCfg(r).getBytes(java.nio.charset.StandardCharsets.UTF_8));
      write(packet, Dot.packetCfg(m.function(llvmForm(m, r)).orElseThrow(), r).getBytes(java.nio.charset.StandardCharsets.UTF_8));
      String svg = "";
      Optional<Path> dot = Dot.graphviz();
      if (dot.isPresent()) {
        for (Path p : List.of(scalar, packet)) {
          Optional<String> err = Dot.renderSvg(dot.get(), p);
          if (err.isPresent()) warning("no SVG for " + p + ": " + err.get());
        }
        svg = " (and .svg)";
      }
      if (!s.quiet()) log.println(input.name() + ": wrote " + scalar + " and " + packet + svg);
    } catch (IOException e) {
      throw CliException.usage("cannot write DOT files into " + s.dotDir() + ": " + e.getMessage());
    }
  }

  /** ", under qemu-aarch64 -cpu ..." when --check runs the code emulated (another instruction set's module). */
  private static String emulatedBy(LlvmModule m, PacketizationResult r) {
    if (!HardwareWidth.crossTarget(m.targetTriple())) return "";
    try {
      Optional<Function> packet = m.function(llvmForm(m, r));
      if (packet.isPresent() && Checker.isScalable(packet.get())) {
        boolean riscv = org.packetizer.core.ir.TargetArch.of(m.targetTriple()) == org.packetizer.core.ir.TargetArch.RISCV64;
        String program = riscv ? "qemu-riscv64" : "qemu-aarch64";
        return ", under " + program + (riscv ? " at VLEN " : " at SVE ") + Checker.scalableBits(m.targetTriple())
            .stream().map(String::valueOf).collect(java.util.stream.Collectors.joining(", ")) + " bits"
            + org.packetizer.core.check.QemuInstall.find(program).map(q -> "; QEMU " + q.version() + ", " + q.displayPath()).orElse("");
      }
      Checker.Request probe = new Checker.Request(new byte[0], new byte[0], r.scalarFunction(), llvmForm(m, r), r.width(),
          r.params(), false, null, null, 0, 0, null, null, null);
      return Checker.crossTarget(m, probe).map(t -> ", under " + t.qemu() + " -cpu " + t.qemuCpu()
          + org.packetizer.core.check.QemuInstall.find(t.qemu()).map(q -> "; QEMU " + q.version() + ", " + q.displayPath()).orElse(""))
          .orElse("");
    } catch (RuntimeException e) {
      return "";
    }
  }

  private void check(byte[] bytes, LlvmModule m, PacketizationResult r) {
    Function scalar = m.function(r.scalarFunction()).orElseThrow();
    for (String bad : CheckPlan.unknownNames(s.ranges().byParam().keySet(), scalar)) {
      warning("--range " + bad + "=...: @" + r.scalarFunction() + " has no parameter named or numbered '" + bad + "'");
    }
    for (String bad : CheckPlan.unknownNames(s.buffers().byParam().keySet(), scalar)) {
      warning("--buffer " + bad + "=...: @" + r.scalarFunction() + " has no parameter named or numbered '" + bad + "'");
    }
    Optional<Manifest.Entry> kernel = Kernels.match(bytes, m, scalar);
    // (masked: --masked, or a declared variant named M; the packet function then has a trailing mask parameter)
    boolean masked = m.function(llvmForm(m, r)).map(f -> f.paramCount() == scalar.paramCount() + 1).orElse(s.masked());
    CheckPlan plan = CheckPlan.build(m, scalar, r.params(), masked, r.width(), kernel, s.ranges(), s.buffers());
    int runs = s.checkRuns().orElseThrow();
    // in a child process: a crash or a hang of the checked code must not take this one down
    Checker.Outcome o = Checker.run(new Checker.Request(m.toBitcode(), bytes, r.scalarFunction(), llvmForm(m, r), r.width(),
        r.params(), masked, s.ranges(), s.buffers(), runs, s.seed(), s.targetCpu(), s.targetFeatures(), s.vectorMath()),
        s.checkTimeoutSeconds());
    String what = "@" + r.packetFunction() + " against @" + r.scalarFunction();
    if (o.timedOut()) {
      error("check of " + what + " did not finish within " + s.checkTimeoutSeconds() + " s: a scalar or packet call"
          + " seems not to terminate (give --check-timeout SECONDS to wait longer)"
          + (o.lastCall() != null ? "\n  running: " + o.lastCall() : "") + "\n  inputs: " + plan.description() + "; seed " + s.seed(),
          ExitCodes.CHECK_MISMATCH, null);
      return;
    }
    if (o.crash() != null) {
      error("check of " + what + " crashed (" + o.crash() + "; the check runs in a child process, this one is fine)"
          + (o.lastCall() != null ? "\n  running: " + o.lastCall() : "\n  before the first call of checked code")
          + "\n  inputs: " + plan.description() + "; seed " + s.seed(), ExitCodes.CHECK_MISMATCH, null);
      return;
    }
    var res = o;
    if (res.passed()) {
      if (!s.quiet()) {
        log.printf(Locale.ROOT, "%s: check %s: %d runs, %d lanes, %d bytes compared: all equal%s [%.0f ms%s]%n", input.name(),
            what, o.runs(), res.lanesCompared(), res.bytesCompared(),
            plan.ulps() > 0 ? " (floats within " + plan.ulps() + " ulps)" : "", o.nanos() / 1e6, emulatedBy(m, r));
        log.println(input.name() + ":   inputs: " + plan.description() + "; seed " + s.seed());
      }
    } else {
      StringBuilder msg = new StringBuilder("check failed: @" + r.packetFunction() + " differs from @" + r.scalarFunction()
          + " (");
      if (res.firstDifferingLane() >= 0) msg.append("first differing lane ").append(res.firstDifferingLane()).append("; ");
      msg.append("inputs: ").append(plan.description()).append("; seed ").append(s.seed()).append(")\n  ")
          .append(res.report().replace("\n", "\n  "));
      error(msg.toString(), ExitCodes.CHECK_MISMATCH, null);
    }
  }

  // ---- helpers ----

  static String describe(PacketizationResult r) {
    List<String> parts = new ArrayList<>();
    parts.add(r.linearizedBranches() + (r.linearizedBranches() == 1 ? " branch" : " branches") + " linearized, "
        + r.keptBranches() + " kept");
    long divergentLoops = r.blockInfo().stream().filter(b -> b.loopHeader() && b.divergentLoop()).count();
    long loops = r.blockInfo().stream().filter(PacketizationResult.BlockInfo::loopHeader).count();
    if (loops > 0) parts.add(loops + (loops == 1 ? " loop" : " loops") + " (" + divergentLoops + " divergent)");
    List<String> mem = new ArrayList<>();
    count(mem, r.vectorLoads(), "vector load");
    count(mem, r.vectorStores(), "vector store");
    count(mem, r.gathers(), "gather");
    count(mem, r.scatters(), "scatter");
    count(mem, r.cascades(), "if-cascade");
    count(mem, r.vectorCalls(), "vector call");
    count(mem, r.scalarizedCalls(), "scalarized call");
    if (!mem.isEmpty()) parts.add(String.join(", ", mem));
    parts.add(r.scalarInstructions() + " -> " + r.packetInstructions() + " instructions");
    return String.format(Locale.ROOT, "@%s -> @%s (width %d, params %s): %s [%.0f ms]", r.scalarFunction(),
        r.packetFunction(), r.width(), r.signature().isEmpty() ? "-" : r.signature(), String.join("; ", parts), r.nanos() / 1e6);
  }

  private static void count(List<String> out, int n, String what) {
    if (n > 0) out.add(n + " " + what + (n == 1 ? "" : "s"));
  }

  static int exitCodeOf(PacketizationException e) {
    return switch (e.kind()) {
      case INVALID_INPUT -> ExitCodes.USAGE_OR_INPUT;
      case UNSUPPORTED -> ExitCodes.UNSUPPORTED;
      case INTERNAL -> ExitCodes.INTERNAL;
    };
  }

  private void loadError(IrLoadException e) {
    String msg = e.parserMessage().strip();
    if (LlvmContext.isBitcode(bytes)) {
      log.println("packetize: " + input.name() + ": error: invalid bitcode: " + msg);
    } else if (bytes.length > 0 && input.name().endsWith(".bc")) {
      StringBuilder hex = new StringBuilder();
      for (int i = 0; i < Math.min(4, bytes.length); i++) hex.append(String.format(Locale.ROOT, " %02x", bytes[i] & 0xff));
      log.println("packetize: " + input.name() + ": error: not LLVM bitcode (it starts with" + hex
          + ", not the bitcode magic 42 43 c0 de) and not textual IR either:");
      int nl = msg.indexOf('\n');
      log.println("  " + (nl < 0 ? msg : msg.substring(0, nl)));
    } else if (msg.startsWith(input.name() + ":")) {
      // the textual-IR parser's message already reads "file:line:col: error: ..."
      log.println("packetize: " + msg);
    } else {
      log.println("packetize: " + input.name() + ": error: " + msg);
    }
    exitCode = Math.max(exitCode, ExitCodes.USAGE_OR_INPUT);
    if (s.debug()) e.printStackTrace(log);
  }

  private void error(String msg, int code, Throwable t) {
    String m = msg.startsWith(input.name() + ":") ? msg.substring(input.name().length() + 1).strip() : msg;
    m = m.replace(" in module '" + input.name() + "'", ""); // the line starts with the file already
    log.println("packetize: " + input.name() + ": error: " + m);
    exitCode = Math.max(exitCode, code);
    if (s.debug() && t != null) t.printStackTrace(log);
  }

  private void warning(String msg) { log.println("packetize: " + input.name() + ": warning: " + msg); }

  private void note(String msg) { log.println("packetize: note: " + msg); }

  static String stem(Input in) {
    if (in.isStdin()) return "stdin";
    String n = in.path().getFileName().toString();
    for (String ext : List.of(".bc", ".ll")) if (n.endsWith(ext)) return n.substring(0, n.length() - ext.length());
    return n;
  }

  /**
   * Writes a regular file through a temporary file in the same folder, so a reader never sees half a
   * file; anything else that exists (a device such as /dev/null, a pipe) is written directly, never
   * replaced.
   */
  static void write(Path target, byte[] data) throws IOException {
    if (Files.exists(target) && !Files.isRegularFile(target)) {
      if (Files.isDirectory(target)) throw new IOException(target + " is a directory");
      try (var out = Files.newOutputStream(target)) {
        out.write(data);
      }
      return;
    }
    Path dir = target.toAbsolutePath().getParent();
    // not Files.createTempFile: it creates 0600 files; open(2) with O_CREAT|O_EXCL gives 0666 minus the umask,
    // the mode any tool's output gets
    Path tmp = null;
    java.util.concurrent.ThreadLocalRandom rnd = java.util.concurrent.ThreadLocalRandom.current();
    for (int attempt = 0; tmp == null; attempt++) {
      Path candidate = dir.resolve("." + target.getFileName() + "." + Long.toUnsignedString(rnd.nextLong(), 36) + ".tmp");
      try (var out = Files.newOutputStream(candidate, java.nio.file.StandardOpenOption.CREATE_NEW,
          java.nio.file.StandardOpenOption.WRITE)) {
        tmp = candidate;
        out.write(data);
      } catch (java.nio.file.FileAlreadyExistsException e) {
        if (attempt > 100) throw e;
      }
    }
    try {
      try {
        Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
      } catch (java.nio.file.AtomicMoveNotSupportedException e) {
        Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING);
      }
    } finally {
      Files.deleteIfExists(tmp);
    }
  }
}
