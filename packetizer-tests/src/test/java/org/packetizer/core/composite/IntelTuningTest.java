package org.packetizer.core.composite;

import static org.junit.jupiter.api.Assertions.*;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;
import org.packetizer.core.Packetizer;
import org.packetizer.core.api.MemoryStrategy;
import org.packetizer.core.api.PacketizerOptions;
import org.packetizer.core.check.CheckResult;
import org.packetizer.core.check.DifferentialCheck;
import org.packetizer.core.ir.Function;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.toolchain.BundledClang;
import org.packetizer.core.toolchain.ProcessResult;

/**
 * Intel's AVX-512 CPUs, whose LLVM tuning prefers 256-bit vectors ({@code skylake-avx512}, {@code icelake-server},
 * {@code sapphirerapids}; the host CPU LLVM names on such machines). There a function's 512-bit types are legal only
 * up to its {@code "min-legal-vector-width"}, and a 512-bit X86 intrinsic in a narrower function stops LLVM with
 * "Do not know how to split the result of this operator" — found on the first Intel host the suite ran on: the JIT
 * of {@code CompositeValuesTest} aborted the JVM at {@code vector-arith.ll @intrin W=4}, whose {@code <4 x float>}
 * values packed into {@code <16 x float>} meet {@code llvm.x86.avx512.mask.cvtps2dq.512} (RoundedConversions) in a
 * function whose signature is 128 bits wide. Every earlier test compiled for znver4 (no such preference) or AVX2.
 *
 * <p>Each composite case (the hand-written IR and renderer.c by clang's plain {@code -O2} and {@code -O1}, SLP on) is
 * packetized for each of the three CPUs at W4, W8 and W16 and compiled by the bundled {@code llc} in a child process,
 * which must succeed; on a host with AVX-512 every case is then run by the JIT for {@code skylake-avx512} and checked
 * lane by lane against the scalar function. The same host found a silent wrong answer on that route: LLVM 20 splits
 * the 512-bit values of a function narrower than its {@code "min-legal-vector-width"} into 256-bit halves on these
 * CPUs and miscompiled the W8 packet of {@code @ints} (every lane 0); the packetizer now marks such functions legal
 * for 512 bits on AVX-512 targets ({@code SignatureAbi.fitWideVectors}), the route znver4 takes.
 */
class IntelTuningTest {
  static final List<String> CPUS = List.of("skylake-avx512", "icelake-server", "sapphirerapids");
  static final int[] WIDTHS = {4, 8, 16};

  @TempDir Path dir;

