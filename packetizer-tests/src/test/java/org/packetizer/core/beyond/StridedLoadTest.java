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

/**
 * Loads with a constant stride of a few elements — fields of an array of structs at a consecutive
 * index ({@code beyond/aos.c}, plain {@code -O1}/{@code -O2}): one load of the span from the first
 * lane's element to the last lane's and a de-interleaving shuffle under a full mask, gathers under a
 * partial one. Differential at W=4, 8, 16, unmasked and masked, with every buffer ending at the last
 * lane's last element (the guard page right after it catches any read beyond the span); the linear
 * index's edge values put the last lane on the buffer's last struct.
 */
class StridedLoadTest {
  static final int MAX_I = 40;

  static ValueDomain index(int w) { return ValueDomain.ints(0, MAX_I - w); }

  @ParameterizedTest(name = "W={0} {1}")
  @MethodSource("org.packetizer.core.beyond.AtomicsTest#widthsAndLevels")
  void agreesWithScalar(int w, String opt) {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = PlainC.compile(ctx, "aos.c", opt)) {
      AtomicsTest.checkBoth(m, "aos_len", w, "l12", 10 + w, ParamSpec.linearPtr(ctx.floatType(), 3L * w, 12, Direction.IN));
      AtomicsTest.checkBoth(m, "aos_index", w, "ul", 20 + w, ParamSpec.uniformPtr(ctx.floatType(), 4L * MAX_I, Direction.IN),
          ParamSpec.linear(1, index(w)));
      AtomicsTest.checkBoth(m, "pairs", w, "ul", 30 + w, ParamSpec.uniformPtr(ctx.i16(), 2L * MAX_I, Direction.IN),
          ParamSpec.linear(1, index(w)));
      AtomicsTest.checkBoth(m, "dtriples", w, "ul", 40 + w, ParamSpec.uniformPtr(ctx.doubleType(), 3L * MAX_I, Direction.IN),
          ParamSpec.linear(1, index(w)));
      AtomicsTest.checkBoth(m, "aos_divergent", w, "ul", 50 + w, ParamSpec.uniformPtr(ctx.floatType(), 3L * MAX_I, Direction.IN),
          ParamSpec.linear(1, index(w)));
    }
  }

  /** Unmasked, the strided fields are span loads and shuffles: no gather left. */
  @Test
  void spanLoadsInsteadOfGathers() {
    for (String opt : List.of("-O1", "-O2")) {
      try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = PlainC.compile(ctx, "aos.c", opt)) {
        for (String fn : List.of("aos_index", "pairs", "dtriples")) {
          new Packetizer(PacketizerOptions.builder().width(8).params("ul").build()).run(m, fn, fn + "_s8");
          String ir = m.function(fn + "_s8").orElseThrow().print();
          assertEquals(0, PrivateArrayLayoutTest.calls(m, fn + "_s8", "masked.gather"), () -> opt + " " + fn + ir);
          assertTrue(ir.contains("shufflevector"), () -> opt + " " + fn + ir);
        }
      }
    }
  }
}
