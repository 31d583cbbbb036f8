package org.packetizer.core.beyond;

import static org.junit.jupiter.api.Assertions.*;

import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.packetizer.core.Packetizer;
import org.packetizer.core.api.PacketizationResult;
import org.packetizer.core.api.PacketizerOptions;
import org.packetizer.core.check.ParamSpec;
import org.packetizer.core.check.ParamSpec.Direction;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;

/**
 * Loads from a vector of 64-bit pointers outside every loop of a function that loops (issue 16, code
 * growth): on targets with fast hardware gathers (znver4) they stay hardware gathers instead of
 * per-lane loads ({@code beyond/gather_outside_loops.c}, plain clang {@code -O1} / {@code -O2}: an
 * n-body force step reading p[i].x/y/z before its loop, the same behind a divergent branch, 8- and
 * 4-byte fields of a mixed struct before a loop with per-lane trip counts).
 *
 * <p>Differential at W=4, 8, 16 on x86-64-v2, haswell and znver4, with and without a mask parameter;
 * lanes all equal, consecutive, one off, descending, random (the dynamic variants' run-time test sees
 * each of its outcomes); inactive lanes' indices 1-4 KB outside the buffer, in its guard page (a gather
 * that ignored the mask, or per-lane loads without the dummy slot, fault).
 *
 * <p>{@link #gathersBeforeTheLoop} fails with {@code -Dpacketizer.gatherOutsideLoops=false}: force at
 * W16/znver4 then extracts the 16 pointers for per-lane loads.
 */
class GatherOutsideLoopsTest {
  static Stream<Arguments> cases() {
    return PlainC.widthCpuOptCases();
  }

  @ParameterizedTest(name = "W={0} {1} {2}")
  @MethodSource("cases")
  void agreesWithScalar(int w, String cpu, String opt) {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = PlainC.compile(ctx, "gather_outside_loops.c", opt)) {
      ParamSpec bodies = ParamSpec.uniformPtr(ctx.structType(List.of(ctx.floatType(), ctx.floatType(), ctx.floatType(), ctx.floatType()), false),
          32, Direction.IN);
      DynamicVariantsTest.check(m, "force", w, cpu, "uv", bodies, 32, 16, 0, 31, 50 + w);
      DynamicVariantsTest.check(m, "force_guarded", w, cpu, "uv", bodies, 32, 16, 0, 31, 60 + w);
      ParamSpec recs = ParamSpec.uniformPtr(ctx.structType(List.of(ctx.doubleType(), ctx.i32(), ctx.floatType()), false), 32, Direction.IN);
      DynamicVariantsTest.check(m, "mixed", w, cpu, "uv", recs, 32, 16, 0, 31, 70 + w);
    }
  }

  /** Gathers, not per-lane loads, before force's loop at W16 on znver4; per-lane loads at W8 on haswell (no fast gathers). */
  @Test
  void gathersBeforeTheLoop() {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = PlainC.compile(ctx, "gather_outside_loops.c", "-O1")) {
      PacketizationResult r = new Packetizer(PacketizerOptions.builder().valueNames(true).width(16).params("uv").targetCpu("znver4").build()).run(m, "force", "f16");
      String ir = m.function("f16").orElseThrow().print();
      // (at -O1: three float loads; the dynamic variants test the lanes first: their 32-bit offsets from p (a
      // consecutive variant's pre-test extracts the last lane's pointer), or, with
      // -Dpacketizer.dynamicVariants.offsets=false, the pointers, extracting two of them for the pre-test;
      // at -O2 clang loads y and z as one <2 x float>, a composite load that is one gather per element either way)
      int extracted = ir.contains("%dyn.off") ? (ir.contains("%dyn.span") ? 1 : 0) : (ir.contains("%dyn.span") ? 2 : 0);
      assertEquals(extracted, TableLookupTest.count(ir, "extractelement <16 x ptr>"), ir);
      assertTrue(TableLookupTest.count(ir, "@llvm.masked.gather.v16f32") >= 2, ir);
      assertTrue(r.remarks().stream().anyMatch(k -> k.message().contains("this block runs once per call outside the function's loops")
          && "force".equals(k.function()) && k.block() != null), () -> r.remarks().toString());
      new Packetizer(PacketizerOptions.builder().valueNames(true).width(8).params("uv").targetCpu("haswell").build()).run(m, "force", "f8");
      String ir8 = m.function("f8").orElseThrow().print();
      assertFalse(ir8.contains("@llvm.masked.gather"), ir8);
    }
  }
}
