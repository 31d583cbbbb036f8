package org.packetizer.core.beyond;

import static org.junit.jupiter.api.Assertions.*;

import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;
import org.packetizer.core.api.PacketizationException;
import org.packetizer.core.api.PacketizationResult;
import org.packetizer.core.Packetizer;
import org.packetizer.core.api.PacketizerOptions;
import org.packetizer.core.api.ParamKind;
import org.packetizer.core.check.CheckResult;
import org.packetizer.core.check.DifferentialCheck;
import org.packetizer.core.check.Inputs;
import org.packetizer.core.check.ParamSpec;
import org.packetizer.core.check.ParamSpec.Direction;
import org.packetizer.core.check.ValueDomain;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.ir.Type;

/**
 * Parameter shapes with OpenMP {@code declare simd} semantics (beyond-the-thesis §1): uniform and
 * linear parameters make accesses consecutive, so they become plain (or masked) vector loads and
 * stores — no gather, no scatter — and an alignment promise reaches the emitted accesses. Every case is
 * also checked lane by lane against the scalar function. Kernels: {@code beyond/shapes.c}.
 */
class ParamShapesTest {
  static final int RUNS = 40;

  static PacketizationResult packetize(LlvmModule m, String fn, String simd, int w, String kinds, boolean masked) {
    return new Packetizer(PacketizerOptions.builder().width(w).params(kinds).masked(masked).verifyEachPhase(true).build())
        .run(m, fn, simd);
  }

  static String ir(LlvmModule m, String fn) { return m.function(fn).orElseThrow().print(); }

  static void assertNoGatherScatter(PacketizationResult r, String ir) {
    assertEquals(0, r.gathers(), () -> "gathers in " + r.summary());
    assertEquals(0, r.scatters(), () -> "scatters in " + r.summary());
    assertEquals(0, r.cascades(), () -> "cascades in " + r.summary());
    assertFalse(ir.contains("llvm.masked.gather") || ir.contains("llvm.masked.scatter"), ir);
  }

  static void check(DifferentialCheck c, long seed) {
    CheckResult res = c.runMany(RUNS, seed);
    assertTrue(res.passed(), res::report);
  }