  @TestFactory
  Stream<DynamicTest> compositeCasesCompileForIntel() throws IOException {
    List<DynamicTest> tests = new ArrayList<>();
    for (CompositeCases file : CompositeCases.all()) {
      for (String cpu : CPUS) {
        for (int w : WIDTHS) {
          tests.add(DynamicTest.dynamicTest(file.file().getFileName() + " " + cpu + " W=" + w, () -> {
            try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.parseIr(file.text(), file.file().getFileName().toString())) {
              compileAndRun(m, ctx, file, cpu, w);
            }
          }));
        }
      }
    }
    for (CompositeCases file : CompositeCases.all(".c")) {
      for (String opt : new String[] {"-O2", "-O1"}) {
        byte[][] bc = new byte[1][];
        for (String cpu : CPUS) {
          for (int w : WIDTHS) {
            tests.add(DynamicTest.dynamicTest(file.file().getFileName() + " " + opt + " " + cpu + " W=" + w, () -> {
              if (bc[0] == null) bc[0] = BundledClang.locate().compileToBitcode(file.text(), file.file().getFileName().toString(), List.of(opt));
              try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.load(bc[0], file.file().getFileName().toString())) {
                compileAndRun(m, ctx, file, cpu, w);
              }
            }));
          }
        }
      }
    }
    return tests.stream();
  }

  /**
   * The case the Intel host found, pinned: W4 of {@code @intrin} uses the 512-bit conversion, and its packet function
   * is marked legal for 512-bit vectors although its signature is 128 bits wide; the scalar function, which this run
   * did not make, is left as the user wrote it.
   */
  @Test
  void packetWithAWideIntrinsicIsMarkedLegalForIt() {
    CompositeCases file = CompositeCases.all().stream().filter(f -> f.file().getFileName().toString().equals("vector-arith.ll"))
        .findFirst().orElseThrow();
    CompositeCases.Case c = file.cases().stream().filter(k -> k.function().equals("intrin")).findFirst().orElseThrow();
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.parseIr(file.text(), "vector-arith.ll")) {
      new Packetizer(options(c, "skylake-avx512", 4)).run(m, "intrin", "intrin_simd");
      Function p = m.function("intrin_simd").orElseThrow();
      assertTrue(m.toIr().contains("@llvm.x86.avx512.mask.cvtps2dq.512"), "the case no longer uses the 512-bit conversion");
      assertEquals("512", p.stringAttribute("min-legal-vector-width").orElse("absent"));
      assertTrue(m.function("intrin").orElseThrow().stringAttribute("min-legal-vector-width").isEmpty(),
          "the user's scalar function was changed");
    }
  }

  /**
   * The wrong answer the Intel host found, pinned: the W8 packet of {@code @ints} holds {@code <32 x i32>} values and is
   * marked legal for 512-bit vectors, whether packetized for skylake-avx512 or for no named CPU (generic IR that a JIT
   * compiles for the host later), and on an AVX-512 host the JIT for skylake-avx512 gives every lane's value (it gave 0
   * in every lane before).
   */
  @Test
  void wideValuesInANarrowPacketAreLegalFor512Bits() {
    CompositeCases file = CompositeCases.all().stream().filter(f -> f.file().getFileName().toString().equals("vector-arith.ll"))
        .findFirst().orElseThrow();
    CompositeCases.Case c = file.cases().stream().filter(k -> k.function().equals("ints")).findFirst().orElseThrow();
    for (String cpu : new String[] {"skylake-avx512", null}) {
      try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.parseIr(file.text(), "vector-arith.ll")) {
        var b = PacketizerOptions.builder().width(8).memoryStrategy(MemoryStrategy.GATHER)
            .vectorMath(PacketizerOptions.VectorMath.INTRINSICS).params(CompositeCases.kinds(c));
        if (cpu != null) b.targetCpu(cpu);
        new Packetizer(b.build()).run(m, "ints", "ints_simd");
        Function p = m.function("ints_simd").orElseThrow();
        assertTrue(p.print().contains("<32 x i32>"), "the case no longer holds 512-bit values");
        assertEquals("512", p.stringAttribute("min-legal-vector-width").orElse("absent"), String.valueOf(cpu));
        if (!hostHasAvx512()) {
          System.err.println("SKIPPED (LOUD): IntelTuningTest.wideValuesInANarrowPacketAreLegalFor512Bits checked the attribute"
              + " only: the host has no AVX-512 for the JIT");
          continue;
        }
        try (DifferentialCheck check = DifferentialCheck.builder(m, "ints", "ints_simd", 8).params(CompositeCases.specs(c, ctx))
            .target("skylake-avx512", "").build()) {
          CheckResult res = check.runMany(60, 5);
          assertTrue(res.passed(), res::report);
        }
      }
    }
  }

  static final String ROUNDED = """
      define float @f(float %x) {
        %x8 = fmul float %x, 8.0
        %fx = call float @llvm.floor.f32(float %x8)
        %ix = fptosi float %fx to i32
        %r = sitofp i32 %ix to float
        ret float %r
      }
      declare float @llvm.floor.f32(float)
      """;

  /**
   * The AVX-512 rounded conversion follows the target the options name, whatever the host: for haswell (no AVX-512)
   * none is emitted and llc compiles the packet for haswell; for skylake-avx512 it is emitted, and the packet (W16,
   * a 512-bit signature) compiles for that CPU.
   */
  @Test
  void roundedConversionFollowsTheNamedTarget() throws IOException {
    for (String cpu : List.of("haswell", "skylake-avx512")) {
      try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.parseIr(ROUNDED, "rounded.ll")) {
        new Packetizer(PacketizerOptions.builder().width(16).targetCpu(cpu).params("v").build()).run(m, "f", "f_simd");
        assertEquals(!cpu.equals("haswell"), m.toIr().contains("@llvm.x86.avx512.mask.cvtps2dq.512"), cpu);
        Path bc = dir.resolve("r.bc");
        m.writeBitcode(bc);
        ProcessResult r = BundledClang.locate().run(List.of("llc", "-O2", "-mcpu=" + cpu, "-filetype=obj", bc.toString(), "-o",
            dir.resolve("r.o").toString()), dir);
        assertEquals(0, r.exitCode(), () -> cpu + ": " + r.stderr());
      }
    }
  }

  private void compileAndRun(LlvmModule m, LlvmContext ctx, CompositeCases file, String cpu, int w) throws IOException {
    List<CompositeCases.Case> done = new ArrayList<>();
    for (CompositeCases.Case c : file.cases()) {
      new Packetizer(options(c, cpu, w)).run(m, c.function(), c.function() + "_simd");
      done.add(c);
    }
    Path bc = dir.resolve("m.bc");
    m.writeBitcode(bc);
    BundledClang clang = BundledClang.locate();
    ProcessResult r = clang.run(List.of("llc", "-O2", "-mcpu=" + cpu, "-filetype=obj", bc.toString(), "-o", dir.resolve("m.o").toString()), dir);
    assertEquals(0, r.exitCode(), () -> "llc -mcpu=" + cpu + " failed on " + file.file().getFileName() + " W=" + w + ": " + r.stderr());
    if (!cpu.equals("skylake-avx512")) return;
    if (!hostHasAvx512()) {
      System.err.println("SKIPPED (LOUD): IntelTuningTest ran llc only for " + file.file().getFileName() + " W=" + w
          + ": the host has no AVX-512, so the JIT part (differential check for skylake-avx512) did not run");
      return;
    }
    // the same module through the JIT for skylake-avx512 (the child llc above would have failed first)
    for (CompositeCases.Case c : done) {
      try (DifferentialCheck check = DifferentialCheck.builder(m, c.function(), c.function() + "_simd", w)
          .params(CompositeCases.specs(c, ctx)).target(cpu, "").build()) {
        CheckResult res = check.runMany(40, 77 + w);
        assertTrue(res.passed(), () -> c.function() + " W=" + w + " " + cpu + ": " + res.report());
        assertTrue(res.lanesCompared() > 0, "no lane compared");
      }
    }
  }

  private static PacketizerOptions options(CompositeCases.Case c, String cpu, int w) {
    return PacketizerOptions.builder().width(w).targetCpu(cpu).memoryStrategy(MemoryStrategy.GATHER)
        .vectorMath(PacketizerOptions.VectorMath.INTRINSICS).params(CompositeCases.kinds(c)).build();
  }

  private static boolean hostHasAvx512() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
        if (line.startsWith("flags")) return List.of(line.substring(line.indexOf(':') + 1).trim().split("\\s+")).contains("avx512f");
      }
    } catch (IOException e) {
      return false;
    }
    return false;
  }
}
