package org.packetizer.core.foreign;

import static org.junit.jupiter.api.Assertions.*;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.packetizer.core.Packetizer;
import org.packetizer.core.api.PacketizerOptions;
import org.packetizer.core.check.CheckResult;
import org.packetizer.core.check.DifferentialCheck;
import org.packetizer.core.check.ParamSpec;
import org.packetizer.core.check.ValueDomain;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.jit.Jit;

/**
 * Issue #19, part 2: "the differential check must run what it packetizes". An {@code i128} division
 * makes code generation call {@code __udivti3}/{@code __divti3}, which the JIT now links from the
 * compiler runtime (before: "Symbols not found", for every function of the module); and arguments
 * larger than 512 bytes ({@code <256 x double>}) get larger trampoline slots (before: "does not fit
 * an argument slot"). Sources compiled by clang at plain -O1/-O2.
 */
class WideChecksTest {
  static Stream<Arguments> cases() {
    List<Arguments> out = new ArrayList<>();
    for (String opt : new String[] {"-O1", "-O2"}) for (int w : new int[] {4, 8, 16}) out.add(Arguments.of(opt, w));
    return out.stream();
  }

  static void check(LlvmModule m, String fn, int w, boolean masked, int runs, ParamSpec... specs) {
    String simd = fn + (masked ? "_m" : "_v") + w;
    new Packetizer(PacketizerOptions.builder().width(w).masked(masked).verifyEachPhase(true).build()).run(m, fn, simd);
    List<ParamSpec> ps = new ArrayList<>(List.of(specs));
    if (masked) ps.add(ParamSpec.mask());
    try (DifferentialCheck c = DifferentialCheck.builder(m, fn, simd, w).params(ps).build()) {
      CheckResult res = c.runMany(runs, 128L + w);
      assertTrue(res.passed(), () -> simd + ":\n" + res.report());
      assertTrue(masked ? res.lanesCompared() > 0 : res.lanesCompared() == runs * w, () -> res.lanesCompared() + " lanes compared");
    }
  }

  @ParameterizedTest(name = "{0} W={1}")
  @MethodSource("cases")
  void i128DivisionLinksTheCompilerRuntime(String opt, int w) {
    assertTrue(Jit.builtinsLibrary().isPresent(), "libgcc_s.so.1 (GCC's runtime, part of every glibc system) is loadable");
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ForeignC.compile(ctx, "wide.c", opt)) {
      for (boolean masked : new boolean[] {false, true}) {
        ValueDomain any = ValueDomain.ints(Long.MIN_VALUE, Long.MAX_VALUE);
        check(m, "div128", w, masked, 30, ParamSpec.varying(any), ParamSpec.varying(any), ParamSpec.varying(ValueDomain.ints(-3, 1L << 40)));
        check(m, "sdiv128", w, masked, 30, ParamSpec.varying(any), ParamSpec.varying(ValueDomain.ints(-50, 50)));
      }
    }
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"-O1", "-O2"})
  void width256IsChecked(String opt) {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ForeignC.compile(ctx, "wide.c", opt)) {
      for (boolean masked : new boolean[] {false, true}) {
        check(m, "poly", 256, masked, 5, ParamSpec.varying(ValueDomain.floats(-3, 3)), ParamSpec.varying(ValueDomain.ints(-1, 9)));
        check(m, "div128", 256, masked, 5, ParamSpec.varying(ValueDomain.ints(0, Long.MAX_VALUE)),
            ParamSpec.varying(ValueDomain.ints(Long.MIN_VALUE, Long.MAX_VALUE)), ParamSpec.varying(ValueDomain.ints(0, 1000)));
      }
    }
  }
}