  @ParameterizedTest(name = "W={0}")
  @ValueSource(ints = {4, 8, 16})
  void uniformPointersLinearIndexGiveVectorAccesses(int w) {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = CSources.compile(ctx, "shapes.c")) {
      PacketizationResult r = packetize(m, "saxpy", "saxpy_v", w, "uuul", false);
      String ir = ir(m, "saxpy_v");
      assertNoGatherScatter(r, ir);
      assertEquals(2, r.vectorLoads(), r::summary);
      assertEquals(1, r.vectorStores(), r::summary);
      assertTrue(ir.contains("load <" + w + " x float>"), ir);
      assertTrue(ir.contains("store <" + w + " x float>"), ir);
      Type f = ctx.floatType();
      try (DifferentialCheck c = DifferentialCheck.builder(m, "saxpy", "saxpy_v", w).params(
          ParamSpec.uniformPtr(f, 64, Direction.INOUT), ParamSpec.uniformPtr(f, 64, Direction.IN),
          ParamSpec.uniform(ValueDomain.floats(-4, 4)), ParamSpec.linear(1, ValueDomain.ints(0, 15))).build()) {
        check(c, 11 + w);
      }
    }
  }

  @ParameterizedTest(name = "W={0}")
  @ValueSource(ints = {4, 8, 16})
  void linearPointerGivesVectorAccesses(int w) {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = CSources.compile(ctx, "shapes.c")) {
      PacketizationResult r = packetize(m, "scale", "scale_v", w, "l4u", false);
      String ir = ir(m, "scale_v");
      assertNoGatherScatter(r, ir);
      assertEquals(1, r.vectorLoads(), r::summary);
      assertEquals(1, r.vectorStores(), r::summary);
      try (DifferentialCheck c = DifferentialCheck.builder(m, "scale", "scale_v", w).params(
          ParamSpec.linearPtr(ctx.floatType(), 16, 4, Direction.INOUT), ParamSpec.uniform(ValueDomain.floats(-4, 4))).build()) {
        check(c, 21 + w);
      }
    }
  }

  /** Divergent control around consecutive accesses in a masked packet function: masked vector load/store. */
  @ParameterizedTest(name = "W={0}")
  @ValueSource(ints = {4, 8, 16})
  void maskedConsecutiveAccessesUnderDivergence(int w) {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = CSources.compile(ctx, "shapes.c")) {
      PacketizationResult r = packetize(m, "clamp", "clamp_m", w, "ulu", true);
      String ir = ir(m, "clamp_m");
      assertNoGatherScatter(r, ir);
      assertTrue(ir.contains("llvm.masked.store"), ir);
      try (DifferentialCheck c = DifferentialCheck.builder(m, "clamp", "clamp_m", w).params(
          ParamSpec.uniformPtr(ctx.floatType(), 64, Direction.INOUT), ParamSpec.linear(1, ValueDomain.ints(0, 15)),
          ParamSpec.uniform(ValueDomain.floats(-1, 1)), ParamSpec.mask()).build()) {
        check(c, 31 + w);
      }
    }
  }

  /**
   * A linear index plus a uniform offset stays consecutive; a stride of two elements under a full mask
   * is one load of the span and a de-interleaving shuffle (a gather before issue 16).
   */
  @ParameterizedTest(name = "W={0}")
  @ValueSource(ints = {4, 8, 16})
  void uniformOffsetStaysConsecutiveStrideTwoGathers(int w) {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = CSources.compile(ctx, "shapes.c")) {
      PacketizationResult r = packetize(m, "offset_sum", "offset_sum_v", w, "ulu", false);
      assertNoGatherScatter(r, ir(m, "offset_sum_v"));
      assertEquals(2, r.vectorLoads(), r::summary);
      PacketizationResult s = packetize(m, "strided", "strided_v", w, "ul", false);
      assertEquals(0, s.gathers(), s::summary);
      assertEquals(1, s.vectorLoads(), s::summary);
      Type i32 = ctx.i32();
      try (DifferentialCheck c = DifferentialCheck.builder(m, "offset_sum", "offset_sum_v", w).params(
          ParamSpec.uniformPtr(i32, 64, Direction.IN), ParamSpec.linear(1, ValueDomain.ints(0, 15)),
          ParamSpec.uniform(ValueDomain.ints(0, 8))).build();
           DifferentialCheck d = DifferentialCheck.builder(m, "strided", "strided_v", w).params(
          ParamSpec.uniformPtr(ctx.floatType(), 64, Direction.IN), ParamSpec.linear(1, ValueDomain.ints(0, 15))).build()) {
        check(c, 41 + w);
        check(d, 51 + w);
      }
    }
  }

  /**
   * Alignment: uniform pointers aligned to 64 bytes indexed by a linear index whose base is a multiple
   * of 16 ({@code ua64ua64ula16}): lane 0's address is a multiple of 64, and the vector accesses say so.
   */
  @ParameterizedTest(name = "W={0}")
  @ValueSource(ints = {4, 8, 16})
  void alignmentReachesTheVectorAccesses(int w) {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = CSources.compile(ctx, "shapes.c")) {
      PacketizationResult plain = packetize(m, "saxpy", "saxpy_v", w, "uuul", false);
      PacketizationResult aligned = packetize(m, "saxpy", "saxpy_a", w, "ua64ua64ula16", false);
      assertEquals("ua64ua64ula16", aligned.signature());
      assertFalse(ir(m, "saxpy_v").contains("align 64"), () -> ir(m, "saxpy_v"));
      String ir = ir(m, "saxpy_a");
      assertNoGatherScatter(aligned, ir);
      assertTrue(ir.contains("load <" + w + " x float>, ptr %") && ir.matches("(?s).*load <" + w + " x float>, ptr %[^,]+, align 64.*"), ir);
      assertTrue(ir.matches("(?s).*store <" + w + " x float> %[^,]+, ptr %[^,]+, align 64.*"), ir);
      // the promise holds for bases 0 and 16 (buffers are 64-byte aligned): same results as the scalar code
      Type f = ctx.floatType();
      try (DifferentialCheck c = DifferentialCheck.builder(m, "saxpy", "saxpy_a", w).params(
          ParamSpec.uniformPtr(f, 64, Direction.INOUT), ParamSpec.uniformPtr(f, 64, Direction.IN),
          ParamSpec.uniform(ValueDomain.floats(-4, 4)), ParamSpec.linear(1, ValueDomain.ints(0, 0))).build()) {
        for (int base : new int[] {0, 16}) {
          for (long seed = 0; seed < 8; seed++) {
            CheckResult res = c.run(Inputs.of(seed, null, null, 1.25f - seed, base));
            assertTrue(res.passed(), res::report);
          }
        }
      }
      assertTrue(plain.vectorLoads() == aligned.vectorLoads());
    }
  }

  /**
   * A linear pointer carried around a loop with a per-lane trip count: lanes that left keep their old
   * pointer, so lane 0's value may be stale while the others go on (the consecutive accesses must
   * not take their address from lane 0 then).
   */
  @ParameterizedTest(name = "W={0}")
  @ValueSource(ints = {4, 8, 16})
  void linearPointerInADivergentLoop(int w) {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = CSources.compile(ctx, "shapes.c")) {
      for (boolean masked : new boolean[] {false, true}) {
        String simd = masked ? "walk_m" : "walk_v";
        packetize(m, "walk", simd, w, "l4v", masked);
        var specs = new java.util.ArrayList<ParamSpec>(List.of(ParamSpec.linearPtr(ctx.floatType(), 40, 4, Direction.INOUT),
            ParamSpec.varying(ValueDomain.ints(-1, 6))));
        if (masked) specs.add(ParamSpec.mask());
        try (DifferentialCheck c = DifferentialCheck.builder(m, "walk", simd, w).params(specs).build()) {
          check(c, 81 + w);
        }
      }
    }
  }

  /** A linear pointer with an alignment ({@code l4a64}): OpenMP's linear(p) aligned(p:64). */
  @Test
  void alignedLinearPointer() {
    int w = 16;
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = CSources.compile(ctx, "shapes.c")) {
      PacketizationResult r = packetize(m, "scale", "scale_a", w, "l4a64u", false);
      String ir = ir(m, "scale_a");
      assertNoGatherScatter(r, ir);
      assertTrue(ir.matches("(?s).*load <16 x float>, ptr %[^,]+, align 64.*"), ir);
      try (DifferentialCheck c = DifferentialCheck.builder(m, "scale", "scale_a", w).params(
          ParamSpec.linearPtr(ctx.floatType(), 16, 4, Direction.INOUT), ParamSpec.uniform(ValueDomain.floats(-4, 4))).build()) {
        check(c, 61);
      }
    }
  }

  /**
   * A declared SIMD prototype named by the vector function ABI carries the shapes: packetizing into
   * {@code _ZGVbN4uuula16_saxpy} (declared or not) takes kinds "uuula16" from the name.
   */
  @Test
  void vectorAbiNameGivesTheKinds() {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = CSources.compile(ctx, "shapes.c")) {
      PacketizationResult r = new Packetizer(PacketizerOptions.builder().width(4).build()).run(m, "saxpy", "_ZGVbN4uuula16_saxpy");
      assertEquals(List.of(ParamKind.UNIFORM, ParamKind.UNIFORM, ParamKind.UNIFORM, new ParamKind.Linear(1, 16)), r.params());
      assertNoGatherScatter(r, ir(m, "_ZGVbN4uuula16_saxpy"));
    }
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = CSources.compile(ctx, "shapes.c")) {
      m.addFunction("_ZGVbM4ul4u_scale", ctx.functionType(ctx.voidType(),
          List.of(ctx.ptrType(), ctx.ptrType(), ctx.floatType(), ctx.i1().vectorOf(4)), false));
      // wrong: a uniform where the name says linear pointer? the name has 3 tokens for 2 parameters
      PacketizationException e = assertThrows(PacketizationException.class, () -> new Packetizer(PacketizerOptions.builder()
          .width(4).masked(true).build()).run(m, "scale", "_ZGVbM4ul4u_scale"));
      assertEquals(PacketizationException.Kind.INVALID_INPUT, e.kind());
      assertTrue(e.getMessage().contains("3 parameter tokens"), e.getMessage());
    }
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = CSources.compile(ctx, "shapes.c")) {
      m.addFunction("_ZGVbM4l4u_scale", ctx.functionType(ctx.voidType(),
          List.of(ctx.ptrType(), ctx.floatType(), ctx.i1().vectorOf(4)), false));
      PacketizationResult r = new Packetizer(PacketizerOptions.builder().width(4).masked(true).build())
          .run(m, "scale", "_ZGVbM4l4u_scale");
      assertEquals("l4u", r.signature());
      assertNoGatherScatter(r, ir(m, "_ZGVbM4l4u_scale"));
      try (DifferentialCheck c = DifferentialCheck.builder(m, "scale", "_ZGVbM4l4u_scale", 4).params(
          ParamSpec.linearPtr(ctx.floatType(), 16, 4, Direction.INOUT), ParamSpec.uniform(ValueDomain.floats(-4, 4)),
          ParamSpec.mask()).build()) {
        check(c, 71);
      }
    }
  }

  @Test
  void vectorAbiNameMustMatchTheOptions() {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = CSources.compile(ctx, "shapes.c")) {
      String before = m.toIr();
      PacketizationException wrongWidth = assertThrows(PacketizationException.class,
          () -> new Packetizer(PacketizerOptions.builder().width(8).build()).run(m, "saxpy", "_ZGVbN4uuul_saxpy"));
      assertTrue(wrongWidth.getMessage().contains("has 4 lanes but the width is 8"), wrongWidth.getMessage());
      PacketizationException wrongMask = assertThrows(PacketizationException.class,
          () -> new Packetizer(PacketizerOptions.builder().width(4).build()).run(m, "saxpy", "_ZGVbM4uuul_saxpy"));
      assertTrue(wrongMask.getMessage().contains("masked (M)"), wrongMask.getMessage());
      PacketizationException bad = assertThrows(PacketizationException.class,
          () -> new Packetizer(PacketizerOptions.builder().width(4).build()).run(m, "saxpy", "_ZGVbN4uuls0_saxpy"));
      assertTrue(bad.getMessage().contains("not supported"), bad.getMessage());
      assertEquals(before, m.toIr(), "the module is unchanged");
    }
  }
}
