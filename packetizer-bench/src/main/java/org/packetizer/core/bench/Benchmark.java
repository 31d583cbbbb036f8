package org.packetizer.core.bench;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.packetizer.core.ir.Llvm;
import org.packetizer.core.jit.Jit;
import org.packetizer.core.toolchain.Manifest;

/**
 * The kernel benchmark: for every kernel and target, the scalar loop, the auto-vectorized loop and
 * the loop over the packet function, timed side by side; see {@link BenchReport} for what comes out.
 *
 * <p>With {@link BenchOptions#isolate()} every kernel runs in a child JVM ({@link BenchWorker}), so
 * that generated code which crashes or never returns costs one kernel and target, not the run.
 */
public final class Benchmark {
  /** The packetizer's measurement knobs that reach the worker JVMs (docs/performance.md lists them). */
  private static final java.util.Set<String> WORKER_KNOBS = java.util.Set.of(
      "packetizer.gathers", "packetizer.narrowGathers", "packetizer.laneBlends", "packetizer.sseLaneLoads", "packetizer.expansionBudget", "packetizer.dynamicVariants", "packetizer.dynamicVariants.keepImpossible", "packetizer.dynamicVariants.offsets", "packetizer.dynamicVariants.twoValued", "packetizer.gatherOutsideLoops",
      "packetizer.narrowCompares", "packetizer.maskBitsPhis", "packetizer.vectorCounters", "packetizer.vectorCounters.clamp", "packetizer.narrowCounterCompares",
      "packetizer.allActiveLaneLoads", "packetizer.libmLanes", "packetizer.fmodPow2",
      "packetizer.mathHelpers", "packetizer.mathHelpers.sharedCold", "packetizer.glibcMath", "packetizer.wordGathers", "packetizer.glibcPow", "packetizer.tableLookup", "packetizer.pairedLookups", "packetizer.permuteLookups", "packetizer.permuteLookupEntries", "packetizer.permuteLookupEntries.intel",
      "packetizer.tableLookup.pairs", "packetizer.tableLookup.perCpu",
      "packetizer.helperGuard", "packetizer.helperRangeLanes", "packetizer.byteWindows", "packetizer.byteWindows.laneOrder", "packetizer.byteWindows.slowLanes", "packetizer.byteWindows.inPage", "packetizer.ffm", "packetizer.ffm.after",
      "packetizer.splitLatchExits", "packetizer.loopAlign", "packetizer.optimize", "packetizer.sizeScalarLanes", "packetizer.sizeBudget", "packetizer.sizeLanesResult", "packetizer.sizeLanesArgs", "packetizer.sizeLanesLocals", "packetizer.sizeLanesMasked", "packetizer.exitConstants",
      "packetizer.refill.avx2Ic", "packetizer.mulShifts", "packetizer.latency.perCpu", "packetizer.latency.genericNames", "packetizer.interleaveMath", "packetizer.refill.autoWatch", "packetizer.refill.autoCloseBackoff",
      "packetizer.remarkInstructions", "packetizer.anyLaneBitTest", "packetizer.refill.autoPaired", "packetizer.refill.autoPreferPlain", "packetizer.refill.autoConfirm",
      "packetizer.refill.autoSpread", "packetizer.refill.autoSpreadMemory",
      "packetizer.refill.autoPlainWatch", "packetizer.refill.autoPlainWatchFactor", "packetizer.refill.autoWatchLesser", "packetizer.refill.autoTrials", "packetizer.refill.autoPlainLeap", "packetizer.refill.autoConfirmFirst", "packetizer.refill.autoWatchSpacing", "packetizer.refill.autoWatchMaxLevel", "packetizer.refill.autoTripEstimate", "packetizer.refill.autoLoopShare", "packetizer.driverStackRealign", "packetizer.llvmOptions",
      "packetizer.interleave.minGain", "packetizer.interleave.invariantSpills",
      "packetizer.interleave.outerCounterExits", "packetizer.interleave.sixteenLaneLimit", "packetizer.roundedConversions",
      "packetizer.interleave.straightLine", "packetizer.refill.rvvCompress", "packetizer.cleanupPasses",
      "packetizer.refill.resultAtRound", "packetizer.interleave.portsMachine", "packetizer.refill.index32",
      "packetizer.refill.index32Chunk", "packetizer.memory.rowTranspose", "packetizer.joinMaskShortcut",
      "packetizer.valueNames");

  private Benchmark() {}

