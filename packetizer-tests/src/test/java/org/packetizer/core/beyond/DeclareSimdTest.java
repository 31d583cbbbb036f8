package org.packetizer.core.beyond;

import static org.junit.jupiter.api.Assertions.*;

import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.packetizer.core.api.PacketizationResult;
import org.packetizer.core.Packetizer;
import org.packetizer.core.api.PacketizerOptions;
import org.packetizer.core.check.CheckResult;
import org.packetizer.core.check.DifferentialCheck;
import org.packetizer.core.check.ParamSpec;
import org.packetizer.core.check.ParamSpec.Direction;
import org.packetizer.core.check.ValueDomain;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.ir.Opcode;
import org.packetizer.core.ir.Value;
import org.packetizer.core.mapping.VectorAbi;

/**
 * OpenMP {@code declare simd} (beyond-the-thesis §1): the variants clang declares for a function
 * ({@code uniform}, {@code linear}, {@code aligned}, {@code simdlen}, {@code inbranch}/{@code
 * notinbranch}, one per ISA) are made by {@link Packetizer#runDeclaredVariants}: widths 4, 8 and 16,
 * masked and unmasked, linear indices and pointers as vector accesses, the alignment in the IR, and
 * each checked against the scalar function. Source: {@code beyond/declare_simd.c} (-fopenmp-simd
 * -mavx2).
 */
