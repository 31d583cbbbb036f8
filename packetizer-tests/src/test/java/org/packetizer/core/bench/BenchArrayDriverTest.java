package org.packetizer.core.bench;

import static org.junit.jupiter.api.Assertions.*;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.packetizer.core.api.PacketizerOptions;
import org.packetizer.core.bench.BenchBuffers.Loop;
import org.packetizer.core.bench.KernelPlan.SoaPointer;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.toolchain.Manifest;

/**
 * The benchmark's array-driver columns (issue 16/17): the drivers {@code packetize --array-driver} makes
 * (plain, and with {@code --refill=auto}) run in the same in-process benchmark as the other loops, and
 * every element they compute equals the scalar loop's (compared here, byte for byte, independently of the
 * benchmark's own check). No timing is asserted.
 */
class BenchArrayDriverTest {
  static final Manifest MANIFEST = Manifest.load();

  /**
   * mandelbrot (a divergent loop: the auto rule builds its timed bodies on AVX2 and AVX-512), integrate
   * (a struct-of-arrays object it writes: the drivers get an array of structs as a linear pointer) and
   * strhash (a uniform pointer, 32-bit varying inputs), at W4/SSE4.2, W8/AVX2 and, on an AVX-512 host,
   * W16; 1024 random elements, one timed run.
   */
  @Test
  void theArrayDriversComputeWhatTheScalarLoopComputesForEveryElement() {
    List<BenchTarget> targets = new ArrayList<>();
    for (BenchTarget t : List.of(new BenchTarget(4, Isa.SSE42), new BenchTarget(8, Isa.AVX2), new BenchTarget(16, Isa.avx512ForHost()))) {
      if (t.isa().missingOnHost().isEmpty()) targets.add(t);
    }
    assertFalse(targets.isEmpty(), "the host runs none of the targets");
    List<String> kernels = List.of("mandelbrot", "integrate", "strhash");
    BenchOptions o = new BenchOptions(kernels, targets, 1024, 40, 0, 1, 7, false, 300, PacketizerOptions.VectorMath.INTRINSICS, null, true,
        false, 0);
    List<KernelResult> results = new ArrayList<>();
    List<KernelFailure> failures = new ArrayList<>();
    Map<String, Integer> compared = new HashMap<>();
    List<String> differences = new ArrayList<>();
    KernelBench.Listener sink = new KernelBench.Listener() {
      @Override public void result(KernelResult r) { results.add(r); }

      @Override public void failure(KernelFailure f) { failures.add(f); }

      @Override public void log(String message) {}

      @Override public void outputs(String kernel, BenchTarget t, int n, BenchBuffers buf) {
        KernelPlan plan;
        try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.load(MANIFEST.bitcode(MANIFEST.require(kernel)), kernel)) {
          plan = KernelPlan.of(MANIFEST.require(kernel), m);
        }
        for (Loop l : List.of(Loop.DRIVER, Loop.AUTO)) {
          int elements = 0;
          if (plan.returnsValue()) {
            long size = plan.result().size;
            for (int i = 0; i < n; i++) {
              if (!sameBytes(buf.result(Loop.SCALAR), buf.result(l), i * size, size)) {
                differences.add(kernel + " " + t.label() + " " + l + ": result of element " + i);
              }
              elements++;
            }
          }
          for (int k = 0; k < plan.params().size(); k++) {
            if (!(plan.params().get(k) instanceof SoaPointer p) || !p.written()) continue;
            long size = p.pointee().size();
            for (int i = 0; i < n; i++) {
              if (!sameBytes(buf.memory(Loop.SCALAR, k), buf.memory(l, k), i * size, size)) {
                differences.add(kernel + " " + t.label() + " " + l + ": object " + p.name() + " of element " + i);
              }
            }
            if (!plan.returnsValue()) elements = n;
          }
          compared.merge(kernel + " " + t.label() + " " + l, elements, Integer::sum);
        }
      }
    };
    ByteArrayOutputStream log = new ByteArrayOutputStream();
    Benchmark.runInProcess(o, kernels, sink, new PrintStream(log, true, StandardCharsets.UTF_8));

