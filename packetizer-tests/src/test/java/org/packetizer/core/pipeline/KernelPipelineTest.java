package org.packetizer.core.pipeline;

import static org.junit.jupiter.api.Assertions.*;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.packetizer.core.api.IntegerMasks;
import org.packetizer.core.api.MemoryStrategy;
import org.packetizer.core.api.PacketizationResult;
import org.packetizer.core.Packetizer;
import org.packetizer.core.api.PacketizerOptions;
import org.packetizer.core.check.CheckResult;
import org.packetizer.core.check.DifferentialCheck;
import org.packetizer.core.check.Inputs;
import org.packetizer.core.check.KernelChecks;
import org.packetizer.core.check.VectorMathReference;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.toolchain.Manifest;

/**
 * Every bundled kernel (thesis examples, benchmark kernels, the control-flow families, types and
 * memory) packetized at widths 4, 8 and 16, verified after every phase, and checked lane by lane
 * against the scalar function by differential execution: the manifest's sample packets plus random
 * inputs from its ranges.
 */
class KernelPipelineTest {
  static final String HASWELL = "+avx,+avx2,+fma,+sse4.2,+popcnt,+bmi,+bmi2,+f16c";
  static final int RANDOM_RUNS = Integer.getInteger("packetizer.test.runs", 12);

  static Stream<Manifest.Entry> entries() {
    return Manifest.load().kernels().stream();
  }

  @TestFactory
  Stream<DynamicTest> allKernelsAllWidths() {
    Manifest manifest = Manifest.load();
    List<DynamicTest> tests = new ArrayList<>();
    java.util.regex.Pattern filter = java.util.regex.Pattern.compile(System.getProperty("packetizer.test.filter", ".*"));
    for (Manifest.Entry e : manifest.kernels()) {
      if (!filter.matcher(e.name()).matches() && !filter.matcher(e.family()).matches()) continue;
      for (int w : new int[] {4, 8, 16}) {
        tests.add(DynamicTest.dynamicTest(e.name() + " W=" + w, () -> check(manifest, e, w, MemoryStrategy.GATHER)));
      }
      // compiled for haswell (AVX2: per-lane loads instead of gathers) with masks as integer vectors
      // (the default on AVX2; forced here), run by a haswell JIT
      for (int w : new int[] {4, 8, 16}) {
        tests.add(DynamicTest.dynamicTest(e.name() + " W=" + w + " haswell integer masks", () -> check(manifest, e, w,
            MemoryStrategy.GATHER, PacketizerOptions.VectorMath.INTRINSICS, IntegerMasks.ALWAYS)));
      }
      // every block that can be skipped when empty is (the default skips only big ones)
      for (int w : new int[] {4, 8, 16}) {
        tests.add(DynamicTest.dynamicTest(e.name() + " W=" + w + " skip every block", () -> check(manifest, e, w,
            MemoryStrategy.GATHER, PacketizerOptions.VectorMath.INTRINSICS, IntegerMasks.NEVER, 0)));
      }
      if (e.family().equals("memory") || e.hasPointerParams()) {
        tests.add(DynamicTest.dynamicTest(e.name() + " W=8 cascade", () -> check(manifest, e, 8, MemoryStrategy.CASCADE)));
      }
      if (e.mathCalls()) {
        for (int w : new int[] {4, 8, 16}) {
          tests.add(DynamicTest.dynamicTest(e.name() + " W=" + w + " libmvec",
              () -> check(manifest, e, w, MemoryStrategy.GATHER, PacketizerOptions.VectorMath.LIBMVEC)));
        }
      }
    }
    return tests.stream();
  }

  static void check(Manifest manifest, Manifest.Entry e, int w, MemoryStrategy memory) {
    check(manifest, e, w, memory, PacketizerOptions.VectorMath.INTRINSICS);
  }

  /**
   * With libmvec the scalar function is given the host's CPU features first (as a user compiling
   * for this machine would), so the packet function may call the AVX2/AVX-512 variants.
   */
  static void check(Manifest manifest, Manifest.Entry e, int w, MemoryStrategy memory, PacketizerOptions.VectorMath math) {
    check(manifest, e, w, memory, math, IntegerMasks.NEVER);
  }

  static void check(Manifest manifest, Manifest.Entry e, int w, MemoryStrategy memory, PacketizerOptions.VectorMath math,
      IntegerMasks intMasks) {
    check(manifest, e, w, memory, math, intMasks, PacketizerOptions.Builder.DEFAULT_SKIP_THRESHOLD);
  }

  static void check(Manifest manifest, Manifest.Entry e, int w, MemoryStrategy memory, PacketizerOptions.VectorMath math,
      IntegerMasks intMasks, int skipThreshold) {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.load(manifest.bitcode(e), e.bitcode())) {
      boolean haswell = intMasks == IntegerMasks.ALWAYS;
      if (haswell) {
        // the whole module, as compiling it for haswell would (helpers' packet versions take vector
        // arguments: caller and callee must agree on the registers)
        for (var f : m.functions()) {
          if (f.isDeclaration()) continue;
          f.setStringAttribute("target-cpu", "haswell");
          f.setStringAttribute("target-features", HASWELL);
        }
      }
      if (math == PacketizerOptions.VectorMath.LIBMVEC) {
        var f = m.function(e.function()).orElseThrow();
        f.setStringAttribute("target-cpu", org.packetizer.core.ir.Llvm.hostCpuName());
        f.setStringAttribute("target-features", org.packetizer.core.ir.Llvm.hostCpuFeatures());
      }
      byte[] before = m.toBitcode();
      String simd = e.function() + "_simd" + w;
      PacketizationResult r = new Packetizer(PacketizerOptions.builder().width(w).params(KernelChecks.paramKinds(e))
          .memoryStrategy(memory).vectorMath(math).integerMasks(intMasks).skipThreshold(skipThreshold).verifyEachPhase(true).build()).run(m, e.function(), simd);
      assertTrue(m.verify().isEmpty(), () -> "module invalid: " + m.verify().get());
      assertTrue(m.function(simd).isPresent());
      assertNotEquals(before.length, 0);
      String scalarRef = e.function();
      if (math == PacketizerOptions.VectorMath.LIBMVEC) {
        // compare against the same libmvec variants, bit for bit
        scalarRef = e.function() + ".libmvec.ref";
        VectorMathReference.create(m, e.function(), scalarRef, w, org.packetizer.core.ir.Llvm.hostCpuFeatures());
      }
      var cb = KernelChecks.checkBuilder(e, m, scalarRef, simd, w);
      if (haswell) cb.target("haswell", HASWELL);
      try (DifferentialCheck c = cb.build()) {
        for (Inputs in : KernelChecks.sampleInputs(e, w)) {
          CheckResult res = c.run(in);
          assertTrue(res.passed(), () -> e + " W=" + w + " " + memory + " samples:\n" + res.report() + "\n" + r.summary());
        }
        CheckResult res = c.runMany(RANDOM_RUNS, 0xC0FFEE + w);
        assertTrue(res.passed(), () -> e + " W=" + w + " " + memory + ":\n" + res.report() + "\n" + r.summary());
      }
    }
  }
}
