package org.packetizer.core.beyond;

import static org.junit.jupiter.api.Assertions.*;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.packetizer.core.Packetizer;
import org.packetizer.core.api.PacketizerOptions;
import org.packetizer.core.api.Remark;
import org.packetizer.core.check.ParamSpec;
import org.packetizer.core.check.ValueDomain;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.ir.Opcode;
import org.packetizer.core.ir.Value;

/**
 * Private arrays ({@code beyond/private_arrays.c}, plain {@code -O1} and {@code -O2}): fixed-size
 * allocas whose address does not escape are laid out interleaved (lane k's copy of the element at
 * scalar offset o at W*o + k*s), the others keep one block per lane. Differential at W=4, 8, 16,
 * unmasked and masked, with guard pages: a uniform-index pricer loop, varying-index reads and
 * divergent writes, an array of structs, memset under a divergent fill, an address passed to a
 * helper and a byte-wise view (per-lane layout), doubles indexed per lane. Structure: the pricer's
 * array is interleaved and its uniform-index accesses are vector loads/stores (before: one block per
 * lane, every V[k] a gather or scatter — checked by {@link #layoutsChosen}).
 */
class PrivateArrayLayoutTest {
  static final ParamSpec F = ParamSpec.varying(ValueDomain.floats(-100, 100));
  static final ParamSpec I = ParamSpec.varying(ValueDomain.ints(-5000, 5000));

  static Stream<Arguments> widthsAndLevels() {
    List<Arguments> out = new ArrayList<>();
    for (int w : new int[] {4, 8, 16}) for (String o : new String[] {"-O1", "-O2"}) out.add(Arguments.of(w, o));
    return out.stream();
  }

  @ParameterizedTest(name = "W={0} {1}")
  @MethodSource("widthsAndLevels")
  void agreesWithScalar(int w, String opt) {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = PlainC.compile(ctx, "private_arrays.c", opt)) {
      AtomicsTest.checkBoth(m, "binomial", w, "vvv", 10 + w, F, F, ParamSpec.varying(ValueDomain.ints(0, 80)));
      AtomicsTest.checkBoth(m, "histo", w, "vv", 20 + w, I, I);
      AtomicsTest.checkBoth(m, "structs", w, "vv", 30 + w, F, I);
      AtomicsTest.checkBoth(m, "zeroed", w, "vv", 40 + w, I, I);
      AtomicsTest.checkBoth(m, "escapes", w, "vv", 50 + w, I, I);
      AtomicsTest.checkBoth(m, "bytes", w, "vv", 60 + w, I, I);
      AtomicsTest.checkBoth(m, "lookup", w, "vv", 70 + w, ParamSpec.varying(ValueDomain.floats(-100, 100)), I);
    }
  }

  /** The layout each alloca got, from the remarks; and the pricer's array accesses with a uniform steps count. */
  @ParameterizedTest(name = "W={0} {1}")
  @MethodSource("widthsAndLevels")
  void layoutsChosen(int w, String opt) {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = PlainC.compile(ctx, "private_arrays.c", opt)) {
      for (String fn : List.of("binomial", "histo", "structs", "zeroed", "lookup", "escapes", "bytes")) {
        List<Remark> remarks = new ArrayList<>();
        String kinds = fn.equals("binomial") ? "vvu" : "vv";
        new Packetizer(PacketizerOptions.builder().width(w).params(kinds).remarks(remarks::add).build()).run(m, fn, fn + "_l" + w);
        boolean interleaved = remarks.stream().anyMatch(r -> r.message().contains("interleaved layout"));
        boolean perLane = remarks.stream().anyMatch(r -> r.message().contains("one block per lane, because"));
        boolean expectPerLane = fn.equals("escapes") || fn.equals("bytes");
        assertEquals(!expectPerLane, interleaved, fn + ": " + remarks);
        assertEquals(expectPerLane, perLane, fn + ": " + remarks);
      }
      // steps uniform: every V[k] access is a vector access; no gather or scatter is left
      String ir = m.function("binomial_l" + w).orElseThrow().print();
      assertEquals(0, calls(m, "binomial_l" + w, "masked.gather") + calls(m, "binomial_l" + w, "masked.scatter"), ir);
    }
  }

  static long calls(LlvmModule m, String fn, String name) {
    long n = 0;
    for (var b : m.function(fn).orElseThrow().blocks()) {
      for (Value i : b.instructions()) if (i.opcode() == Opcode.CALL && i.print().contains(name)) n++;
    }
    return n;
  }
}