    assertEquals(List.of(), failures, "targets not reported");
    assertEquals(List.of(), differences.stream().limit(10).toList(), "driver outputs that differ from the scalar loop's");
    for (String k : kernels) {
      for (BenchTarget t : targets) {
        for (Loop l : List.of(Loop.DRIVER, Loop.AUTO)) {
          assertEquals(1024, compared.getOrDefault(k + " " + t.label() + " " + l, 0), k + " " + t.label() + " " + l + ": elements compared");
        }
        KernelResult r = results.stream().filter(x -> x.kernel().equals(k) && x.label().equals(t.label())).findFirst().orElseThrow();
        assertTrue(r.hasDrivers(), k + " " + t.label() + ": both driver columns measured");
        assertTrue(r.driverNsPerElem() > 0 && r.autoDriverNsPerElem() > 0, k + " " + t.label());
        assertFalse(r.autoDriverChoice().isEmpty(), k + " " + t.label() + ": the auto rule's choice is reported");
        // the divergent loops of mandelbrot and strhash get the timed bodies where refill was measured (AVX2, AVX-512),
        // the plain driver on SSE-only x86 (strhash's loop, 35 % of its instructions, by the rule weighting it by an
        // estimated trip count since the seventeenth round); integrate (a loop with the same trip count in every lane)
        // the plain driver
        boolean timed = (k.equals("mandelbrot") || k.equals("strhash")) && t.width() >= 8;
        assertEquals(!timed, r.autoIsPlainDriver(), k + " " + t.label() + ": " + r.autoDriverChoice());
        if (k.equals("strhash") && !timed) {
          assertEquals("plain driver: no AVX2/AVX-512", r.autoDriverChoiceShort(), k + " " + t.label());
          assertTrue(r.autoDriverChoice().contains("35% of the instructions, 81% weighted by an estimated "
              + org.packetizer.core.driver.RefillDriver.AUTO_TRIP_ESTIMATE + " iterations)"), r.autoDriverChoice());
        }
      }
    }
    BenchReport report = new BenchReport(o, new BenchReport.Host("cpu", 2, "java", false, 0), results, failures, List.of(), List.of(), 1);
    assertEquals(targets.size(), report.driverGeomeans().size());
    assertTrue(report.table().contains("Array drivers"), report.table());
    assertTrue(report.json().contains("\"driver_geomeans\""));
  }

  private static boolean sameBytes(MemorySegment a, MemorySegment b, long offset, long size) {
    return a.asSlice(offset, size).mismatch(b.asSlice(offset, size)) == -1;
  }

  /** A struct-of-arrays parameter becomes a linear pointer stepping one object (the driver refuses {@code s}); other letters stay. */
  @Test
  void theDriversGetAnArrayOfStructsForAStructOfArraysParameter() {
    Manifest.Entry integrate = MANIFEST.require("integrate"), shade = MANIFEST.require("shade"), julia = MANIFEST.require("julia");
    try (LlvmContext ctx = LlvmContext.create();
         LlvmModule mi = ctx.load(MANIFEST.bitcode(integrate), "integrate");
         LlvmModule ms = ctx.load(MANIFEST.bitcode(shade), "shade");
         LlvmModule mj = ctx.load(MANIFEST.bitcode(julia), "julia")) {
      KernelPlan pi = KernelPlan.of(integrate, mi), ps = KernelPlan.of(shade, ms), pj = KernelPlan.of(julia, mj);
      long si = ((SoaPointer) pi.params().get(0)).pointee().size();
      assertEquals("suu", integrate.signature());
      assertEquals("l" + si + "uu", Drivers.driverSignature(integrate.signature(), pi));
      long hit = ((SoaPointer) ps.params().get(0)).pointee().size(), out = ((SoaPointer) ps.params().get(2)).pointee().size();
      assertEquals("l" + hit + "ul" + out, Drivers.driverSignature("sus", ps));
      assertEquals("vvuuu", Drivers.driverSignature(julia.signature(), pj));
      assertEquals("vva16uuu", Drivers.driverSignature("vva16uuu", pj));
      assertThrows(IllegalArgumentException.class, () -> Drivers.driverSignature("vvuux", pj));
    }
  }

  /**
   * The "misses" rule: a kernel whose auto driver is slower than its plain driver by more than the
   * larger relative IQR of the two (at least 1 %) is named; within the noise, faster, or with the plain
   * driver made for auto (the same code) it is not; a result without driver columns is not judged.
   */
  @Test
  void autoIsAMissOnlyWhenSlowerThanPlainBeyondTheNoise() {
    List<KernelResult> rs = List.of(
        driverResult("slow", 10, 11.0, 2, 3, "refill body in use, 3 trials, 0 plain-watch alarms"),     // +10 % > 3 %: a miss
        driverResult("noisy", 10, 11.0, 12, 2, "plain body in use, 5 trials, 0 plain-watch alarms"),     // +10 % < 12 %
        driverResult("floor", 10, 10.05, 0, 0, "plain body in use, 5 trials, 0 plain-watch alarms"),     // +0.5 % < 1 %
        driverResult("floorMiss", 10, 10.2, 0, 0, "plain body in use, 5 trials, 0 plain-watch alarms"),  // +2 % > 1 %
        driverResult("faster", 10, 5, 0, 0, "refill body in use, 5 trials, 0 plain-watch alarms"),
        driverResult("same", 10, 20, 0, 0, "plain driver (lane refill not used (--refill=auto): it has no loop; plain driver)"),
        driverResult("none", Double.NaN, Double.NaN, Double.NaN, Double.NaN, ""));
    BenchOptions o = BenchOptions.quickDefaults();
    BenchReport report = new BenchReport(o, new BenchReport.Host("cpu", 2, "java", false, 0), rs, List.of(), List.of(), List.of(), 1);
    List<String> misses = report.autoDriverMisses();
    assertEquals(2, misses.size(), misses.toString());
    assertTrue(misses.get(0).startsWith("slow W8/AVX2: auto +10.0 %"), misses.get(0));
    assertTrue(misses.get(1).startsWith("floorMiss W8/AVX2: auto +2.0 %"), misses.get(1));
    assertArrayEquals(new double[] {2.0, 2.0}, report.sameCodeDriverBand().orElseThrow(), 1e-12);
    assertEquals("plain driver: no loop", rs.get(5).autoDriverChoiceShort());
    assertEquals("plain driver: the divergent loop holds 35 % of the instructions (< 50 %)", driverResult("share", 1, 1, 0, 0,
        "plain driver (lane refill not chosen (--refill=auto): the loop at %for.body (trip count differs between lanes, 35% of the"
            + " instructions); the rule wants a loop whose trip count differs between lanes holding at least 50% of the instructions,"
            + " on a target where refill was measured; plain driver)").autoDriverChoiceShort());
    // the rule weighting the loop by its estimated trip count (seventeenth round): both figures, and the share it wants
    assertEquals("plain driver: the divergent loop holds 5 % of the instructions, 29 % weighted by 8 iterations (< 50 %)",
        driverResult("weighted", 1, 1, 0, 0, "plain driver (lane refill not chosen (--refill=auto): the loop at %while.body (trip count"
            + " differs between lanes, 5% of the instructions, 29% weighted by an estimated 8 iterations); the rule wants a loop whose"
            + " trip count differs between lanes holding at least 50% of the instructions with the loop's counted 8 times, on a target"
            + " where refill was measured; plain driver)").autoDriverChoiceShort());
    assertEquals("plain driver: the divergent loop holds 35 % of the instructions (< 60 %)", driverResult("knob", 1, 1, 0, 0,
        "plain driver (lane refill not chosen (--refill=auto): the loop at %for.body (trip count differs between lanes, 35% of the"
            + " instructions); the rule wants a loop whose trip count differs between lanes holding at least 60% of the instructions,"
            + " on a target where refill was measured; plain driver)").autoDriverChoiceShort());
    // the geomeans cover the six results with driver columns (auto/plain: 1.1 * 1.1 * 1.005 * 1.02 * 0.5 * 2, sixth root)
    BenchReport.DriverGeomean g = report.driverGeomeans().get(0);
    assertEquals(6, g.kernels());
    assertEquals(Math.pow(1.1 * 1.1 * 1.005 * 1.02 * 0.5 * 2, 1.0 / 6), g.autoVsPlain(), 1e-9);
    assertTrue(report.table().contains("[MISS] no kernel slower with --refill=auto"), report.table());
  }

  private static KernelResult driverResult(String k, double plain, double auto, double plainIqr, double autoIqr, String choice) {
    return new KernelResult(k, "kernel", 8, "AVX2", "haswell", 1024, 5, 40, 20, 5, 40, 20, 5, 0, true, 10, 20, 10, 20, 1, 0, 0, 0, 0, 0, 0,
        Double.NaN, false, 1, plain, auto, plainIqr, autoIqr, choice);
  }
}
