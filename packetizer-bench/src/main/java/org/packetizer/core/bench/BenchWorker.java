package org.packetizer.core.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * The child JVM of an isolated benchmark run: reads {@link BenchOptions} as JSON from standard input,
 * runs its kernels in-process and writes one protocol line per event to standard output (progress
 * goes to standard error).
 */
public final class BenchWorker {
  private BenchWorker() {}

  public static void main(String[] args) throws IOException {
    BenchOptions opt = Benchmark.JSON.readValue(System.in.readAllBytes(), BenchOptions.class);
    PrintStream out = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), true, StandardCharsets.UTF_8);
    PrintStream err = System.err;
    System.setOut(err); // nothing else may write protocol lines
    KernelBench.Listener sink = new KernelBench.Listener() {
      @Override public void started(String kernel, BenchTarget t) { emit(Benchmark.START, t); }

      @Override public void result(KernelResult r) { emit(Benchmark.RESULT, r); }

      @Override public void failure(KernelFailure f) { emit(Benchmark.FAILURE, f); }

      @Override public void log(String message) { err.println(message); }

      private void emit(String prefix, Object o) {
        try {
          out.println(prefix + Benchmark.JSON.writeValueAsString(o));
        } catch (IOException e) {
          throw new java.io.UncheckedIOException(e);
        }
      }
    };
    Benchmark.runInProcess(opt, opt.kernels(), sink, err);
    out.flush();
    System.exit(0);
  }
}
