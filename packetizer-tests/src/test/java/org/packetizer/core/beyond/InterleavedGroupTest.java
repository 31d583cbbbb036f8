package org.packetizer.core.beyond;

import static org.junit.jupiter.api.Assertions.*;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.packetizer.core.Packetizer;
import org.packetizer.core.api.PacketizerOptions;
import org.packetizer.core.check.ParamSpec;
import org.packetizer.core.check.ParamSpec.Direction;
import org.packetizer.core.check.ValueDomain;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.ir.Opcode;

/**
 * Interleaved groups ({@code beyond/interleaved.c}, plain {@code -O1}/{@code -O2}): loads of several
 * fields of the same structs at a consecutive index share one span load (a shuffle per field); stores
 * of every field of the structs, one after another, become one interleaving shuffle and one wide
 * store; stores with gaps and stores under a partial mask stay scatters. Differential at W=4, 8, 16,
 * unmasked and masked; the output buffers are compared byte for byte (a wide store writing a gap
 * field would change it) and end at the last lane's last struct, before a guard page.
 */
class InterleavedGroupTest {
  static final int MAX_I = 40;

  static ValueDomain index(int w) { return ValueDomain.ints(0, MAX_I - w); }

  @ParameterizedTest(name = "W={0} {1}")
  @MethodSource("org.packetizer.core.beyond.AtomicsTest#widthsAndLevels")
  void agreesWithScalar(int w, String opt) {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = PlainC.compile(ctx, "interleaved.c", opt)) {
      for (String fn : List.of("rotate", "divergent")) {
        AtomicsTest.checkBoth(m, fn, w, "uul", 10 + w, ParamSpec.uniformPtr(ctx.floatType(), 3L * MAX_I, Direction.IN),
            ParamSpec.uniformPtr(ctx.floatType(), 3L * MAX_I, Direction.INOUT), ParamSpec.linear(1, index(w)));
      }
      AtomicsTest.checkBoth(m, "gaps", w, "uul", 20 + w, ParamSpec.uniformPtr(ctx.floatType(), 4L * MAX_I, Direction.IN),
          ParamSpec.uniformPtr(ctx.floatType(), 4L * MAX_I, Direction.INOUT), ParamSpec.linear(1, index(w)));
      AtomicsTest.checkBoth(m, "cmul", w, "uuul", 30 + w, ParamSpec.uniformPtr(ctx.doubleType(), 2L * MAX_I, Direction.IN),
          ParamSpec.uniformPtr(ctx.doubleType(), 2L * MAX_I, Direction.IN),
          ParamSpec.uniformPtr(ctx.doubleType(), 2L * MAX_I, Direction.INOUT), ParamSpec.linear(1, index(w)));
      for (String fn : List.of("big4", "big1")) {
        AtomicsTest.checkBoth(m, fn, w, "ul", 50 + w, ParamSpec.uniformPtr(ctx.floatType(), 16L * MAX_I, Direction.IN),
            ParamSpec.linear(1, index(w)));
      }
      for (String fn : List.of("reversed", "reread")) {
        AtomicsTest.checkBoth(m, fn, w, "uvl", 60 + w, ParamSpec.uniformPtr(ctx.floatType(), 3L * MAX_I, Direction.INOUT),
            ParamSpec.varying(), ParamSpec.linear(1, index(w)));
      }
      AtomicsTest.checkBoth(m, "swizzle", w, "uul", 40 + w, ParamSpec.uniformPtr(ctx.i8(), 4L * MAX_I, Direction.IN),
          ParamSpec.uniformPtr(ctx.i8(), 4L * MAX_I, Direction.INOUT), ParamSpec.linear(1, index(w)));
    }
  }

  /**
   * Unmasked: the three fields of {@code rotate} are one load and one store of W structs (no gather,
   * no scatter); {@code cmul}'s complex numbers likewise (at {@code -O1}; at {@code -O2} the SLP vectorizer's
   * {@code <2 x double>} load of one operand is a third load); {@code gaps} keeps its scatters (its
   * stores leave fields unwritten) but shares one load; {@code divergent}'s stores are under a
   * partial mask: scatters. At a stride of 16 floats, four fields read share one span; one field
   * alone is a gather or per-lane loads (measured faster at that stride).
   */
  @Test
  void groupsShareLoadsAndStores() {
    for (String opt : List.of("-O1", "-O2")) {
      try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = PlainC.compile(ctx, "interleaved.c", opt)) {
        for (int w : new int[] {4, 8, 16}) {
          String ctxt = opt + " W=" + w;
          String r = packetize(m, "rotate", w, "uul");
          assertEquals(0, PrivateArrayLayoutTest.calls(m, r, "masked.gather"), () -> ctxt + print(m, r));
          assertEquals(0, PrivateArrayLayoutTest.calls(m, r, "masked.scatter"), () -> ctxt + print(m, r));
          assertEquals(1, vectorAccesses(m, r, Opcode.LOAD), () -> ctxt + print(m, r));
          assertEquals(1, vectorAccesses(m, r, Opcode.STORE), () -> ctxt + print(m, r));
          String c = packetize(m, "cmul", w, "uuul");
          assertEquals(0, PrivateArrayLayoutTest.calls(m, c, "masked.scatter"), () -> ctxt + print(m, c));
          assertEquals(0, PrivateArrayLayoutTest.calls(m, c, "masked.gather"), () -> ctxt + print(m, c));
          // (-O2's SLP vectorizer reads b[i] as one <2 x double> and b[i].im again: a third load)
          if (opt.equals("-O1")) assertEquals(2, vectorAccesses(m, c, Opcode.LOAD), () -> ctxt + print(m, c));
          assertEquals(1, vectorAccesses(m, c, Opcode.STORE), () -> ctxt + print(m, c));
          String g = packetize(m, "gaps", w, "uul");
          assertEquals(1, vectorAccesses(m, g, Opcode.LOAD), () -> ctxt + print(m, g));
          assertEquals(0, vectorAccesses(m, g, Opcode.STORE), () -> ctxt + print(m, g));
          assertEquals(2, PrivateArrayLayoutTest.calls(m, g, "masked.scatter"), () -> ctxt + print(m, g));
          String b4 = packetize(m, "big4", w, "ul");
          assertEquals(0, PrivateArrayLayoutTest.calls(m, b4, "masked.gather"), () -> ctxt + print(m, b4));
          assertEquals(1, vectorAccesses(m, b4, Opcode.LOAD), () -> ctxt + print(m, b4));
          String b1 = packetize(m, "big1", w, "ul");
          // (the gather, or per-lane loads where the target's gathers are slow: no span load)
          assertEquals(0, vectorAccesses(m, b1, Opcode.LOAD), () -> ctxt + print(m, b1));
          String rv = packetize(m, "reversed", w, "uvl");
          // (-O2's SLP vectorizer stores y and z as one <2 x float>: a member of another type, no group)
          if (opt.equals("-O1")) assertEquals(1, vectorAccesses(m, rv, Opcode.STORE), () -> ctxt + print(m, rv));
          String d = packetize(m, "divergent", w, "uul");
          assertEquals(0, vectorAccesses(m, d, Opcode.STORE), () -> ctxt + print(m, d));
        }
      }
    }
  }

  static String packetize(LlvmModule m, String fn, int w, String kinds) {
    String name = fn + "_g" + w;
    new Packetizer(PacketizerOptions.builder().width(w).params(kinds).verifyEachPhase(true).build()).run(m, fn, name);
    return name;
  }

  static String print(LlvmModule m, String fn) { return "\n" + m.function(fn).orElseThrow().print(); }

  /** Plain (unmasked) loads or stores of a vector value in {@code fn}. */
  static long vectorAccesses(LlvmModule m, String fn, Opcode op) {
    return AtomicsTest.instructions(m, fn, op).stream()
        .filter(i -> (op == Opcode.LOAD ? i.type() : i.operand(0).type()).isVector()).count();
  }
}
