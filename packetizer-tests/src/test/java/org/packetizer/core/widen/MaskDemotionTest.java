package org.packetizer.core.widen;

import static org.junit.jupiter.api.Assertions.*;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.packetizer.core.api.IntegerMasks;
import org.packetizer.core.api.PacketizationResult;
import org.packetizer.core.Packetizer;
import org.packetizer.core.api.PacketizerOptions;
import org.packetizer.core.check.CheckResult;
import org.packetizer.core.check.DifferentialCheck;
import org.packetizer.core.check.Inputs;
import org.packetizer.core.check.KernelChecks;
import org.packetizer.core.ir.Block;
import org.packetizer.core.ir.Function;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.ir.Opcode;
import org.packetizer.core.ir.Value;
import org.packetizer.core.toolchain.Manifest;

/**
 * Integer masks: chosen for targets without mask registers at W ≥ 4 only; after the rewrite no mask logic,
 * phi or select on {@code <W x i1>} is left (the legalizer would promote them to 16-bit lanes); and
 * the code, compiled for haswell, computes what the scalar function computes.
 */
class MaskDemotionTest {
  static final String AVX2 = "+avx,+avx2,+fma,+sse4.2,+popcnt";

  @Test
  void chosenOnlyWithoutMaskRegistersFromWidthEight() {
    try (LlvmContext ctx = LlvmContext.create();
         LlvmModule m = ctx.parseIr("define float @f(float %x) {\n  ret float %x\n}\n", "t.ll")) {
      Function f = m.function("f").orElseThrow();
      f.setStringAttribute("target-cpu", "haswell");
      f.setStringAttribute("target-features", AVX2);
      assertTrue(MaskDemotion.worthwhile(f, 8));
      assertTrue(MaskDemotion.worthwhile(f, 16));
      assertTrue(MaskDemotion.worthwhile(f, 4), "<4 x i1> is promoted to <4 x i32> with only the low bit defined");
      assertFalse(MaskDemotion.worthwhile(f, 2));
      f.setStringAttribute("target-cpu", "skylake-avx512");
      f.setStringAttribute("target-features", "+avx512f,+avx512vl,+avx512bw,+avx2,+avx");
      assertFalse(MaskDemotion.worthwhile(f, 8), "AVX-512 has mask registers");
      f.setStringAttribute("target-cpu", "x86-64");
      f.setStringAttribute("target-features", "+sse4.2");
      assertTrue(MaskDemotion.worthwhile(f, 8), "SSE: <8 x i1> would be <8 x i16>");
    }
  }

  @Test
  void divergentLoopKernelsOnHaswell() {
    Manifest manifest = Manifest.load();
    for (String name : List.of("mandelbrot", "julia", "march", "fig414", "fig411")) {
      Manifest.Entry e = manifest.require(name);
      for (int w : new int[] {8, 16}) {
        try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.load(manifest.bitcode(e), e.bitcode())) {
          Function scalar = m.function(e.function()).orElseThrow();
          scalar.setStringAttribute("target-cpu", "haswell");
          scalar.setStringAttribute("target-features", AVX2);
          String simd = e.function() + "_simd" + w;
          PacketizationResult r = new Packetizer(PacketizerOptions.builder().width(w).params(KernelChecks.paramKinds(e))
              .vectorMath(PacketizerOptions.VectorMath.INTRINSICS).integerMasks(IntegerMasks.AUTO).build())
              .run(m, e.function(), simd);
          Function p = m.function(simd).orElseThrow();
          int wide = 0;
          for (Block bl : p.blocks()) {
            for (Value i : bl.instructions()) {
              Opcode op = i.opcode();
              boolean maskResult = i.type().isVector() && i.type().toString().equals("<" + w + " x i1>");
              if (maskResult) {
                assertFalse(op == Opcode.PHI || op == Opcode.AND || op == Opcode.OR || op == Opcode.XOR || op == Opcode.SELECT,
                    () -> name + " W=" + w + ": mask logic left on <W x i1>: " + i.print() + "\n" + p.print());
              }
              if (i.type().toString().equals("<" + w + " x i32>") && op == Opcode.PHI) wide++;
            }
          }
          assertTrue(wide > 0, () -> name + ": no integer mask phi in\n" + p.print());
          try (DifferentialCheck c = KernelChecks.checkBuilder(e, m, e.function(), simd, w).target("haswell", AVX2).build()) {
            for (Inputs in : KernelChecks.sampleInputs(e, w)) {
              CheckResult res = c.run(in);
              assertTrue(res.passed(), () -> name + " W=" + w + ":\n" + res.report() + "\n" + r.summary());
            }
            CheckResult res = c.runMany(20, 0xA5A5 + w);
            assertTrue(res.passed(), () -> name + " W=" + w + ":\n" + res.report() + "\n" + r.summary());
          }
        }
      }
    }
  }
}
