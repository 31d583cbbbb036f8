package org.packetizer.core.abi;

import static org.junit.jupiter.api.Assertions.*;

import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.packetizer.core.Packetizer;
import org.packetizer.core.api.PacketizationResult;
import org.packetizer.core.api.PacketizerOptions;
import org.packetizer.core.ir.Function;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.mapping.VectorAbi;

/**
 * The run's target attributes, one mechanism ({@code RunTarget}, twentieth round): a CPU or features named in the
 * options AND a vector-function-ABI name spelling another ISA than the scalar function's. During the run every defined
 * function carries the options' target with the ABI ISA's features on top; afterwards every user function has exactly
 * its own {@code target-cpu}, {@code target-features} and {@code tune-cpu} back (present or absent), and what the run
 * made carries the name's ISA (and the options' CPU). Three user functions with three different attribute sets: the
 * scalar function (generic x86-64 as clang writes it, with {@code "tune-cpu"="generic"}), its callee (another CPU,
 * AVX features, no tune-cpu) and a bystander without any target attribute. Also the two halves alone (options only,
 * ABI ISA only), so that each restore is pinned where the other does not cover it.
 */
class RunTargetAttributesTest {
  static final String GENERIC = "+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87";
  static final String IR = """
      target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
      target triple = "x86_64-pc-linux-gnu"

      define float @g(float %x) #1 {
        %m = fmul float %x, %x
        %s = fadd float %m, 3.0
        ret float %s
      }

      define float @f(float %a) #0 {
        %c = call float @g(float %a)
        %big = fcmp ogt float %c, 10.0
        br i1 %big, label %then, label %join
      then:
        %h = fmul float %c, 0.5
        br label %join
      join:
        %r = phi float [ %h, %then ], [ %c, %0 ]
        ret float %r
      }

      define i32 @bystander(i32 %x) #2 {
        %y = add i32 %x, 1
        ret i32 %y
      }

      attributes #0 = { nounwind "target-cpu"="x86-64" "target-features"="GENERIC" "tune-cpu"="generic" }
      attributes #1 = { noinline nounwind "target-cpu"="x86-64-v2" "target-features"="+avx,+cx16,+popcnt,+sse4.2" }
      attributes #2 = { noinline nounwind }
      """.replace("\"GENERIC\"", "\"" + GENERIC + "\"");

  static final List<String> ATTRIBUTES = List.of("target-cpu", "target-features", "tune-cpu");

  static Map<String, Optional<String>> attributes(Function f) {
    Map<String, Optional<String>> a = new LinkedHashMap<>();
    for (String k : ATTRIBUTES) a.put(k, f.stringAttribute(k));
    return a;
  }

  @ParameterizedTest(name = "cpu={0} features={1} simd={2}")
  @CsvSource(nullValues = "-", value = {
      // both: the options' CPU, and a name for AVX-512F over generic SSE2 features
      "haswell, -, _ZGVeN8v_f, e",
      // both: the options' features (AVX2), and a name for SSE (b) under them
      "-, '+avx2,+fma', _ZGVbN8v_f, b",
      // both, CPU and features, and a name for AVX (c) between them
      "znver4, '+avx512f,+avx2', _ZGVcN8v_f, c",
      // the ABI ISA alone (the features only are given back)
      "-, -, _ZGVdN8v_f, d",
      // the options alone (the name spells the options' ISA: nothing on top)
      "haswell, '+avx2,+fma', _ZGVdN8v_f, d"})
  void theUsersFunctionsGetExactlyTheirOwnAttributesBack(String cpu, String features, String simd, char isa) {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.parseIr(IR, "run_target.ll")) {
      Set<String> before = new HashSet<>();
      Map<String, Map<String, Optional<String>>> own = new LinkedHashMap<>();
      for (Function f : m.functions()) {
        before.add(f.name());
        if (!f.isDeclaration()) own.put(f.name(), attributes(f));
      }
      assertEquals(Set.of("f", "g", "bystander"), own.keySet());
      PacketizerOptions.Builder b = PacketizerOptions.builder().width(8).params("v").vectorAbi(true).verifyEachPhase(true);
      if (cpu != null) b.targetCpu(cpu);
      if (features != null) b.targetFeatures(features);
      PacketizationResult r = new Packetizer(b.build()).run(m, "f", simd);
      assertEquals(simd, r.packetFunction());

      // every user function: exactly its own attributes (each present one with its value, each absent one absent)
      for (var e : own.entrySet()) {
        assertEquals(e.getValue(), attributes(m.function(e.getKey()).orElseThrow()), "@" + e.getKey() + " after the run");
      }
      // what the run made: the name's ISA, on the options' CPU where they name one (else the scalar function's)
      Function packet = m.function(simd).orElseThrow();
      String packetFeatures = packet.stringAttribute("target-features").orElse("");
      assertEquals(isa, VectorAbi.isa(packetFeatures), packetFeatures);
      assertEquals(cpu == null ? "x86-64" : cpu, packet.stringAttribute("target-cpu").orElse(""), "@" + simd);
      if (cpu != null) assertTrue(packet.stringAttribute("tune-cpu").isEmpty(), "@" + simd + " is tuned for " + cpu);
      int made = 0;
      for (Function f : m.functions()) {
        if (f.isDeclaration() || before.contains(f.name())) continue;
        made++;
        String fs = f.stringAttribute("target-features").orElse("");
        assertEquals(isa, VectorAbi.isa(fs), "@" + f.name() + ": " + fs);
      }
      assertTrue(made >= 1, "the run made the packet function");
    }
  }
}
