package org.packetizer.core.reliability;

import static org.junit.jupiter.api.Assertions.*;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.packetizer.core.api.PacketizationException;
import org.packetizer.core.api.PacketizationResult;
import org.packetizer.core.Packetizer;
import org.packetizer.core.api.PacketizerOptions;
import org.packetizer.core.check.CheckResult;
import org.packetizer.core.check.DifferentialCheck;
import org.packetizer.core.check.Inputs;
import org.packetizer.core.check.KernelChecks;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.toolchain.Manifest;

/**
 * Packetizing different modules in different contexts on several threads at once is safe: many
 * threads each load a kernel into their own {@link LlvmContext}, packetize it, JIT it and check it
 * lane by lane (and walk a failure path now and then), all at the same time. Results must equal what
 * the same tasks give one at a time (the packet IR is compared as text).
 *
 * <p>What is shared between threads and why it is safe: LLVM's target initialisation ({@code
 * Llvm.init()}, once, synchronized); the JIT's error-reporter registry (a concurrent map) and its
 * one-time loading of libm/libmvec (a class initialiser); the bundled toolchain's location (a holder
 * class); immutable {@link Packetizer} and options objects. Everything else — context, modules,
 * builders, JITs, checks — belongs to one task. One context (and its modules) must not be used by two
 * threads at once: LLVM's rule, see {@link LlvmContext}.
 */
class ConcurrencyTest {
  static final int THREADS = Integer.getInteger("packetizer.concurrency.threads", 8);
  static final int TASKS_PER_THREAD = Integer.getInteger("packetizer.concurrency.tasks", 20);
  /** Kernels without pointers, cheap to JIT, with loops, math and divergence. */
  static final List<String> KERNELS = List.of("mandelbrot", "julia", "checker", "brick", "bs_call", "noise3");

  record Task(Manifest.Entry kernel, int width, int index) {}

  /** One task; returns the packet function's IR. */
  static String run(Manifest manifest, Task t, boolean check) {
    Manifest.Entry e = t.kernel();
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.load(manifest.bitcode(e), e.bitcode())) {
      String simd = e.function() + "_simd" + t.width();
      if (t.index() % 5 == 0) {
        byte[] before = m.toBitcode();
        PacketizationException x = assertThrows(PacketizationException.class,
            () -> new Packetizer(PacketizerOptions.builder().width(t.width()).params("u".repeat(e.params().size() + 1)).build())
                .run(m, e.function(), simd));
        assertEquals(PacketizationException.Kind.INVALID_INPUT, x.kind());
        assertArrayEquals(before, m.toBitcode());
      }
      PacketizationResult r = new Packetizer(PacketizerOptions.builder().width(t.width()).params(KernelChecks.paramKinds(e))
          .vectorMath(PacketizerOptions.VectorMath.INTRINSICS).build()).run(m, e.function(), simd); // bit-exact checks
      assertTrue(m.verify().isEmpty());
      if (check) {
        try (DifferentialCheck c = KernelChecks.checkBuilder(e, m, simd, t.width()).build()) {
          for (Inputs in : KernelChecks.sampleInputs(e, t.width())) {
            CheckResult res = c.run(in);
            assertTrue(res.passed(), () -> e.name() + " W=" + t.width() + ":\n" + res.report());
          }
          CheckResult res = c.runMany(3, t.index());
          assertTrue(res.passed(), () -> e.name() + " W=" + t.width() + ":\n" + res.report());
        }
      }
      return m.function(r.packetFunction()).orElseThrow().print();
    }
  }

  @Test
  void manyThreadsEachWithTheirOwnContext() throws Exception {
    Manifest manifest = Manifest.load();
    List<Manifest.Entry> kernels = new ArrayList<>();
    for (String n : KERNELS) kernels.add(manifest.require(n));
    int[] widths = {4, 8, 16};

    // the reference: each (kernel, width) once, on this thread, without checks
    List<List<String>> expected = new ArrayList<>();
    for (Manifest.Entry e : kernels) {
      List<String> row = new ArrayList<>();
      for (int w : widths) row.add(run(manifest, new Task(e, w, 1), false));
      expected.add(row);
    }

    ExecutorService pool = Executors.newFixedThreadPool(THREADS);
    CountDownLatch start = new CountDownLatch(1);
    AtomicInteger done = new AtomicInteger();
    ConcurrentLinkedQueue<String> threadsSeen = new ConcurrentLinkedQueue<>();
    List<Future<?>> futures = new ArrayList<>();
    long t0 = System.nanoTime();
    try {
      for (int th = 0; th < THREADS; th++) {
        int thread = th;
        futures.add(pool.submit(() -> {
          start.await(); // all threads start together
          threadsSeen.add(Thread.currentThread().getName());
          for (int k = 0; k < TASKS_PER_THREAD; k++) {
            int i = thread * TASKS_PER_THREAD + k;
            int ki = (thread + k) % kernels.size();
            int wi = (thread + 2 * k) % widths.length;
            // JIT and check every other task: packetization is where most shared LLVM state is touched
            String ir = run(manifest, new Task(kernels.get(ki), widths[wi], i), k % 2 == 0);
            assertEquals(expected.get(ki).get(wi), ir, () -> "thread " + thread + " task " + i + ": different packet IR");
            done.incrementAndGet();
          }
          return null;
        }));
      }
      start.countDown();
      for (Future<?> f : futures) f.get(10, TimeUnit.MINUTES);
    } finally {
      pool.shutdownNow();
      assertTrue(pool.awaitTermination(1, TimeUnit.MINUTES));
    }
    assertEquals(THREADS * TASKS_PER_THREAD, done.get());
    assertEquals(THREADS, threadsSeen.size());
    System.out.printf("concurrency: %d threads x %d tasks (packetize, every other one JIT + differential check): %.1f s%n",
        THREADS, TASKS_PER_THREAD, (System.nanoTime() - t0) / 1e9);
  }
}
