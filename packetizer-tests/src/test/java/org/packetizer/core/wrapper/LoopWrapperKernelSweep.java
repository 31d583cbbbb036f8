package org.packetizer.core.wrapper;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.packetizer.core.api.PacketizationResult;
import org.packetizer.core.Packetizer;
import org.packetizer.core.api.PacketizerOptions;
import org.packetizer.core.api.WrapperMode;
import org.packetizer.core.check.CheckResult;
import org.packetizer.core.check.DifferentialCheck;
import org.packetizer.core.check.Inputs;
import org.packetizer.core.check.KernelChecks;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.toolchain.Manifest;

/**
 * Every bundled kernel through the LOOP wrapper (S = 16 over N = 4 and 8; kernels without pointer
 * parameters also S = 64 over N = 4), checked lane by lane against the scalar function. A few minutes, so opt-in:
 * {@code mvn -o -pl packetizer-tests test -Dtest=LoopWrapperKernelSweep} (its name keeps it out of the default run; it is a long sweep, not skipped). Kernels whose struct-of-arrays parameters are
 * accessed at offsets that are not constants are expected to be rejected by LOOP (and are skipped).
 * Math takes the default route (libmvec), so the reference is the scalar function calling the very
 * libmvec variants the N-wide function calls ({@link org.packetizer.core.check.VectorMathReference}).
 */
class LoopWrapperKernelSweep {
  @TestFactory
  Stream<DynamicTest> allKernelsThroughTheWrapper() {
    Manifest manifest = Manifest.load();
    List<DynamicTest> tests = new ArrayList<>();
    for (Manifest.Entry e : manifest.kernels()) {
      tests.add(DynamicTest.dynamicTest(e.name() + " S=16 N=4", () -> check(manifest, e, 16, 4)));
      tests.add(DynamicTest.dynamicTest(e.name() + " S=16 N=8", () -> check(manifest, e, 16, 8)));
      // the manifest sizes buffers for widths up to 16: wider only without memory
      if (!e.hasPointerParams()) tests.add(DynamicTest.dynamicTest(e.name() + " S=64 N=4", () -> check(manifest, e, 64, 4)));
    }
    return tests.stream();
  }

  static void check(Manifest manifest, Manifest.Entry e, int s, int n) {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.load(manifest.bitcode(e), e.bitcode())) {
      String simd = e.function() + "_simd" + s;
      PacketizationResult r;
      try {
        r = new Packetizer(PacketizerOptions.builder().width(s).params(KernelChecks.paramKinds(e)).hardwareWidth(n)
            .wrapperMode(WrapperMode.LOOP).verifyEachPhase(true).build()).run(m, e.function(), simd);
      } catch (org.packetizer.core.api.PacketizationException ex) {
        if (ex.getMessage().contains("--wrapper direct")) return; // dynamic struct-of-arrays offsets
        throw ex;
      }
      assertTrue(m.function(simd + ".n" + n).isPresent());
      try (DifferentialCheck c = KernelChecks.checkBuilder(e, m, simd, s).build()) {
        for (Inputs in : KernelChecks.sampleInputs(e, s)) {
          CheckResult res = c.run(in);
          assertTrue(res.passed(), () -> e + " S=" + s + " samples:\n" + res.report() + "\n" + r.summary());
        }
        CheckResult res = c.runMany(6, 0xBEEF + s);
        assertTrue(res.passed(), () -> e + " S=" + s + ":\n" + res.report() + "\n" + r.summary());
      }
    }
  }
}