  static final ObjectMapper JSON = new ObjectMapper().configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);

  /** Protocol lines of a worker on its standard output. */
  static final String START = "@@start ", RESULT = "@@result ", FAILURE = "@@failure ";

  /** Runs the kernel benchmark; progress goes to {@code log}. */
  public static BenchReport run(BenchOptions options, PrintStream log) {
    Manifest manifest = Manifest.load();
    List<String> kernels = options.resolveKernels(manifest);
    List<KernelResult> results = new ArrayList<>();
    List<KernelFailure> failures = new ArrayList<>();
    List<String> notes = new ArrayList<>();
    List<BenchTarget> runnable = new ArrayList<>();
    for (BenchTarget t : options.targets()) {
      List<String> missing = t.isa().missingOnHost();
      if (missing.isEmpty()) runnable.add(t);
      else notes.add("skipped " + t + ": this host lacks " + String.join(", ", missing));
    }
    notes.forEach(n -> log.println("bench: " + n));
    BenchOptions opt = options.withTargets(runnable.isEmpty() ? options.targets() : runnable);
    long start = System.nanoTime();
    if (!runnable.isEmpty()) {
      KernelBench.Listener sink = new KernelBench.Listener() {
        @Override public void result(KernelResult r) {
          results.add(r);
          log.printf(java.util.Locale.ROOT, "bench: %-12s %-12s scalar %8.2f  autovec %8.2f  packet %8.2f ns/elem  x%.2f%n",
              r.kernel(), r.label(), r.scalarNsPerElem(), r.autovecNsPerElem(), r.packetNsPerElem(), r.speedupVsScalar());
        }

        @Override public void failure(KernelFailure f) {
          failures.add(f);
          log.println("bench: " + f.kernel() + " " + f.label() + ": " + f.stage().toUpperCase(java.util.Locale.ROOT) + ": " + f.message());
        }

        @Override public void log(String message) { log.println("bench: " + message); }
      };
      if (opt.isolate()) {
        for (String k : kernels) runIsolated(opt, k, sink, log);
      } else {
        runInProcess(opt, kernels, sink, log);
      }
    }
    BenchReport.Host host = host();
    if (results.stream().anyMatch(r -> r.width() == 16)) {
      // the W16 goal depends on whether this host's AVX-512 is full width: measured, not looked up
      java.util.Optional<WidthProbe.Result> probe = WidthProbe.run();
      probe.ifPresent(p -> log.println("bench: " + p.describe()));
      host = new BenchReport.Host(host.cpu(), host.cores(), host.java(), host.libmvec(), host.loadAverage(), probe.orElse(null));
    }
    return new BenchReport(opt, host, results, failures, notes, List.of(), (System.nanoTime() - start) / 1e9);
  }

  /** Runs only the packetization-time study ({@link ScalingBench}); the report has no kernel results. */
  public static BenchReport runScaling(BenchOptions options, ScalingBench.Options scaling, PrintStream log) {
    long start = System.nanoTime();
    List<ScalingBench.Point> points = ScalingBench.run(scaling, log);
    return new BenchReport(options, host(), List.of(), List.of(), List.of(), points, (System.nanoTime() - start) / 1e9);
  }

  /** Runs kernels in this JVM (a hang in generated code halts it, see {@link Watchdog}). */
  static void runInProcess(BenchOptions opt, List<String> kernels, KernelBench.Listener sink, PrintStream log) {
    Manifest manifest = Manifest.load();
    try (BenchSources sources = new BenchSources(); Watchdog dog = new Watchdog(log)) {
      KernelBench kb = new KernelBench(manifest, opt, sources, dog, sink);
      for (String k : kernels) kb.run(k);
    }
  }

  /**
   * Runs one kernel in child JVMs: one for all targets, and after a crash or timeout a new one for
   * the targets not yet run.
   */
  static void runIsolated(BenchOptions opt, String kernel, KernelBench.Listener sink, PrintStream log) {
    List<BenchTarget> remaining = new ArrayList<>(opt.targets());
    while (!remaining.isEmpty()) {
      BenchOptions child = opt.withKernels(List.of(kernel)).withTargets(remaining).withIsolate(false);
      Deque<String> lastErr = new ArrayDeque<>();
      BenchTarget[] current = {null};
      List<BenchTarget> done = new ArrayList<>();
      int exit;
      try {
        Process p = new ProcessBuilder(workerCommand()).redirectErrorStream(false).start();
        Thread errPump = Thread.ofVirtual().start(() -> pump(p.getErrorStream(), line -> {
          synchronized (lastErr) {
            if (lastErr.size() >= 12) lastErr.removeFirst();
            lastErr.addLast(line);
          }
          log.println("  [" + kernel + "] " + line);
        }));
        try (OutputStream os = p.getOutputStream()) {
          os.write(JSON.writeValueAsBytes(child));
        }
        Thread outPump = Thread.ofVirtual().start(() -> pump(p.getInputStream(), line -> {
          try {
            if (line.startsWith(START)) {
              current[0] = JSON.readValue(line.substring(START.length()), BenchTarget.class);
            } else if (line.startsWith(RESULT)) {
              sink.result(JSON.readValue(line.substring(RESULT.length()), KernelResult.class));
              done.add(current[0]);
              current[0] = null;
            } else if (line.startsWith(FAILURE)) {
              sink.failure(JSON.readValue(line.substring(FAILURE.length()), KernelFailure.class));
              done.add(current[0]);
              current[0] = null;
            } else if (!line.isBlank()) {
              log.println("  [" + kernel + "] " + line);
            }
          } catch (IOException e) {
            log.println("bench: cannot read the worker's line '" + line + "': " + e.getMessage());
          }
        }));
        long limit = (long) opt.timeoutSeconds() * (remaining.size() + 1);
        if (!p.waitFor(limit, TimeUnit.SECONDS)) {
          p.descendants().forEach(ProcessHandle::destroyForcibly);
          p.destroyForcibly();
          p.waitFor(10, TimeUnit.SECONDS);
        }
        outPump.join();
        errPump.join(5000);
        exit = p.isAlive() ? -1 : p.exitValue();
      } catch (IOException e) {
        throw new UncheckedIOException("cannot start the benchmark worker JVM", e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted", e);
      }
      remaining.removeAll(done);
      if (exit == 0 && current[0] == null) {
        if (!remaining.isEmpty()) {
          for (BenchTarget t : remaining) {
            sink.failure(new KernelFailure(kernel, t.width(), t.isa().name(), "error", "the worker finished without reporting it"));
          }
        }
        return;
      }
      BenchTarget dead = current[0] != null ? current[0] : remaining.isEmpty() ? null : remaining.get(0);
      if (dead == null) return;
      String why;
      synchronized (lastErr) {
        why = String.join(" | ", lastErr);
      }
      String stage = exit == Watchdog.EXIT_TIMEOUT || exit == -1 ? "timeout" : "crash";
      sink.failure(new KernelFailure(kernel, dead.width(), dead.isa().name(), stage,
          (stage.equals("timeout") ? "a loop did not finish (endless loop in generated code?)" : "the worker JVM died (exit status " + exit + ")")
              + (why.isEmpty() ? "" : ": " + why)));
      remaining.remove(dead);
    }
  }

  private static void pump(java.io.InputStream in, java.util.function.Consumer<String> line) {
    try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
      String s;
      while ((s = r.readLine()) != null) line.accept(s);
    } catch (IOException e) {
      // the process died; its exit status tells the rest
    }
  }

  /** The command starting a worker: this JVM's java, class path and native-access flag. */
  static List<String> workerCommand() {
    String java = ProcessHandle.current().info().command()
        .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    List<String> cmd = new ArrayList<>(List.of(java, "--enable-native-access=ALL-UNNAMED", "-Xss8m", "-XX:+UseSerialGC",
        "-cp", System.getProperty("java.class.path")));
    String lib = System.getProperty("java.library.path");
    if (lib != null && !lib.isEmpty()) cmd.add("-Djava.library.path=" + lib);
    // the measurement knobs (packetizer.bench.memory, packetizer.bench.integerMasks, the packetizer's
    // packetizer.gathers) and javacpp's settings reach the workers
    for (String k : System.getProperties().stringPropertyNames()) {
      if (k.startsWith("packetizer.bench.") || k.startsWith("packetizer.refill.") || WORKER_KNOBS.contains(k) || k.startsWith("org.bytedeco.javacpp.")) cmd.add("-D" + k + "=" + System.getProperty(k));
    }
    cmd.add(BenchWorker.class.getName());
    return cmd;
  }

  /** What the report says about the machine. */
  static BenchReport.Host host() {
    return new BenchReport.Host(Llvm.hostCpuName(), Runtime.getRuntime().availableProcessors(), System.getProperty("java.version"),
        Jit.libmvecAvailable(), loadAverage());
  }

  private static double loadAverage() {
    return java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
  }
}
