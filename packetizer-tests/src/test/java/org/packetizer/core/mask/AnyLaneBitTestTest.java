package org.packetizer.core.mask;

import static org.junit.jupiter.api.Assertions.*;

import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.packetizer.core.ir.Function;
import org.packetizer.core.ir.IrBuilder;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.ir.Type;
import org.packetizer.core.ir.Value;

/**
 * {@link MaskOps#any} in its bit-test form (issue 16, thirteenth round; knob {@code
 * packetizer.anyLaneBitTest}): the emitter writes the any-lane test as InstCombine canonicalizes
 * {@code llvm.vector.reduce.or} of an i1 vector, so the clean-up has nothing to rewrite. Checked by
 * LLVM itself: InstCombine leaves the bit test as it is, turns the reduction into the same text, and the
 * two agree in every lane pattern (constant-folded per mask).
 */
class AnyLaneBitTestTest {
  private static final String INSTCOMBINE = "instcombine<no-verify-fixpoint>";

  /** {@code define i1 @name(<W x i1> %m)} returning {@code masks.any(%m)}. */
  private static Function anyOf(LlvmModule m, LlvmContext ctx, String name, int w, boolean bitTest) {
    Type mask = ctx.i1().vectorOf(w);
    Function f = m.addFunction(name, ctx.functionType(ctx.i1(), List.of(mask), false));
    try (IrBuilder b = new IrBuilder(ctx)) {
      b.atEnd(f.appendBlock("entry"));
      b.ret(new MaskOps(m, b, w, bitTest).any(f.param(0), "any"));
    }
    return f;
  }

  private static String body(Function f) {
    String s = f.print();
    return s.substring(s.indexOf('{'));
  }

  @ParameterizedTest(name = "W={0}")
  @ValueSource(ints = {2, 4, 8, 16, 32, 64})
  void theBitTestIsWhatInstCombineMakesOfTheReduction(int w) {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.createModule("any")) {
      Function bits = anyOf(m, ctx, "bits", w, true);
      Function reduce = anyOf(m, ctx, "reduce", w, false);
      assertTrue(m.verify().isEmpty(), () -> m.verify().orElse(""));
      String emitted = body(bits);
      assertFalse(emitted.contains("call"), emitted);
      assertTrue(emitted.contains("bitcast <" + w + " x i1> %0 to i" + w), emitted);
      assertTrue(body(reduce).contains("@llvm.vector.reduce.or.v" + w + "i1"), body(reduce));
      LlvmModule.runPasses(bits, INSTCOMBINE, null);
      LlvmModule.runPasses(reduce, INSTCOMBINE, null);
      assertEquals(emitted, body(bits), "InstCombine leaves the bit test unchanged");
      assertEquals(body(bits), body(reduce), "the reduction canonicalizes to the same test");
    }
  }

  @ParameterizedTest(name = "W={0}")
  @ValueSource(ints = {4, 8})
  void theBitTestAnswersAsTheReductionForEveryMask(int w) {
    // every mask of W lanes as a constant: after InstCombine both forms return the same constant, true
    // unless no lane is set
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.createModule("any")) {
      for (int set = 1; set < (1 << w) - 1; set++) {  // (all-false and all-true never reach the test)
        boolean[] results = new boolean[2];
        for (int form = 0; form < 2; form++) {
          Function f = m.addFunction("c" + set + "_" + form, ctx.functionType(ctx.i1(), List.of(), false));
          try (IrBuilder b = new IrBuilder(ctx)) {
            b.atEnd(f.appendBlock("entry"));
            Value[] lanes = new Value[w];
            for (int i = 0; i < w; i++) lanes[i] = b.i1(((set >> i) & 1) != 0);
            b.ret(new MaskOps(m, b, w, form == 0).any(b.constVector(List.of(lanes)), "any"));
          }
          LlvmModule.runPasses(f, INSTCOMBINE, null);
          String body = body(f);
          assertTrue(body.contains("ret i1 true") || body.contains("ret i1 false"), body);
          results[form] = body.contains("ret i1 true");
        }
        assertEquals(results[1], results[0], "mask " + Integer.toBinaryString(set));
        assertTrue(results[0], "mask " + Integer.toBinaryString(set));
      }
    }
  }
}
