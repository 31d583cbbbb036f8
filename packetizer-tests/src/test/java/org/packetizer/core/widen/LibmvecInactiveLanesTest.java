package org.packetizer.core.widen;

import static org.junit.jupiter.api.Assertions.*;

import org.junit.jupiter.api.Test;
import org.packetizer.core.Packetizer;
import org.packetizer.core.api.PacketizerOptions;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;

/**
 * libmvec sends every call with an argument outside a function's fast domain through its scalar
 * fallback, so the arguments of inactive lanes (whatever a linearized branch left there) are
 * replaced by 1.0 in blocks that may run with a partial mask; calls under the full mask are not.
 */
class LibmvecInactiveLanesTest {
  static final String IR = """
      declare float @powf(float, float)
      declare float @expf(float)

      define float @f(float %x, float %y) #0 {
      entry:
        %e = call float @expf(float %x)
        %c = fcmp ogt float %x, 0.0
        br i1 %c, label %then, label %join
      then:
        %p = call float @powf(float %x, float %y)
        br label %join
      join:
        %r = phi float [ %p, %then ], [ %e, %entry ]
        ret float %r
      }
      attributes #0 = { "target-cpu"="haswell" "target-features"="+avx,+avx2,+fma,+sse4.2" }
      """;

  @Test
  void partialMaskCallsGetSafeArgumentsFullMaskCallsDoNot() {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.parseIr(IR, "f.ll")) {
      // (names on: the check reads the parameter %x in the packet IR)
      new Packetizer(PacketizerOptions.builder().width(8).vectorMath(PacketizerOptions.VectorMath.LIBMVEC).valueNames(true).build())
          .run(m, "f", "f8");
      String ir = m.function("f8").orElseThrow().print();
      String pow = ir.lines().filter(l -> l.contains("call") && l.contains("powf")).findFirst().orElseThrow(() -> new AssertionError(ir));
      String exp = ir.lines().filter(l -> l.contains("call") && l.contains("expf")).findFirst().orElseThrow(() -> new AssertionError(ir));
      assertTrue(pow.contains("_ZGV") && exp.contains("_ZGV"), ir);
      // the powf arguments are selects with 1.0 for inactive lanes; expf's argument is %x itself
      assertFalse(pow.contains("<8 x float> %x,"), pow);
      assertTrue(ir.contains("splat (float 1.000000e+00)"), ir);
      assertTrue(exp.contains("(<8 x float> %x)"), exp);
    }
  }
}
