package org.packetizer.core.pipeline;

import static org.junit.jupiter.api.Assertions.*;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.packetizer.core.Packetizer;
import org.packetizer.core.api.PacketizerOptions;
import org.packetizer.core.check.CheckResult;
import org.packetizer.core.check.DifferentialCheck;
import org.packetizer.core.ir.Block;
import org.packetizer.core.ir.Function;
import org.packetizer.core.ir.FunctionCloner;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.ir.Opcode;
import org.packetizer.core.ir.Value;
import org.packetizer.core.toolchain.BundledClang;

/**
 * The packet function's clean-up leaves out {@code sroa} when the scalar copy was optimized first
 * (issue 16, seventh round: {@link Packetizer#CLEANUP_AFTER_PREPARE}), and keeps it when it was not
 * ({@code prepareOptimize(false)}).
 * Foreign input: C compiled by the bundled clang, once at -O2 (the usual input) and once at -O0
 * (every local variable an alloca), with a private array, a loop and a math call.
 */
class CleanupPipelineTest {
  static final String SOURCE = """
      float privates(float x, float y, int n) {
        float t[8];
        for (int i = 0; i < 8; i++) t[i] = x * (float) i + y;
        float acc = 0.0f;
        for (int i = 0; i < n; i++) {
          float v = t[(i + (int) x) & 7];
          if (v > y) acc += __builtin_sqrtf(v);
          else acc -= v * 0.5f;
        }
        return acc;
      }
      """;

  static final List<String> O0 = List.of("-O0", "-Xclang", "-disable-O0-optnone", "-fno-discard-value-names", "-nostdlibinc",
      "-fno-ident", "-ffp-contract=off", "-fno-math-errno");

  static int allocas(Function f) {
    int n = 0;
    for (Block b : f.blocks()) {
      for (Value i = b.firstInstruction(); i != null; i = i.nextInstruction()) if (i.opcode() == Opcode.ALLOCA) n++;
    }
    return n;
  }

  static void assertSameAsScalar(LlvmModule m, String packet, int w) {
    try (DifferentialCheck check = DifferentialCheck.builder(m, "privates", packet, w).build()) {
      CheckResult r = check.runMany(40, 17 + w);
      assertTrue(r.passed(), () -> r.report() + "\n" + m.toIr());
      assertTrue(r.lanesCompared() > 0, "no lane compared");
    }
  }

  /**
   * After the preparation (the default), sroa on the packet function finds nothing: on the raw packet
   * function the full pipeline and the one without sroa give the same text, for -O2 and -O0 input
   * (the -O0 copy's locals are promoted by the preparation's sroa). Without the preparation the
   * clean-up keeps sroa (there it finds nothing on this kernel either: the packet versions of -O0's
   * locals are interleaved arrays that sroa does not split); both packet functions agree with the
   * scalar function lane by lane.
   */
  @Test
  void afterThePreparationSroaChangesNothing() {
    for (var cfg : List.of(List.of("privates.c", "-O2"), List.of("privates_o0.c", "-O0"))) for (boolean prepare : new boolean[] {true, false}) {
      List<String> flags = cfg.get(1).equals("-O2") ? BundledClang.KERNEL_FLAGS : O0;
      byte[] bc = BundledClang.locate().compileToBitcode(SOURCE, cfg.get(0), flags);
      for (int w : new int[] {4, 8, 16}) {
        try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.parseBitcode(bc, "privates")) {
          new Packetizer(PacketizerOptions.builder().width(w).params("vvu").cleanup(false).prepareOptimize(prepare).build()).run(m, "privates", "raw");
          Function raw = m.function("raw").orElseThrow();
          assertTrue(allocas(raw) > 0, () -> "the private array stays an alloca in the raw packet function\n" + raw.print());
          Function full = FunctionCloner.cloneInModule(m, raw, "full");
          Function lean = FunctionCloner.cloneInModule(m, raw, "lean");
          LlvmModule.runPasses(full, Packetizer.CLEANUP_PIPELINE, null);
          LlvmModule.runPasses(lean, Packetizer.CLEANUP_AFTER_PREPARE, null);
          String a = full.print();
          String b = lean.print().replace("@lean(", "@full(");
          assertEquals(a, b, cfg + " W=" + w + (prepare ? "" : " unprepared"));
          assertTrue(a.contains("alloca"), "the private array (dynamic index) stays: sroa had something to look at");
          full.delete();
          lean.delete();
        }
        try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.parseBitcode(bc, "privates")) {
          new Packetizer(PacketizerOptions.builder().width(w).params("vvu").prepareOptimize(prepare).build()).run(m, "privates", "privates_p");
          assertSameAsScalar(m, "privates_p", w);
        }
      }
    }
  }
}