class DeclareSimdTest {
  @Test
  void declaredVariantsAreMadeAndAgreeWithTheScalarFunction() {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = CSources.compile(ctx, "declare_simd.c", "-fopenmp-simd", "-mavx2")) {
      Packetizer p = new Packetizer(PacketizerOptions.builder().verifyEachPhase(true).build());
      List<PacketizationResult> get = p.runDeclaredVariants(m, "get");
      List<PacketizationResult> scale = p.runDeclaredVariants(m, "scale");
      // AVX2 target: the SSE, AVX and AVX2 variants, not the AVX-512 ones
      Set<String> names = new TreeSet<>();
      for (PacketizationResult r : get) names.add(r.packetFunction());
      assertEquals(new TreeSet<>(List.of("_ZGVbM16ulv_get", "_ZGVbM8ua32lv_get", "_ZGVbN16ulv_get", "_ZGVbN4ulv_get",
          "_ZGVbN8ua32lv_get", "_ZGVcM16ulv_get", "_ZGVcM8ua32lv_get", "_ZGVcN16ulv_get", "_ZGVcN8ua32lv_get", "_ZGVcN8ulv_get",
          "_ZGVdM16ulv_get", "_ZGVdM8ua32lv_get", "_ZGVdN16ulv_get", "_ZGVdN8ua32lv_get", "_ZGVdN8ulv_get")), names);
      assertEquals(6, scale.size());
      for (PacketizationResult r : get) {
        assertEquals(0, r.gathers(), r::summary); // p[i] with p uniform, i linear: a vector load
        assertEquals(1, r.vectorLoads(), r::summary);
      }
      for (PacketizationResult r : scale) {
        assertEquals(0, r.gathers() + r.scatters(), r::summary);
        assertEquals("l4a32u", r.signature());
      }
      // aligned(q:32) on a linear pointer: lane 0's q is aligned, so is the vector access
      String aligned = m.function("_ZGVdN8l4a32u_scale").orElseThrow().print();
      assertTrue(aligned.matches("(?s).*load <8 x float>, ptr %[^,]+, align 32.*"), aligned);
      // aligned(p:32) with p[i], i linear from anywhere: only the element alignment is known (sound)
      String element = m.function("_ZGVdN8ua32lv_get").orElseThrow().print();
      assertTrue(element.matches("(?s).*load <8 x float>, ptr %[^,]+, align 4\\b.*"), element);
      assertFalse(m.function("_ZGVdN8ua32lv_get").orElseThrow().stringAttributes().keySet().stream()
          .anyMatch(k -> k.startsWith("_ZGV")), "the packet functions do not inherit the declare-simd attributes");

      // the call in loop_get announces the unaligned variants only
      Value call = m.function("loop_get").orElseThrow().blocks().stream().flatMap(b -> b.instructions().stream())
          .filter(i -> i.opcode() == Opcode.CALL && i.calledFunction().map(f -> f.name().equals("get")).orElse(false))
          .findFirst().orElseThrow();
      List<String> entries = VectorAbi.entries(call);
      assertTrue(entries.contains("_ZGVdN8ulv_get(_ZGVdN8ulv_get)"), entries::toString);
      assertTrue(entries.stream().noneMatch(e -> e.contains("a32")), entries::toString);

      var f = ctx.floatType();
      check(m, "get", "_ZGVbN4ulv_get", 4, false, 1);
      check(m, "get", "_ZGVdN8ua32lv_get", 8, false, 2);
      check(m, "get", "_ZGVcM8ua32lv_get", 8, true, 3);
      check(m, "get", "_ZGVdM16ulv_get", 16, true, 4);
      check(m, "get", "_ZGVbN16ulv_get", 16, false, 5);
      for (String name : List.of("_ZGVdN8l4a32u_scale", "_ZGVbM8l4a32u_scale")) {
        boolean masked = name.contains("M8");
        var specs = new java.util.ArrayList<>(List.<ParamSpec>of(ParamSpec.linearPtr(f, 16, 4, Direction.INOUT),
            ParamSpec.uniform(ValueDomain.floats(-3, 3))));
        if (masked) specs.add(ParamSpec.mask());
        String form = masked ? name + VectorAbi.IR_FORM_SUFFIX : name;
        try (DifferentialCheck c = DifferentialCheck.builder(m, "scale", form, 8).params(specs).build()) {
          CheckResult res = c.runMany(30, 6);
          assertTrue(res.passed(), res::report);
        }
      }
    }
  }

  /** get(p, i, x) with p a 64-byte aligned table (so the aligned variants' promise holds). */
  static void check(LlvmModule m, String scalar, String variant, int w, boolean masked, long seed) {
    var f = m.context().floatType();
    var specs = new java.util.ArrayList<>(List.<ParamSpec>of(ParamSpec.uniformPtr(f, 64, Direction.IN),
        ParamSpec.linear(1, ValueDomain.ints(0, 40)), ParamSpec.varying(ValueDomain.floats(-4, 4))));
    if (masked) specs.add(ParamSpec.mask());
    // masked variants and results wider than one register: the ABI's form wraps LLVM's form (checked here;
    // the ABI's form is called by GCC in GccOmpSimdCallerTest)
    String form = m.function(variant + VectorAbi.IR_FORM_SUFFIX).isPresent() ? variant + VectorAbi.IR_FORM_SUFFIX : variant;
    try (DifferentialCheck c = DifferentialCheck.builder(m, scalar, form, w).params(specs).build()) {
      CheckResult res = c.runMany(30, seed);
      assertTrue(res.passed(), () -> variant + ": " + res.report());
    }
  }

  @Test
  void loopVectorizerCallsADeclaredVariant() {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = CSources.compile(ctx, "declare_simd.c", "-fopenmp-simd", "-mavx2")) {
      Packetizer p = new Packetizer(PacketizerOptions.builder().build());
      p.runDeclaredVariants(m, "get");
      List<PacketizationResult> wave = p.runDeclaredVariants(m, "wave");
      assertTrue(wave.stream().anyMatch(r -> r.packetFunction().equals("_ZGVdN8vlu_wave")), wave::toString);
      try (var tm = org.packetizer.core.ir.TargetMachine.create(org.packetizer.core.toolchain.BundledClang.TARGET_TRIPLE, "x86-64", "")) {
        m.runPasses("default<O3>", tm);
      }
      String loop = m.function("loop_wave").orElseThrow().print();
      assertTrue(loop.contains("@_ZGVdN8vlu_wave("), loop);
      // a call reading memory through a pointer argument stays scalar (an LLVM 20 limit, see declare_simd.c)
      String getLoop = m.function("loop_get").orElseThrow().print();
      assertFalse(getLoop.contains("@_ZGV"), getLoop);
    }
  }
}
