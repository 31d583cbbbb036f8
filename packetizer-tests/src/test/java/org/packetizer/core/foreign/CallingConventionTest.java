package org.packetizer.core.foreign;

import static org.junit.jupiter.api.Assertions.*;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.packetizer.core.api.PacketizationException;
import org.packetizer.core.api.PacketizationResult;
import org.packetizer.core.Packetizer;
import org.packetizer.core.api.PacketizerOptions;
import org.packetizer.core.check.CheckResult;
import org.packetizer.core.check.DifferentialCheck;
import org.packetizer.core.check.ParamSpec;
import org.packetizer.core.check.ValueDomain;
import org.packetizer.core.ir.Function;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;

/**
 * Issue #19, part 1: calls to helpers with a non-C calling convention. clang gives {@code static}
 * functions {@code fastcc}; a call whose convention differs from its callee's is undefined behaviour,
 * which the clean-up turned into an {@code unreachable} body (every lane wrong, no error). Every call
 * the packetizer creates — to a recursively packetized version, per-lane scalar calls — must use its
 * callee's convention, for every convention, and per-lane calls keep the scalar call's attributes.
 * Checked by differential execution at W=4, 8, 16, unmasked and masked.
 */
class CallingConventionTest {
  static final List<String> CONVENTIONS = List.of("", "fastcc", "coldcc", "tailcc", "swiftcc", "preserve_mostcc",
      "preserve_allcc", "x86_regcallcc", "x86_vectorcallcc", "x86_64_sysvcc", "win64cc");

  static Stream<Arguments> cases() {
    List<Arguments> out = new ArrayList<>();
    for (String cc : CONVENTIONS) for (int w : new int[] {4, 8, 16}) out.add(Arguments.of(cc, w));
    return out.stream();
  }

  static PacketizationResult packetize(LlvmModule m, String fn, String simd, int w, boolean masked) {
    return new Packetizer(PacketizerOptions.builder().width(w).masked(masked).verifyEachPhase(true).build()).run(m, fn, simd);
  }

  static void check(LlvmModule m, String fn, String simd, int w, boolean masked, ValueDomain d) {
    List<ParamSpec> ps = new ArrayList<>(List.of(ParamSpec.varying(d)));
    if (masked) ps.add(ParamSpec.mask());
    try (DifferentialCheck c = DifferentialCheck.builder(m, fn, simd, w).params(ps).build()) {
      CheckResult res = c.runMany(40, 19L * w);
      assertTrue(res.passed(), () -> simd + ":\n" + res.report() + "\n" + m.function(simd).orElseThrow().print());
    }
  }

  @ParameterizedTest(name = "{0} W={1}")
  @MethodSource("cases")
  void helperWithAnyCallingConventionUnderADivergentBranch(String cc, int w) {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ForeignC.parseIr(ctx, "callconv.ll.in", "CC", cc)) {
      for (boolean masked : new boolean[] {false, true}) {
        String simd = "f_" + (masked ? "m" : "v") + w;
        PacketizationResult r = packetize(m, "f", simd, w, masked);
        assertEquals(1, r.vectorCalls(), r::summary);
        Function packet = m.function(simd).orElseThrow();
        assertTrue(packet.print().contains("ret <" + w + " x i32>"), () -> "the body was reduced: " + packet.print());
        check(m, "f", simd, w, masked, ValueDomain.ints(-1000, 1000));
      }
    }
  }

  @ParameterizedTest(name = "{0} W={1}")
  @MethodSource("cases")
  void perLaneCallsKeepTheConventionAndTheCallSiteAttributes(String cc, int w) {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ForeignC.parseIr(ctx, "callconv.ll.in", "CC", cc)) {
      for (boolean masked : new boolean[] {false, true}) {
        String simd = "g_" + (masked ? "m" : "v") + w;
        PacketizationResult r = packetize(m, "g", simd, w, masked);
        assertEquals(1, r.scalarizedCalls(), r::summary);
        String ir = m.function(simd).orElseThrow().print();
        String prefix = cc.isEmpty() ? "call i32 @opaque(" : "call " + cc + " i32 @opaque(";
        assertTrue(ir.contains(prefix + "i8 zeroext "), () -> "per-lane calls must be '" + prefix + "i8 zeroext ...':\n" + ir);
        check(m, "g", simd, w, masked, ValueDomain.ints(-300, 300));
      }
    }
  }

  /**
   * A noise kernel and a hash helper called eight times, compiled with plain -O1 and -O2: clang makes
   * the static helpers internal {@code fastcc}. At -O2 the SLP vectorizer may leave vector values in
   * {@code @noise}; until those packetize (issue #19 part 2) that must be a clear rejection, never a
   * silent success.
   */
  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"-O1", "-O2"})
  void noiseKernelWithStaticHelpersCompiledByClang(String opt) {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ForeignC.compile(ctx, "noise.c", opt)) {
      assertTrue(m.function("mix").orElseThrow().print().contains("fastcc"), "clang made the static helper fastcc");
      for (int w : new int[] {4, 8, 16}) {
        for (boolean masked : new boolean[] {false, true}) {
          String sfx = (masked ? "_m" : "_v") + w;
          PacketizationResult mix = packetize(m, "mix8", "mix8" + sfx, w, masked);
          assertEquals(8, mix.vectorCalls(), mix::summary);
          checkTwo(m, "mix8", "mix8" + sfx, w, masked, ParamSpec.varying(ValueDomain.ints(-50, 50)),
              ParamSpec.varying(ValueDomain.ints(-50, 50)));
          PacketizationResult noise;
          try {
            noise = packetize(m, "noise", "noise" + sfx, w, masked);
          } catch (PacketizationException e) {
            assertEquals(PacketizationException.Kind.UNSUPPORTED, e.kind(), e::getMessage);
            assertTrue(opt.equals("-O2") && e.getMessage().contains("<"), () -> "only -O2's SLP vectors may be refused: " + e.getMessage());
            continue;
          }
          assertTrue(noise.vectorCalls() >= 8, noise::summary);
          checkThree(m, "noise" + sfx, w, masked);
        }
      }
    }
  }

  private static void checkTwo(LlvmModule m, String fn, String simd, int w, boolean masked, ParamSpec a, ParamSpec b) {
    List<ParamSpec> ps = new ArrayList<>(List.of(a, b));
    if (masked) ps.add(ParamSpec.mask());
    try (DifferentialCheck c = DifferentialCheck.builder(m, fn, simd, w).params(ps).build()) {
      CheckResult res = c.runMany(40, 7L * w);
      assertTrue(res.passed(), () -> simd + ":\n" + res.report());
    }
  }

  private static void checkThree(LlvmModule m, String simd, int w, boolean masked) {
    List<ParamSpec> ps = new ArrayList<>(List.of(ParamSpec.varying(ValueDomain.floats(-40, 40)),
        ParamSpec.varying(ValueDomain.floats(-40, 40)), ParamSpec.varying(ValueDomain.ints(0, 6))));
    if (masked) ps.add(ParamSpec.mask());
    try (DifferentialCheck c = DifferentialCheck.builder(m, "noise", simd, w).params(ps).build()) {
      CheckResult res = c.runMany(40, 11L * w);
      assertTrue(res.passed(), () -> simd + ":\n" + res.report());
    }
  }
}
