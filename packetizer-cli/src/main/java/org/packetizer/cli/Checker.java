package org.packetizer.cli;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.packetizer.core.check.CheckResult;
import org.packetizer.core.check.DifferentialCheck;
import org.packetizer.core.ir.LlvmModule;

/**
 * Runs {@code --check}: JIT-compiles the module (a copy) and compares the packet function with the
 * scalar one on generated inputs, under a time limit — generated code that never terminates must
 * not hang the command.
 */
final class Checker {
  private Checker() {}

  /** What came out: a result, or the time limit was hit. */
  record Outcome(CheckResult result, int runs, long nanos, boolean timedOut) {}

  /**
   * @param cpu      JIT for this CPU (null: the host's)
   * @param features with these features (null: "" with a cpu, the host's without)
   */
  static Outcome run(LlvmModule module, String scalar, String simd, int width, CheckPlan plan, int runs, long seed,
      String cpu, String features, int timeoutSeconds, org.packetizer.core.api.PacketizerOptions.VectorMath math) {
    // with libmvec the reference uses the same vector math variants, so the comparison stays bit-exact
    scalar = org.packetizer.core.check.VectorMathReference.referenceFor(module, scalar, width, math);
    DifferentialCheck.Builder b = DifferentialCheck.builder(module, scalar, simd, width).params(plan.specs()).ulps(plan.ulps());
    if (cpu != null || features != null) {
      b.target(cpu != null ? cpu : org.packetizer.core.ir.Llvm.hostCpuName(), features != null ? features : "");
    }
    // Built (and compiled) on this thread: the module's context is only touched here.
    DifferentialCheck check = b.build();
    long start = System.nanoTime();
    CompletableFuture<CheckResult> f = new CompletableFuture<>();
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
      return new Outcome(r, runs, System.nanoTime() - start, false);
    } catch (TimeoutException e) {
      // The runner thread is stuck in native code and cannot be stopped: leave it (a daemon) and
      // its JIT alone; the process ends soon.
      return new Outcome(null, runs, System.nanoTime() - start, true);
    } catch (ExecutionException e) {
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
}
