package org.packetizer.cli;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.packetizer.core.api.PacketizerOptions;
import org.packetizer.core.api.ParamKind;
import org.packetizer.core.check.CheckResult;
import org.packetizer.core.check.DifferentialCheck;
import org.packetizer.core.ir.Function;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmException;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.toolchain.Manifest;

/**
 * Runs {@code --check}: JIT-compiles the packetized module and compares the packet function with the
 * scalar one on generated inputs — in a CHILD PROCESS ({@link CheckChild}). The checked code is the
 * user's (and ours): it may segfault (a wild pointer, an input the function was never meant for), abort
 * (LLVM's code generator on a construct it cannot lower) or never return. Any of these would take this
 * JVM down or hang it; in a child they become a clear error naming the call that was running — which
 * function, which lane, which inputs — and no {@code hs_err} file is left behind (the child writes it
 * into a temporary folder that is removed, after the signal is read from it).
 *
 * <p>The time limit counts from the first call of checked code (JVM start-up and JIT compilation are
 * not counted, up to {@link #STARTUP_LIMIT_SECONDS}).
 */
final class Checker {
  private Checker() {}

  /** Longest the child may take to start and compile before the first call of checked code. */
  static final int STARTUP_LIMIT_SECONDS = 300;

  /** What the check needs; the child rebuilds the module and the check plan from it. */
  record Request(byte[] module, byte[] input, String scalar, String simd, int width, List<ParamKind> kinds, boolean masked,
      CheckPlan.Ranges ranges, CheckPlan.Buffers buffers, int runs, long seed, String cpu, String features,
      PacketizerOptions.VectorMath math) {}

  /**
   * What came out. {@code crash} is set when the checked code crashed the child (signal and last
   * call); {@code timedOut} when it did not finish in time ({@code lastCall}: what was running).
   */
  record Outcome(boolean passed, int lanesCompared, long bytesCompared, int firstDifferingLane, String report, int runs,
      long nanos, boolean timedOut, String crash, String lastCall) {
    static Outcome of(CheckResult r, int runs, long nanos) {
      return new Outcome(r.passed(), r.lanesCompared(), r.bytesCompared(), r.firstDifferingLane(), r.report(), runs, nanos,
          false, null, null);
    }
  }

  // ==== the parent side ====

