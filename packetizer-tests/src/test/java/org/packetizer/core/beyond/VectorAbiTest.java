package org.packetizer.core.beyond;

import static org.junit.jupiter.api.Assertions.*;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.packetizer.core.api.PacketizationResult;
import org.packetizer.core.Packetizer;
import org.packetizer.core.api.PacketizerOptions;
import org.packetizer.core.ir.Function;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.ir.Opcode;
import org.packetizer.core.ir.TargetMachine;
import org.packetizer.core.ir.Value;
import org.packetizer.core.jit.Jit;
import org.packetizer.core.mapping.VectorAbi;
import org.packetizer.core.toolchain.BundledClang;

/**
 * The vector function ABI (beyond-the-thesis §2): packet functions published as
 * {@code _ZGVd{N,M}8<params>_<scalar>} with the {@code vector-function-abi-variant} call-site
 * attribute are called by LLVM's own loop vectorizer after {@code default<O3>}, and the vectorized
 * loops compute exactly what the scalar loops compute. Source: {@code beyond/vabi.c} (-mavx2).
 */
class VectorAbiTest {
  static final int W = 8;

  static void publish(LlvmModule m, String fn, String kinds) {
    for (boolean masked : new boolean[] {false, true}) {
      PacketizationResult r = new Packetizer(PacketizerOptions.builder().width(W).params(kinds).masked(masked)
          .vectorAbi(true).verifyEachPhase(true).build()).run(m, fn, null);
      String expected = "_ZGVd" + (masked ? "M" : "N") + W + kinds + "_" + fn;
      assertEquals(expected, r.packetFunction());
      // masked: the ABI's form (a mask vector of the characteristic type) around LLVM's <W x i1> form, which is announced
      String announced = masked ? expected + VectorAbi.IR_FORM_SUFFIX : expected;
      assertTrue(r.remarks().stream().anyMatch(x -> x.message().contains("published under the vector function ABI as "
          + expected + "(" + announced + ")")), r.remarks()::toString);
      if (masked) {
        assertEquals(ctx(m).i32().vectorOf(W), m.function(expected).orElseThrow().functionType().paramTypes().getLast());
        assertEquals(ctx(m).i1().vectorOf(W), m.function(announced).orElseThrow().functionType().paramTypes().getLast());
      }
    }
  }

  static org.packetizer.core.ir.LlvmContext ctx(LlvmModule m) { return m.context(); }

  /** The calls of {@code callee} inside {@code fn}. */
  static List<Value> callsTo(LlvmModule m, String fn, String callee) {
    return m.function(fn).orElseThrow().blocks().stream().flatMap(b -> b.instructions().stream())
        .filter(i -> i.opcode() == Opcode.CALL && i.calledFunction().map(f -> f.name().equals(callee)).orElse(false)).toList();
  }

