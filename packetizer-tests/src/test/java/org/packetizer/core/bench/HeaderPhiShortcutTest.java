package org.packetizer.core.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.packetizer.core.Packetizer;
import org.packetizer.core.api.IntegerMasks;
import org.packetizer.core.api.PacketizerOptions;
import org.packetizer.core.check.CheckResult;
import org.packetizer.core.check.DifferentialCheck;
import org.packetizer.core.check.ParamSpec;
import org.packetizer.core.check.ValueDomain;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.toolchain.BundledClang;

/**
 * {@code -Dpacketizer.headerPhiShortcut} (issue 16, twenty-third round: {@code SlotSsa} makes no candidate
 * phi at a loop header for a variable no block of the loop writes) on the scaling study's loop shapes —
 * C compiled by the bundled clang with the kernel flags, where the shortcut leaves out most candidate
 * phis (escape: 32,432 → 2,161 at 5k instructions) —, packetized with the knob on and off: the same raw
 * packet function (the clean-up cut to nothing) and the same packet function after the clean-up, and
 * every lane of 300 random packets equal to the scalar function (integer and {@code <W x i1>} masks).
 */
class HeaderPhiShortcutTest {
  @ParameterizedTest(name = "{0} W={1} {2}")
  @CsvSource({"escape,8,AUTO", "escape,16,NEVER", "nestedloop,4,AUTO", "nestedloop,8,NEVER", "vloop,8,AUTO", "uloop,16,AUTO",
      "mix,8,AUTO"})
  void samePacketFunctionEveryLaneExact(String kind, int w, IntegerMasks im) {
    List<String> kinds = kind.equals("mix") ? ScalingBench.DEFAULT_MIX : List.of(kind);
    byte[] bc = BundledClang.locate().compileToBitcode(ScalingBench.generate(kind.equals("mix") ? 12 : 5, 7, kinds), "gen.c",
        BundledClang.KERNEL_FLAGS);
    for (String passes : new String[] {"no-op-function", null}) {
      String on = packetizeAndCheck(bc, w, "true", passes, im);
      String off = packetizeAndCheck(bc, w, "false", passes, im);
      assertEquals(off, on, () -> kind + " W=" + w + " clean-up " + (passes == null ? "full" : passes) + ": the same packet function");
    }
  }

  /** The packet function's text; every lane of 300 random packets checked. */
  private static String packetizeAndCheck(byte[] bc, int w, String knob, String passes, IntegerMasks im) {
    String oldKnob = System.setProperty("packetizer.headerPhiShortcut", knob);
    String oldPasses = passes == null ? System.clearProperty("packetizer.cleanupPasses") : System.setProperty("packetizer.cleanupPasses", passes);
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.load(bc, "gen.c")) {
      String simd = "big_simd" + w;
      new Packetizer(PacketizerOptions.builder().width(w).params("vvu").integerMasks(im).verifyEachPhase(true).build()).run(m, "big", simd);
      assertTrue(m.verify().isEmpty(), () -> m.verify().get());
      String text = m.function(simd).orElseThrow().print();
      try (DifferentialCheck c = DifferentialCheck.builder(m, "big", simd, w)
          .params(ParamSpec.varying(ValueDomain.floats(-8f, 8f)), ParamSpec.varying(ValueDomain.floats(-8f, 8f)),
              ParamSpec.uniform(ValueDomain.ints(0, 9)))
          .build()) {
        CheckResult cr = c.runMany(300, 23 + w);
        assertTrue(cr.passed(), () -> "W=" + w + " knob " + knob + " passes " + passes + " masks " + im + ": " + cr.report());
        assertEquals(300 * w, cr.lanesCompared());
      }
      return text;
    } finally {
      restore("packetizer.headerPhiShortcut", oldKnob);
      restore("packetizer.cleanupPasses", oldPasses);
    }
  }

  private static void restore(String key, String old) {
    if (old == null) System.clearProperty(key);
    else System.setProperty(key, old);
  }
}