  /** Runs the check in a child JVM; {@code timeoutSeconds} 0 waits forever. */
  static Outcome run(Request req, int timeoutSeconds) {
    Path dir = null;
    try {
      dir = Files.createTempDirectory("packetize-check-");
      Path request = dir.resolve("request.bin");
      Path result = dir.resolve("result.bin");
      Path progress = dir.resolve("progress.txt");
      Path log = dir.resolve("child.log");
      writeRequest(req, request);
      List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
          "--enable-native-access=ALL-UNNAMED", "-Xss8m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
          "-XX:ErrorFile=" + dir.resolve("hs_err_pid%p.log"), "-XX:ReplayDataFile=" + dir.resolve("replay_pid%p.log"),
          "-XX:-CreateCoredumpOnCrash", "-Dorg.bytedeco.javacpp.maxPhysicalBytes=0",
          "-cp", System.getProperty("java.class.path"), CheckChild.class.getName(),
          request.toString(), result.toString(), progress.toString()));
      ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile());
      long start = System.nanoTime();
      Process p = pb.start();
      long firstCall = -1;
      boolean timedOut = false;
      try {
        while (!p.waitFor(20, TimeUnit.MILLISECONDS)) {
          long now = System.nanoTime();
          if (firstCall < 0 && Files.exists(progress) && Files.size(progress) > 0) firstCall = now;
          long limit = firstCall < 0 ? TimeUnit.SECONDS.toNanos(STARTUP_LIMIT_SECONDS) : TimeUnit.SECONDS.toNanos(timeoutSeconds);
          long since = firstCall < 0 ? start : firstCall;
          if ((firstCall < 0 || timeoutSeconds > 0) && now - since > limit) {
            timedOut = true;
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
            p.waitFor();
            break;
          }
        }
      } catch (InterruptedException e) {
        p.destroyForcibly();
        Thread.currentThread().interrupt();
        throw new CliException(ExitCodes.INTERNAL, "interrupted while checking @" + req.simd());
      }
      long nanos = System.nanoTime() - (firstCall > 0 ? firstCall : start);
      String last = lastCall(progress);
      if (timedOut) return new Outcome(false, 0, 0, -1, "", req.runs(), nanos, true, null, last);
      int code = p.exitValue();
      if (code == 0 && Files.exists(result)) {
        Outcome o = readResult(result, req, nanos);
        if (o.crash() == null) return o;
        return new Outcome(false, 0, 0, -1, "", req.runs(), nanos, false, o.crash(), last);
      }
      return new Outcome(false, 0, 0, -1, "", req.runs(), nanos, false, describeCrash(dir, log, code), last);
    } catch (IOException e) {
      throw new CliException(ExitCodes.INTERNAL, "cannot run the check of @" + req.simd() + " in a child process: " + e.getMessage());
    } finally {
      if (dir != null) deleteRecursively(dir);
    }
  }

  private static final Pattern SIGNAL = Pattern.compile("#\\s+(SIG[A-Z]+) \\((0x[0-9a-f]+)\\) at pc=(0x[0-9a-f]+)");

  /** What killed the child: the signal from its hs_err file, LLVM's fatal error message, or its exit code. */
  static String describeCrash(Path dir, Path log, int code) throws IOException {
    List<String> out = new ArrayList<>();
    try (Stream<Path> s = Files.list(dir)) {
      for (Path f : s.filter(x -> x.getFileName().toString().startsWith("hs_err")).toList()) {
        for (String line : Files.readAllLines(f, StandardCharsets.ISO_8859_1)) {
          Matcher m = SIGNAL.matcher(line);
          if (m.find()) {
            out.add(m.group(1) + " at pc=" + m.group(3));
            break;
          }
        }
        for (String line : Files.readAllLines(f, StandardCharsets.ISO_8859_1)) {
          if (line.startsWith("# C  [") || line.startsWith("# J ")) {
            out.add("in " + line.substring(2).strip());
            break;
          }
        }
      }
    }
    if (Files.exists(log)) {
      for (String line : Files.readAllLines(log, StandardCharsets.ISO_8859_1)) {
        if (line.startsWith("LLVM ERROR") || line.contains("Assertion") || line.startsWith("Exception in thread")
            || line.startsWith("packetize-check:")) {
          out.add(line.strip());
        }
      }
    }
    if (out.isEmpty()) {
      out.add(code > 128 ? "killed by signal " + (code - 128) + signalName(code - 128) : "exit code " + code);
    }
    return String.join("; ", out);
  }

  private static String signalName(int sig) {
    return switch (sig) {
      case 4 -> " (SIGILL)";
      case 6 -> " (SIGABRT)";
      case 7 -> " (SIGBUS)";
      case 8 -> " (SIGFPE)";
      case 9 -> " (SIGKILL)";
      case 11 -> " (SIGSEGV)";
      default -> "";
    };
  }

  private static String lastCall(Path progress) {
    try {
      if (!Files.exists(progress)) return null;
      String s = Files.readString(progress, StandardCharsets.UTF_8).strip();
      return s.isEmpty() ? null : s;
    } catch (IOException e) {
      return null;
    }
  }

  private static void deleteRecursively(Path dir) {
    try (Stream<Path> s = Files.walk(dir)) {
      s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException ignored) {
      // a temporary folder
    }
  }

  // ==== the protocol (request and result files) ====

  private static void writeString(DataOutputStream o, String s) throws IOException {
    o.writeBoolean(s != null);
    if (s != null) {
      byte[] b = s.getBytes(StandardCharsets.UTF_8);
      o.writeInt(b.length);
      o.write(b);
    }
  }

  private static String readString(DataInputStream in) throws IOException {
    if (!in.readBoolean()) return null;
    byte[] b = new byte[in.readInt()];
    in.readFully(b);
    return new String(b, StandardCharsets.UTF_8);
  }

  private static void writeBytes(DataOutputStream o, byte[] b) throws IOException {
    o.writeInt(b.length);
    o.write(b);
  }

  private static byte[] readBytes(DataInputStream in) throws IOException {
    byte[] b = new byte[in.readInt()];
    in.readFully(b);
    return b;
  }

  private static void writeStrings(DataOutputStream o, List<String> l) throws IOException {
    o.writeInt(l.size());
    for (String s : l) writeString(o, s);
  }

  private static List<String> readStrings(DataInputStream in) throws IOException {
    int n = in.readInt();
    List<String> l = new ArrayList<>();
    for (int i = 0; i < n; i++) l.add(readString(in));
    return l;
  }

  /** The --range arguments that parse back into {@code r}. */
  static List<String> rangeArgs(CheckPlan.Ranges r) {
    List<String> out = new ArrayList<>();
    r.all().ifPresent(b -> out.add(b[0] + ":" + b[1]));
    for (Map.Entry<String, double[]> e : r.byParam().entrySet()) out.add(e.getKey() + "=" + e.getValue()[0] + ":" + e.getValue()[1]);
    return out;
  }

  static void writeRequest(Request r, Path file) throws IOException {
    try (DataOutputStream o = new DataOutputStream(new java.io.BufferedOutputStream(Files.newOutputStream(file)))) {
      writeBytes(o, r.module());
      writeBytes(o, r.input());
      writeString(o, r.scalar());
      writeString(o, r.simd());
      o.writeInt(r.width());
      StringBuilder kinds = new StringBuilder();
      for (ParamKind k : r.kinds()) kinds.append(k.letters());
      writeString(o, kinds.toString());
      o.writeBoolean(r.masked());
      writeStrings(o, rangeArgs(r.ranges()));
      List<String> buffers = new ArrayList<>();
      for (CheckPlan.Buffers.Buffer b : r.buffers().byParam().values()) buffers.add(b.text());
      writeStrings(o, buffers);
      o.writeInt(r.runs());
      o.writeLong(r.seed());
      writeString(o, r.cpu());
      writeString(o, r.features());
      writeString(o, r.math().name());
    }
  }

  static Request readRequest(Path file) throws IOException {
    try (DataInputStream in = new DataInputStream(new java.io.BufferedInputStream(Files.newInputStream(file)))) {
      byte[] module = readBytes(in);
      byte[] input = readBytes(in);
      String scalar = readString(in);
      String simd = readString(in);
      int width = in.readInt();
      List<ParamKind> kinds = ParamKind.parseLetters(readString(in));
      boolean masked = in.readBoolean();
      CheckPlan.Ranges ranges = CheckPlan.Ranges.parse(readStrings(in));
      CheckPlan.Buffers buffers = CheckPlan.Buffers.parse(readStrings(in));
      int runs = in.readInt();
      long seed = in.readLong();
      String cpu = readString(in);
      String features = readString(in);
      PacketizerOptions.VectorMath math = PacketizerOptions.VectorMath.valueOf(readString(in));
      return new Request(module, input, scalar, simd, width, kinds, masked, ranges, buffers, runs, seed, cpu, features, math);
    }
  }

  /** Result file: a status ("ok", "usage", "error") and the outcome or the message. */
  static void writeResult(Path file, String status, Outcome o, String message) throws IOException {
    try (DataOutputStream out = new DataOutputStream(new java.io.BufferedOutputStream(Files.newOutputStream(file)))) {
      writeString(out, status);
      if (o != null) {
        out.writeBoolean(o.passed());
        out.writeInt(o.lanesCompared());
        out.writeLong(o.bytesCompared());
        out.writeInt(o.firstDifferingLane());
        writeString(out, o.report());
      } else {
        writeString(out, message);
      }
    }
  }

  private static Outcome readResult(Path file, Request req, long nanos) throws IOException {
    try (DataInputStream in = new DataInputStream(new java.io.BufferedInputStream(Files.newInputStream(file)))) {
      String status = readString(in);
      if ("crash".equals(status)) {
        // under qemu: the emulated process died (the message names the signal); this child is fine
        return new Outcome(false, 0, 0, -1, "", req.runs(), nanos, false, readString(in), null);
      }
      if (!"ok".equals(status)) {
        String msg = readString(in);
        if ("usage".equals(status)) throw CliException.usage("cannot check @" + req.simd() + ": " + msg);
        throw new CliException(ExitCodes.INTERNAL, "internal error while checking @" + req.simd() + ": " + msg);
      }
      boolean passed = in.readBoolean();
      int lanes = in.readInt();
      long bytes = in.readLong();
      int first = in.readInt();
      String report = readString(in);
      return new Outcome(passed, lanes, bytes, first, report, req.runs(), nanos, false, null, null);
    }
  }

  /**
   * The check in this process, on a thread with a time limit: for the demo's bundled kernels only
   * (code of this project, with inputs from their manifest); user code goes through {@link #run}.
   */
  static Outcome runInProcess(LlvmModule module, String scalar, String simd, int width, CheckPlan plan, int runs, long seed,
      int timeoutSeconds, PacketizerOptions.VectorMath math) {
    scalar = org.packetizer.core.check.VectorMathReference.referenceFor(module, scalar, simd, width, math);
    DifferentialCheck check = DifferentialCheck.builder(module, scalar, simd, width).params(plan.specs()).ulps(plan.ulps()).build();
    long start = System.nanoTime();
    java.util.concurrent.CompletableFuture<CheckResult> f = new java.util.concurrent.CompletableFuture<>();
    Thread.ofPlatform().daemon().name("packetize-check-" + simd).stackSize(8L << 20).start(() -> {
      try {
        f.complete(check.runMany(runs, seed));
      } catch (Throwable e) {
        f.completeExceptionally(e);
      }
    });
    try {
      CheckResult r = timeoutSeconds > 0 ? f.get(timeoutSeconds, TimeUnit.SECONDS) : f.get();
      check.close();
      return Outcome.of(r, runs, System.nanoTime() - start);
    } catch (java.util.concurrent.TimeoutException e) {
      // the runner thread is stuck in native code and cannot be stopped: leave it (a daemon) and its JIT
      return new Outcome(false, 0, 0, -1, "", runs, System.nanoTime() - start, true, null, null);
    } catch (java.util.concurrent.ExecutionException e) {
      check.close();
      Throwable c = e.getCause();
      if (c instanceof RuntimeException re) throw re;
      if (c instanceof Error er) throw er;
      throw new IllegalStateException(c);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new CliException(ExitCodes.INTERNAL, "interrupted while checking @" + simd);
    }
  }

  // ==== the child side ====

  /** The check itself, in this process (the child's work); {@code progress} hears of every native call. */
  static Outcome runHere(Request req, Consumer<String> progress) {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.load(req.module(), "checked module")) {
      Function scalar = m.function(req.scalar()).orElseThrow(() -> new IllegalArgumentException("no @" + req.scalar()));
      Optional<Manifest.Entry> kernel = Kernels.match(req.input(), m, scalar);
      Function packetFn = m.function(req.simd()).orElseThrow(() -> new IllegalArgumentException("no @" + req.simd()));
      if (isScalable(packetFn)) return runScalable(req, m, scalar, kernel, progress);
      CheckPlan plan = CheckPlan.build(m, scalar, req.kinds(), req.masked(), req.width(), kernel, req.ranges(), req.buffers());
      // with libmvec the reference uses the same vector math variants, so the comparison stays bit-exact
      String ref = org.packetizer.core.check.VectorMathReference.referenceFor(m, req.scalar(), req.simd(), req.width(), req.math());
      DifferentialCheck.Builder b = DifferentialCheck.builder(m, ref, req.simd(), req.width()).params(plan.specs()).ulps(plan.ulps())
          .progress(progress);
      Optional<org.packetizer.core.check.CrossTarget> cross = crossTarget(m, req);
      if (cross.isPresent()) {
        // the module is another instruction set's (--target-triple, or its own triple): run both functions under qemu
        b.crossTarget(cross.get());
      } else if (req.cpu() != null || req.features() != null) {
        b.target(req.cpu() != null ? req.cpu() : org.packetizer.core.ir.Llvm.hostCpuName(), req.features() != null ? req.features() : "");
      }
      long start = System.nanoTime();
      try (DifferentialCheck check = b.build()) {
        CheckResult r = check.runMany(req.runs(), req.seed());
        return Outcome.of(r, req.runs(), System.nanoTime() - start);
      }
    }
  }

  static boolean isScalable(Function packet) {
    if (packet.returnType().toString().startsWith("<vscale x ")) return true;
    for (org.packetizer.core.ir.Type t : packet.functionType().paramTypes()) if (t.toString().startsWith("<vscale x ")) return true;
    return false;
  }

  /**
   * The register widths a scalable packet function is checked at: SVE 128, 256 and 512 bits (vscale 1,
   * 2, 4), RISC-V V VLEN 128 and 256 (vscale 2, 4).
   */
  static List<Integer> scalableBits(String triple) {
    return org.packetizer.core.ir.TargetArch.of(triple) == org.packetizer.core.ir.TargetArch.RISCV64 ? List.of(128, 256)
        : List.of(128, 256, 512);
  }

  /**
   * A scalable packet function ({@code --scalable}): checked under qemu at each of {@link
   * #scalableBits} through a fixed-width shim ({@link org.packetizer.core.check.ScalableShim}: the
   * shim's N = vscale × W lanes against N scalar calls); the first difference or crash ends it.
   */
  private static Outcome runScalable(Request req, LlvmModule m, Function scalar, Optional<Manifest.Entry> kernel,
      Consumer<String> progress) {
    String triple = m.targetTriple();
    if (!org.packetizer.core.wrapper.HardwareWidth.crossTarget(triple)) {
      throw new IllegalArgumentException("--check runs scalable packet functions under qemu only (AArch64 with SVE, RISC-V"
          + " V); the module's target is " + triple);
    }
    Function packet = m.function(req.simd()).orElseThrow();
    String cpu = packet.stringAttribute("target-cpu").orElse("");
    String features = packet.stringAttribute("target-features").orElse("");
    boolean riscv = org.packetizer.core.ir.TargetArch.of(triple) == org.packetizer.core.ir.TargetArch.RISCV64;
    long lanes = 0;
    long bytes = 0;
    long nanos = 0;
    int runs = 0;
    for (int bits : scalableBits(triple)) {
      int vscale = bits / (riscv ? 64 : 128);
      String shim = req.simd() + ".shim" + bits;
      int n = org.packetizer.core.check.ScalableShim.build(m, req.simd(), shim, req.width(), vscale);
      CheckPlan plan = CheckPlan.build(m, scalar, req.kinds(), true, n, kernel, req.ranges(), req.buffers());
      org.packetizer.core.check.CrossTarget t = org.packetizer.core.check.CrossTarget.forSpec(
          new org.packetizer.core.api.TargetSpec(triple, cpu, features, bits)).orElseThrow(() -> new IllegalArgumentException(
              "--check cannot run code for " + triple + " here"));
      // the packet function stays vector-length agnostic (no vscale_range); qemu runs it at this length
      org.packetizer.core.check.CrossTarget agnostic = new org.packetizer.core.check.CrossTarget(t.name(),
          new org.packetizer.core.api.TargetSpec(triple, cpu, features, 0), t.qemu(), t.qemuCpu(), t.sysroot(), t.gcc(),
          t.clangTarget());
      DifferentialCheck.Builder b = DifferentialCheck.builder(m, req.scalar(), shim, n).params(plan.specs()).ulps(plan.ulps())
          .progress(progress).crossTarget(agnostic);
      long start = System.nanoTime();
      try (DifferentialCheck check = b.build()) {
        CheckResult r = check.runMany(req.runs(), req.seed());
        Outcome o = Outcome.of(r, req.runs(), System.nanoTime() - start);
        if (!o.passed()) {
          return new Outcome(false, o.lanesCompared(), o.bytesCompared(), o.firstDifferingLane(), "at " + bits + "-bit vectors ("
              + n + " lanes, qemu -cpu " + t.qemuCpu() + "):\n" + o.report(), o.runs(), o.nanos(), false, null, null);
        }
        lanes += o.lanesCompared();
        bytes += o.bytesCompared();
        nanos += o.nanos();
        runs += o.runs();
      }
    }
    return new Outcome(true, (int) lanes, bytes, -1, "", runs, nanos, false, null, null);
  }

  /**
   * The emulated target for a module of another instruction set family than the host's: triple from
   * the module; CPU and features from the packet function's attributes (what it was compiled for);
   * the SVE / RISC-V V register width from its {@code vscale_range}. Empty for host code.
   */
  static Optional<org.packetizer.core.check.CrossTarget> crossTarget(LlvmModule m, Request req) {
    String triple = m.targetTriple();
    if (!org.packetizer.core.wrapper.HardwareWidth.crossTarget(triple)) return Optional.empty();
    Function packet = m.function(req.simd()).orElseThrow(() -> new IllegalArgumentException("no @" + req.simd()));
    String cpu = packet.stringAttribute("target-cpu").orElse("");
    String features = packet.stringAttribute("target-features").orElse("");
    long vscale = org.packetizer.core.wrapper.HardwareWidth.vscaleMin(packet);
    boolean riscv = org.packetizer.core.ir.TargetArch.of(triple) == org.packetizer.core.ir.TargetArch.RISCV64;
    int bits = vscale <= 0 ? 0 : (int) (vscale * (riscv ? 64 : 128));
    if (!riscv && !features.contains("+sve")) bits = 0;
    org.packetizer.core.api.TargetSpec spec = new org.packetizer.core.api.TargetSpec(triple, cpu, features, bits);
    return Optional.of(org.packetizer.core.check.CrossTarget.forSpec(spec).orElseThrow(() -> new IllegalArgumentException(
        "--check cannot run code for " + triple + " here: only AArch64 and RISC-V 64 run under qemu-user")));
  }

  /** Progress into a file, overwritten per call (what was running when the child died). */
  static final class ProgressFile implements Consumer<String>, AutoCloseable {
    private final RandomAccessFile f;

    ProgressFile(Path p) throws IOException {
      f = new RandomAccessFile(p.toFile(), "rw");
    }

    @Override public void accept(String s) {
      try {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        f.seek(0);
        f.write(b);
        f.setLength(b.length);
      } catch (IOException ignored) {
        // progress is best effort
      }
    }

    @Override public void close() throws IOException { f.close(); }
  }

  static boolean isUsageError(RuntimeException e) {
    return e instanceof IllegalArgumentException || e instanceof LlvmException || e instanceof CliException;
  }
}