  @Test
  void loopVectorizerCallsThePublishedPacketFunctions() {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = CSources.compile(ctx, "vabi.c", "-mavx2");
         LlvmModule reference = m.cloneModule()) {
      publish(m, "shade", "v");
      publish(m, "blend", "vu");
      publish(m, "ramp", "vl");
      // every call of the scalar function names both variants
      for (String loop : List.of("loop_all", "loop_if", "loop_fold")) {
        Value call = callsTo(m, loop, "shade").getFirst();
        assertEquals(List.of("_ZGVdN8v_shade(_ZGVdN8v_shade)", "_ZGVdM8v_shade(_ZGVdM8v_shade.ir)"), VectorAbi.entries(call));
      }
      assertTrue(m.verify().isEmpty(), () -> m.verify().get());

      try (TargetMachine tm = TargetMachine.create(BundledClang.TARGET_TRIPLE, "x86-64", "")) {
        m.runPasses("default<O3>", tm);
        reference.runPasses("default<O3>", tm);
      }
      // LLVM's loop vectorizer now calls the packet functions: the unmasked variant for unconditional
      // calls, the masked one for the call under an if
      assertFalse(callsTo(m, "loop_all", "_ZGVdN8v_shade").isEmpty(), () -> fn(m, "loop_all"));
      assertFalse(callsTo(m, "loop_if", "_ZGVdM8v_shade.ir").isEmpty(), () -> fn(m, "loop_if"));
      // folding the tail into a masked iteration needs the masked variant for the unconditional call too
      assertFalse(callsTo(m, "loop_fold", "_ZGVdM8v_shade.ir").isEmpty(), () -> fn(m, "loop_fold"));
      assertTrue(callsTo(m, "loop_fold", "shade").isEmpty(), () -> fn(m, "loop_fold"));
      assertFalse(callsTo(m, "loop_uniform", "_ZGVdN8vu_blend").isEmpty(), () -> fn(m, "loop_uniform"));
      assertFalse(callsTo(m, "loop_linear", "_ZGVdN8vl_ramp").isEmpty(), () -> fn(m, "loop_linear"));
      // without the attribute the same pipeline keeps scalar calls only
      assertTrue(callsTo(reference, "loop_all", "_ZGVdN8v_shade").isEmpty());
      assertFalse(callsTo(reference, "loop_all", "shade").isEmpty());

      try (Jit vectorized = Jit.host(); Jit scalar = Jit.host(); Arena arena = Arena.ofConfined()) {
        vectorized.addModule(m);
        scalar.addModule(reference);
        SplittableRandom rnd = new SplittableRandom(7);
        for (int n : new int[] {0, 1, 5, 8, 13, 16, 64, 99}) {
          float[] in = new float[n + 1];
          for (int i = 0; i < in.length; i++) in[i] = (float) (rnd.nextDouble() * 20 - 8);
          for (String loop : List.of("loop_all", "loop_if", "loop_fold", "loop_uniform", "loop_linear")) {
            float[] a = run(vectorized, arena, loop, in, n);
            float[] b = run(scalar, arena, loop, in, n);
            for (int i = 0; i < a.length; i++) {
              int ii = i;
              assertEquals(Float.floatToRawIntBits(b[i]), Float.floatToRawIntBits(a[i]),
                  () -> loop + " n=" + n + " element " + ii + ": scalar " + b[ii] + ", vectorized " + a[ii]);
            }
          }
        }
      }
    }
  }

  /** Runs {@code loop(out, in, [k,] n)} on a copy of {@code in}; out starts as a sentinel pattern (one extra element). */
  static float[] run(Jit jit, Arena arena, String loop, float[] in, int n) {
    MemorySegment inSeg = arena.allocateFrom(ValueLayout.JAVA_FLOAT, in);
    MemorySegment outSeg = arena.allocate(ValueLayout.JAVA_FLOAT, in.length);
    for (int i = 0; i < in.length; i++) outSeg.setAtIndex(ValueLayout.JAVA_FLOAT, i, -1234.5f);
    if (loop.equals("loop_uniform")) jit.function(loop).call(outSeg, inSeg, 0.75f, n);
    else jit.function(loop).call(outSeg, inSeg, n);
    return outSeg.toArray(ValueLayout.JAVA_FLOAT);
  }

  static String fn(LlvmModule m, String name) {
    Function f = m.function(name).orElseThrow();
    return f.print();
  }

  /**
   * With the loop wrapper (W above the hardware width) the W-wide wrapper is what callers see: it is
   * the published and announced variant; the internal N-wide function is not announced.
   */
  @Test
  void theLoopWrapperIsPublishedNotItsNWideFunction() {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = CSources.compile(ctx, "vabi.c", "-mavx2")) {
      PacketizationResult r = new Packetizer(PacketizerOptions.builder().width(16).params("v").vectorAbi(true)
          .hardwareWidth(4).wrapperMode(org.packetizer.core.api.WrapperMode.LOOP).build()).run(m, "shade", null);
      String name = r.packetFunction();
      assertTrue(name.startsWith("_ZGV") && name.endsWith("N16v_shade"), name);
      assertTrue(m.function(name + ".n4").isPresent(), "the N-wide function");
      Value call = callsTo(m, "loop_all", "shade").getFirst();
      // 16 floats need two ymm registers: the ABI returns them through memory, LLVM's form is announced
      assertEquals(List.of(name + "(" + name + ".ir)"), VectorAbi.entries(call));
      assertTrue(r.remarks().stream().anyMatch(x -> x.message().contains("published under the vector function ABI as "
          + name + "(" + name + ".ir)")), r.remarks()::toString);
      assertTrue(m.function(name).orElseThrow().returnType().isVoid(), "the ABI's form returns through memory");
      assertTrue(m.verify().isEmpty(), () -> m.verify().get());
    }
  }

  @Test
  void publishingNeedsVectorAbiParameterTokens() {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = CSources.compile(ctx, "shapes.c")) {
      String before = m.toIr();
      var e = assertThrows(org.packetizer.core.api.PacketizationException.class, () -> new Packetizer(PacketizerOptions.builder()
          .width(4).vectorAbi(true).build()).run(m, "scale", null));
      assertTrue(e.getMessage().contains("struct-of-arrays"), e.getMessage());
      var noName = assertThrows(org.packetizer.core.api.PacketizationException.class, () -> new Packetizer(PacketizerOptions.builder()
          .width(4).build()).run(m, "scale", null));
      assertTrue(noName.getMessage().contains("vectorAbi(true)"), noName.getMessage());
      assertEquals(before, m.toIr());
      // an explicit name is kept; the attribute maps the ABI name to it
      new Packetizer(PacketizerOptions.builder().width(4).params("l4u").vectorAbi(true).build()).run(m, "scale", "scale4");
      assertTrue(m.function("scale4").isPresent());
    }
  }
}
