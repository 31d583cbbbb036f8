package org.packetizer.core.wrapper;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.packetizer.core.Packetizer;
import org.packetizer.core.api.PacketizerOptions;
import org.packetizer.core.api.WrapperMode;
import org.packetizer.core.check.CheckResult;
import org.packetizer.core.check.DifferentialCheck;
import org.packetizer.core.check.Inputs;
import org.packetizer.core.check.KernelChecks;
import org.packetizer.core.check.VectorMathReference;
import org.packetizer.core.ir.Function;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.toolchain.Manifest;

/**
 * The shape {@link LoopWrapperKernelSweep} failed on (13 of 520 cases before the twelfth round): math
 * in the default vector-math mode (libmvec, at most 4 ULP from libm) through the LOOP wrapper. The
 * S-wide function's math runs in the N-wide function, so it calls the N-wide libmvec variants, and
 * the check must compare against a scalar reference calling those very variants (the CLI's
 * {@code --check} semantics: "compares against the same variants"), not the scalar libm (cancellation
 * in call02 and bs_call turns the variants' 1-ULP differences into 8) nor the S-wide route's variants
 * (on AVX2 {@code _ZGVdN8v_expf} where the 4-wide function calls {@code _ZGVbN4v_expf}).
 * Kernels from the bundled C sources (clang -O2), on the module's own target (SSE2) and on haswell.
 */
class LoopWrapperMathReferenceTest {
  static final String HASWELL = "+avx,+avx2,+fma,+sse4.2,+popcnt,+bmi,+bmi2,+f16c";

  static Stream<Arguments> cases() {
    List<Arguments> out = new ArrayList<>();
    for (String k : List.of("call02", "call10", "bs_call", "binomial")) {
      for (int n : new int[] {4, 8}) {
        for (boolean haswell : new boolean[] {false, true}) out.add(Arguments.of(k, 16, n, haswell));
      }
    }
    return out.stream();
  }

  @ParameterizedTest(name = "{0} S={1} N={2} haswell={3}")
  @MethodSource("cases")
  void loopWrapperMathIsCheckedAgainstTheVariantsItCalls(String kernel, int s, int n, boolean haswell) {
    Manifest manifest = Manifest.load();
    Manifest.Entry e = manifest.require(kernel);
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.load(manifest.bitcode(e), e.bitcode())) {
      if (haswell) {
        for (Function f : m.functions()) {
          if (f.isDeclaration()) continue;
          f.setStringAttribute("target-cpu", "haswell");
          f.setStringAttribute("target-features", HASWELL);
        }
      }
      String simd = e.function() + "_simd" + s;
      new Packetizer(PacketizerOptions.builder().width(s).params(KernelChecks.paramKinds(e)).hardwareWidth(n)
          .wrapperMode(WrapperMode.LOOP).verifyEachPhase(true).build()).run(m, e.function(), simd);
      assertTrue(m.function(simd + ".n" + n).isPresent(), "no LOOP wrapper");
      Set<String> called = VectorMathReference.librarySymbolsReached(m, simd);
      assertFalse(called.isEmpty(), "the default math mode should call libmvec");
      // every variant the wrapper reaches is an N-wide one (the math runs in the N-wide function)
      for (String sym : called) assertTrue(sym.matches("_ZGV.N" + (haswell ? n : 4) + "v+_.*"), sym + " at N=" + n);
      String ref = VectorMathReference.referenceFor(m, e.function(), simd, s, PacketizerOptions.VectorMath.LIBMVEC);
      assertEquals(called, VectorMathReference.librarySymbolsReached(m, ref), "the reference calls other variants");
      var b = KernelChecks.checkBuilder(e, m, simd, s);
      if (haswell) b.target("haswell", HASWELL);
      try (DifferentialCheck c = b.build()) {
        for (Inputs in : KernelChecks.sampleInputs(e, s)) {
          CheckResult res = c.run(in);
          assertTrue(res.passed(), () -> e + " samples:\n" + res.report());
        }
        CheckResult res = c.runMany(6, 0xBEEF + s);
        assertTrue(res.passed(), () -> e + ":\n" + res.report());
      }
    }
  }
}
