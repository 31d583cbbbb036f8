package org.packetizer.core.pipeline;

import static org.junit.jupiter.api.Assertions.*;

import org.junit.jupiter.api.Test;
import org.packetizer.core.Packetizer;
import org.packetizer.core.api.PacketizerOptions;
import org.packetizer.core.check.CheckResult;
import org.packetizer.core.check.DifferentialCheck;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;

class SmokeTest {
  static final String IR = """
      define float @f(float %a, float %b) {
      entry:
        %c = fcmp olt float %a, %b
        br i1 %c, label %then, label %else
      then:
        %x = fadd float %a, 1.0
        br label %join
      else:
        %y = fmul float %b, 2.0
        br label %join
      join:
        %p = phi float [ %x, %then ], [ %y, %else ]
        ret float %p
      }
      define i32 @loop(i32 %n) {
      entry:
        br label %h
      h:
        %i = phi i32 [ 0, %entry ], [ %i1, %h ]
        %s = phi i32 [ 0, %entry ], [ %s1, %h ]
        %s1 = add i32 %s, %i
        %i1 = add i32 %i, 1
        %c = icmp slt i32 %i1, %n
        br i1 %c, label %h, label %x
      x:
        ret i32 %s1
      }
      """;

  @Test
  void smoke() {
    for (int w : new int[] {4, 8, 16}) {
      try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.parseIr(IR, "smoke.ll")) {
        var r1 = new Packetizer(PacketizerOptions.builder().width(w).verifyEachPhase(true).build()).run(m, "f", "f_simd");
        var r2 = new Packetizer(PacketizerOptions.builder().width(w).verifyEachPhase(true).build()).run(m, "loop", "loop_simd");
        System.out.println(r1.summary());
        System.out.println(r2.summary());
        if (w == 4) System.out.println(m.toIr());
        try (DifferentialCheck c = DifferentialCheck.builder(m, "f", "f_simd", w).build()) {
          CheckResult res = c.runMany(200, 42);
          assertTrue(res.passed(), res.report());
        }
        try (DifferentialCheck c = DifferentialCheck.builder(m, "loop", "loop_simd", w)
            .params(org.packetizer.core.check.ParamSpec.varying(org.packetizer.core.check.ValueDomain.ints(-3, 40))).build()) {
          CheckResult res = c.runMany(200, 42);
          assertTrue(res.passed(), res.report());
        }
      }
    }
  }
}
