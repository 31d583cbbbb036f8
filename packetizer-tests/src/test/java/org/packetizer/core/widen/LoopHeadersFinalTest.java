package org.packetizer.core.widen;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.packetizer.core.Packetizer;
import org.packetizer.core.api.IntegerMasks;
import org.packetizer.core.api.PacketizationResult;
import org.packetizer.core.api.PacketizerOptions;
import org.packetizer.core.check.CheckResult;
import org.packetizer.core.check.DifferentialCheck;
import org.packetizer.core.check.ParamSpec;
import org.packetizer.core.check.ValueDomain;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.toolchain.BundledClang;

/**
 * {@code -Dpacketizer.loopHeadersFinal} (issue 16): once the linearizer leaves a loop it declares the
 * header's predecessors final, so a read after an inner loop of a variable the inner loop never writes
 * (the outer loop's next mask, reset at its header) is answered at once and the emitter folds its first
 * contribution, instead of a placeholder that resolves to the empty mask. C compiled by the bundled
 * clang with the kernel flags, packetized with the knob on and off: fewer raw instructions with it, the same
 * packet function after the clean-up, and every lane of 300 random packets equal to the scalar function
 * (integer and {@code <W x i1>} masks; with the full clean-up and with the clean-up cut to nothing).
 */
class LoopHeadersFinalTest {
  private static final String C = """
      /* a uniform outer loop around a divergent inner loop with an early exit, then another nest:
         the generated nestedloop shape */
      float nest(float a, float b, int n) {
        float s = 0.25f, r = b;
        int m = (int)__builtin_fminf(__builtin_fabsf(a - b), 50.0f) & 3;
        for (int i = 0; i < 2; ++i) {
          for (int j = 0; j < m; ++j) {
            s = s * 0.75f + 0.5f;
            if (s < r) break;
          }
          r = r + 0.125f;
        }
        int q = (int)__builtin_fminf(__builtin_fabsf(s), 50.0f) & 7;
        for (int i = 0; i < 2; ++i) {
          for (int j = 0; j < q; ++j) s = s * 0.5f + a;
          if (s > r) s = s - r;
        }
        return s + r;
      }
      """;

  @ParameterizedTest(name = "W={0} {1}")
  @CsvSource({"4,AUTO", "8,AUTO", "16,AUTO", "8,NEVER", "16,NEVER"})
  void fewerRawInstructionsSamePacketFunctionEveryLaneExact(int w, IntegerMasks im) {
    byte[] bc = BundledClang.locate().compileToBitcode(C, "nest.c", BundledClang.KERNEL_FLAGS);
    int on = 0, off = 0;
    String onText = null, offText = null;
    for (String knob : new String[] {"true", "false"}) {
      for (String passes : new String[] {null, "no-op-function"}) {
        Object[] r = packetizeAndCheck(bc, w, knob, passes, im);
        if (passes == null) {
          if (knob.equals("true")) {
            on = (Integer) r[0];
            onText = (String) r[1];
          } else {
            off = (Integer) r[0];
            offText = (String) r[1];
          }
        }
      }
    }
    int fOn = on, fOff = off;
    assertTrue(on < off, () -> "W=" + w + ": raw instructions with the knob " + fOn + ", without " + fOff);
    assertEquals(offText, onText, "the clean-up makes the same packet function");
  }

  /** {emitted instructions, packet function text}; every lane of 300 random packets checked. */
  private static Object[] packetizeAndCheck(byte[] bc, int w, String knob, String passes, IntegerMasks im) {
    String oldKnob = System.setProperty("packetizer.loopHeadersFinal", knob);
    String oldPasses = passes == null ? System.clearProperty("packetizer.cleanupPasses") : System.setProperty("packetizer.cleanupPasses", passes);
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.load(bc, "nest.c")) {
      String simd = "nest_simd" + w;
      PacketizationResult res = new Packetizer(PacketizerOptions.builder().width(w).params("vvu").integerMasks(im).verifyEachPhase(true).build())
          .run(m, "nest", simd);
      assertTrue(m.verify().isEmpty(), () -> m.verify().get());
      String text = m.function(simd).orElseThrow().print();
      try (DifferentialCheck c = DifferentialCheck.builder(m, "nest", simd, w)
          .params(ParamSpec.varying(ValueDomain.floats(-60f, 60f)), ParamSpec.varying(ValueDomain.floats(-60f, 60f)),
              ParamSpec.uniform(ValueDomain.ints(0, 7)))
          .build()) {
        CheckResult cr = c.runMany(300, 16 + w);
        assertTrue(cr.passed(), () -> "W=" + w + " knob " + knob + " passes " + passes + " masks " + im + ": " + cr.report());
        assertEquals(300 * w, cr.lanesCompared());
      }
      return new Object[] {res.emittedInstructions(), text};
    } finally {
      restore("packetizer.loopHeadersFinal", oldKnob);
      restore("packetizer.cleanupPasses", oldPasses);
    }
  }

  private static void restore(String key, String old) {
    if (old == null) System.clearProperty(key);
    else System.setProperty(key, old);
  }
}
