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
 * The lane bits of a divergent loop's header mask carried as an integer phi ({@code MaskDemotion},
 * issue 16: strhash W4 with random inputs was 0.97-1.02x over scalar; the header converted its
 * mask again every iteration, lane 0 through pxor/pcmpgtd/movd). Foreign code: {@code beyond/mask_bits.c}
 * compiled by the bundled clang with plain -O1/-O2 (clang -O2 unrolls the byte loops). Differential at
 * W=4, 8, 16, unmasked and masked, on x86-64-v2 and haswell (integer masks) and znver4 (mask registers:
 * not rewritten), every buffer between guard pages. Structure: the header's bits are a phi whose latch
 * value is the any-lane test's bitcast, and no mask is bitcast to bits in the header.
 */
class MaskBitsPhiTest {
  @ParameterizedTest(name = "W={0} {1} {2}")
  @MethodSource("org.packetizer.core.beyond.LaneLoadsTest#cases")
  void agreesWithScalar(int w, String cpu, String opt) {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = PlainC.compile(ctx, "mask_bits.c", opt)) {
      TableLookupTest.check(m, "fnv_bytes", w, cpu, "uvv", 10 + w, ParamSpec.uniformPtr(ctx.i8(), 128, Direction.IN),
          ParamSpec.varying(ValueDomain.ints(0, 63)), ParamSpec.varying(ValueDomain.ints(-2, 64)));
      TableLookupTest.check(m, "run_length", w, cpu, "uvv", 20 + w, ParamSpec.uniformPtr(ctx.i8(), 96, Direction.IN),
          ParamSpec.varying(ValueDomain.ints(0, 63)), ParamSpec.varying(ValueDomain.ints(0, 32)));
      TableLookupTest.check(m, "nested_rows", w, cpu, "uvv", 30 + w, ParamSpec.uniformPtr(ctx.i16(), 64, Direction.IN),
          ParamSpec.varying(ValueDomain.ints(-1, 8)), ParamSpec.varying(ValueDomain.ints(-1, 8)));
      TableLookupTest.check(m, "copy_bumped", w, cpu, "uuvv", 40 + w, ParamSpec.uniformPtr(ctx.i8(), 128, Direction.IN),
          ParamSpec.uniformPtr(ctx.i8(), 128, Direction.INOUT), ParamSpec.varying(ValueDomain.ints(0, 63)), ParamSpec.varying(ValueDomain.ints(0, 64)));
      TableLookupTest.check(m, "fnv_from", w, cpu, "uuvv", 50 + w, ParamSpec.uniformPtr(ctx.i8(), 128, Direction.IN),
          ParamSpec.uniform(ValueDomain.ints(0, 5)), ParamSpec.varying(ValueDomain.ints(0, 63)), ParamSpec.varying(ValueDomain.ints(-3, 64)));
    }
  }

  /**
   * The loop counter compared with each lane's length is a vector phi stepped by add (and umin, the
   * clamp of the 32-bit compare) on x86-64-v2 W4 and haswell W8, -O1: no broadcast of the scalar
   * counter in the loop (before: umin, trunc, insertelement and shufflevector every iteration).
   */
  @Test
  void counterIsAVector() {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = PlainC.compile(ctx, "mask_bits.c", "-O1")) {
      for (String wc : List.of("4 x86-64-v2", "8 haswell")) {
        int w = Integer.parseInt(wc.split(" ")[0]);
        String cpu = wc.split(" ")[1];
        // (fnv_from's signed 64-bit compare is not narrowed: its broadcast is of i64, left alone)
        for (String fn : List.of("fnv_bytes")) {
          String name = fn + "_c" + w;
          // (byte windows off: this test finds the loop by its per-lane loads; ByteWindowTest has the windows)
          ByteWindowTest.withKnob("false", () -> new Packetizer(PacketizerOptions.builder().width(w).params(fn.equals("fnv_from") ? "uuvv" : "uvv").targetCpu(cpu).build()).run(m, fn, name));
          String f = m.function(name).orElseThrow().print();
          int sel = f.indexOf("ptr @__packetizer.inactive.lane", f.indexOf("define <"));
          String loop = f.substring(f.lastIndexOf("\n\n", sel) + 2, f.indexOf("\n\n", sel));
          assertEquals(1, TableLookupTest.count(loop, "call <" + w + " x i32> @llvm.umin.v" + w + "i32"), f);
          // the stepped counter feeds a phi of the loop back
          java.util.regex.Matcher um = java.util.regex.Pattern.compile("(%[\\w.]+) = call <" + w + " x i32> @llvm.umin").matcher(loop);
          assertTrue(um.find(), f);
          String back = "[ " + um.group(1) + ", %";
          assertEquals(1, loop.lines().filter(l -> l.contains(" = phi <" + w + " x i32> ") && l.contains(back)).count(), f);
          assertEquals(0, TableLookupTest.count(loop, "@llvm.umin.i64"), f);
          assertEquals(0, TableLookupTest.count(loop, "shufflevector"), f);
        }
      }
    }
  }

  /** W4 on x86-64-v2 and W8 on haswell, -O1 (a loop of one byte per iteration): the bits phi, fed by the latch's any-lane bits. */
  @Test
  void bitsArePhis() {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = PlainC.compile(ctx, "mask_bits.c", "-O1")) {
      for (String wc : List.of("4 x86-64-v2", "8 haswell")) {
        int w = Integer.parseInt(wc.split(" ")[0]);
        String cpu = wc.split(" ")[1];
        String name = "fnv_" + w;
        // (byte windows off: this test finds the loop by its per-lane loads; ByteWindowTest has the windows)
        ByteWindowTest.withKnob("false", () -> new Packetizer(PacketizerOptions.builder().width(w).params("uvv").targetCpu(cpu).build()).run(m, "fnv_bytes", name));
        String f = m.function(name).orElseThrow().print();
        // the loop's block: the one with the per-lane loads (blocks are separated by blank lines)
        int sel = f.indexOf("ptr @__packetizer.inactive.lane", f.indexOf("define <"));
        String header = f.substring(f.lastIndexOf("\n\n", sel) + 2, f.indexOf("\n\n", sel));
        assertEquals(1, TableLookupTest.count(header, " = phi i" + w + " ["), f);
        assertEquals(0, TableLookupTest.count(header.substring(0, header.indexOf("load i8")), "bitcast <" + w + " x i1>"), f);
        assertEquals(w, TableLookupTest.count(header, "ptr @__packetizer.inactive.lane"), f);
        // the latch's bits feed both the any-lane test and the phi: one bitcast of a mask in the loop
        assertEquals(1, TableLookupTest.count(header, "bitcast <" + w + " x i1>"), f);
      }
    }
  }
}
