package org.packetizer.core.widen;

import static org.junit.jupiter.api.Assertions.*;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
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
 * The join mask shortcut (issue 16, sixteenth round; knob {@code -Dpacketizer.joinMaskShortcut}): a join
 * reached by both edges of one divergent branch takes the branch block's mask instead of the {@code or}
 * of the two edge masks. The branch conditions here carry poison in the lanes that do not reach the
 * branch: {@code a * 2000000} overflows (an {@code nsw} multiply, poison) for the lanes with
 * {@code a >= 1074}, which the outer test {@code a < 1000} keeps out, and clang's {@code -O2} turns the
 * short-circuit {@code a < 1000 && a * 2000000 > b} into {@code select i1 %lt, i1 %gt, i1 false}. Foreign
 * C compiled by the bundled clang with its default -O2 pipeline, packetized with the knob on and off,
 * each checked lane by lane against the scalar function, once after the default clean-up and once after
 * only the clean-up's passes before InstCombine (which would otherwise fold the knob-off {@code or}s to
 * the same masks, so there the shortcut's own result is what the function computes).
 */
class JoinMaskShortcutTest {
  static final String C = """
      /* nested: the inner branch's condition is poison in the lanes the outer branch keeps out; the
         join after the inner if/else, and the exit after the outer one, are reached by both edges
         (arms of different shapes, long enough that clang keeps the branches) */
      int nested(int a, int b) {
        int r = -7;
        if (a < 1000) {
          int t = a * 2000000;
          if (t > b) {
            r = a * 3 + b; r = r * 5 - a; r ^= b << 2; r = r * 7 + 11; r -= a >> 1; r = r * 13 + b;
          } else {
            r = b - a; r = (r << 3) | 5; r += a * 9; r = r / 3 - b; r ^= a; r = r * 17 - 2;
          }
          r = r * 3 + (a ^ b);
        }
        return r;
      }

      /* short-circuit: clang -O2 makes the condition a select i1 of two compares, the second poison
         where the first is false */
      int short_circuit(int a, int b) {
        int r;
        if (a < 1000 && a * 2000000 > b) {
          r = a * 3 + b; r = r * 5 - a; r ^= b << 2; r = r * 7 + 11; r -= a >> 1; r = r * 13 + b;
        } else {
          r = b - a; r = (r << 3) | 5; r += a * 9; r = r / 3 - b; r ^= a; r = r * 17 - 2;
        }
        if (r > 100) {   /* a branch under the join's mask */
          r = r * 3 + a; r ^= b; r = r * 11 - 7; r += a << 2; r = r * 5 + b; r -= 3;
        }
        return r * 3 + (a ^ b);
      }

      /* a chain of two-armed joins, each branch under the outer branch's mask */
      int chain(int a, int b) {
        int r = 1;
        if (a < 1000) {
          int t = a * 2000000;
          if (t > b) {
            r = a * 3 + b; r = r * 5 - a; r ^= b << 2; r = r * 7 + 11; r -= a >> 1; r = r * 13 + b;
          } else {
            r = b - a; r = (r << 3) | 5; r += a * 9; r = r / 3 - b; r ^= a; r = r * 17 - 2;
          }
          if (t < -b) {
            r = r * 3 + a; r ^= b; r = r * 11 - 7; r += a << 2; r = r * 5 + b; r -= 3;
          } else {
            r = (r >> 2) - b; r |= a; r = r * 19 + 1; r -= b << 1; r = r / 7 + a; r ^= 9;
          }
        }
        return r;
      }
      """;

  private static final Pattern MASK_OR = Pattern.compile("= or <\\d+ x i1> ");

  /**
   * {@code fewerOrs}: the shortcut leaves fewer mask {@code or}s for InstCombine. Not in short_circuit,
   * whose join is under the all-true entry mask: there the knob-off {@code or(c, NOT c)} is already
   * simplified by early-cse.
   */
  @ParameterizedTest(name = "{0} W={1}")
  @CsvSource({"nested,4,true", "nested,8,true", "nested,16,true", "short_circuit,4,false", "short_circuit,8,false",
      "short_circuit,16,false", "chain,4,true", "chain,8,true", "chain,16,true"})
  void joinsTakeTheBranchBlocksMaskAndStayExact(String fn, int w, boolean fewerOrs) {
    byte[] bc = BundledClang.locate().compileToBitcode(C, "join_masks.c", List.of("-O2", "-nostdlibinc"));
    int[] ors = new int[2];
    for (String knob : new String[] {"true", "false"}) {
      for (String passes : new String[] {null, "early-cse,simplifycfg"}) {
        // (the default integer masks on this generic x86 target, and <W x i1> masks, whose ors are counted)
        packetizeAndCheck(bc, fn, w, knob, passes, IntegerMasks.AUTO);
        String text = packetizeAndCheck(bc, fn, w, knob, passes, IntegerMasks.NEVER);
        if (passes != null) {
          Matcher m = MASK_OR.matcher(text);
          int n = 0;
          while (m.find()) n++;
          ors[knob.equals("true") ? 0 : 1] = n;
        }
      }
    }
    // (the shortcut is taken: fewer mask ors reach InstCombine than with the knob off; never more)
    assertTrue(ors[0] <= ors[1], () -> fn + " W=" + w + ": mask ors with the shortcut " + ors[0] + ", without " + ors[1]);
    if (fewerOrs) assertTrue(ors[0] < ors[1], () -> fn + " W=" + w + ": mask ors with the shortcut " + ors[0] + ", without " + ors[1]);
  }

  /**
   * Packetizes {@code fn} with the knob, clean-up passes and mask representation given, checks every lane
   * of 300 random packets against the scalar function, returns the packet function's text.
   */
  private static String packetizeAndCheck(byte[] bc, String fn, int w, String knob, String passes, IntegerMasks im) {
    String oldKnob = System.setProperty("packetizer.joinMaskShortcut", knob);
    String oldPasses = passes == null ? System.clearProperty("packetizer.cleanupPasses") : System.setProperty("packetizer.cleanupPasses", passes);
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.load(bc, "join_masks.c")) {
      String simd = fn + "_simd" + w;
      new Packetizer(PacketizerOptions.builder().width(w).params("vv").integerMasks(im).verifyEachPhase(true).build()).run(m, fn, simd);
      assertTrue(m.verify().isEmpty(), () -> m.verify().get());
      String text = m.function(simd).orElseThrow().print();
      try (DifferentialCheck c = DifferentialCheck.builder(m, fn, simd, w)
          .params(ParamSpec.varying(ValueDomain.ints(-1000, 3000)), ParamSpec.varying(ValueDomain.ints(-1000, 1000)))
          .build()) {
        CheckResult res = c.runMany(300, 16 + w);
        assertTrue(res.passed(), () -> fn + " W=" + w + " knob " + knob + " passes " + passes + " masks " + im + ": " + res.report());
        assertEquals(300 * w, res.lanesCompared());
      }
      return text;
    } finally {
      restore("packetizer.joinMaskShortcut", oldKnob);
      restore("packetizer.cleanupPasses", oldPasses);
    }
  }

  private static void restore(String key, String old) {
    if (old == null) System.clearProperty(key);
    else System.setProperty(key, old);
  }
}
