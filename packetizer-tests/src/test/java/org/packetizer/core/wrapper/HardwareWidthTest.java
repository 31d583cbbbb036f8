package org.packetizer.core.wrapper;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.packetizer.core.ir.Llvm;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;

class HardwareWidthTest {
  @ParameterizedTest(name = "{0} / \"{1}\" -> {2}")
  @CsvSource(delimiter = '|', value = {
      "x86-64 | | 4",
      "x86-64 | +sse4.2 | 4",
      "x86-64 | +cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87 | 4",
      "x86-64-v2 | | 4",
      "nehalem | | 4",
      "generic | | 4",
      " | | 4",
      "x86-64-v3 | | 8",
      "sandybridge | | 8",
      "haswell | | 8",
      "haswell | +avx2 | 8",
      "x86-64 | +avx2 | 8",
      "x86-64 | +avx | 8",
      " | +avx2,+fma | 8",
      "alderlake | | 8",
      "znver3 | | 8",
      "skylake-avx512 | | 16",
      "znver4 | | 16",
      "x86-64 | +avx512f | 16",
      "haswell | +avx512f,+avx512vl | 16",
      "x86-64-v4 | | 16",
      "skylake-avx512 | -avx512f | 8",
      "znver4 | +avx512f,-avx512f | 8",
      "znver4 | -avx512f,+avx512f | 16",
      "haswell | -avx | 4",
      "skylake-avx512 | -avx | 4",
      "x86-64 | -sse2 | 1",
      "i386 | | 1",
      "pentium3 | | 4"})
  void knownCpusAndFeatures(String cpu, String features, int expected) {
    assertEquals(expected, HardwareWidth.of(cpu, features));
  }

  @Test
  void hostIsAtLeastSse() {
    int h = HardwareWidth.host();
    assertTrue(h == 4 || h == 8 || h == 16, "host width " + h);
    assertEquals(h, HardwareWidth.of(Llvm.hostCpuName(), Llvm.hostCpuFeatures()));
  }

  @Test
  void functionThenModuleThenHost() {
    String ir = """
        define void @a() #0 { ret void }
        define void @b() #1 { ret void }
        define void @c() #2 { ret void }
        define void @d() { ret void }
        attributes #0 = { "target-cpu"="haswell" "target-features"="+avx2" }
        attributes #1 = { "target-cpu"="znver4" "prefer-vector-width"="256" }
        attributes #2 = { "target-features"="+avx512f" }
        """;
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.parseIr(ir, "t.ll")) {
      assertEquals(8, HardwareWidth.forFunction(m.function("a").orElseThrow()));
      // prefer-vector-width wins (downwards)
      assertEquals(8, HardwareWidth.forFunction(m.function("b").orElseThrow()));
      assertEquals("function", HardwareWidth.resolve(m.function("c").orElseThrow(), null, null).source());
      assertEquals(16, HardwareWidth.forFunction(m.function("c").orElseThrow()));
      // no attributes: the module's first function that has them
      HardwareWidth.Target d = HardwareWidth.resolve(m.function("d").orElseThrow(), null, null);
      assertEquals(8, d.width());
      assertEquals("module (@a)", d.source());
      // overrides
      assertEquals(4, HardwareWidth.resolve(m.function("a").orElseThrow(), "x86-64", "").width());
      assertEquals(16, HardwareWidth.resolve(m.function("a").orElseThrow(), null, "+avx512f").width());
    }
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.parseIr("define void @e() { ret void }", "t.ll")) {
      HardwareWidth.Target e = HardwareWidth.resolve(m.function("e").orElseThrow(), null, null);
      assertEquals("host", e.source());
      assertEquals(HardwareWidth.host(), e.width());
    }
  }

  /**
   * The vector features a CPU name implies for the refill rule's feature tests (a generic bitcode retargeted by
   * --target-cpu alone): AVX-512 with VL, AVX2 without AVX-512, nothing for AVX-only or older CPUs, and nothing the
   * feature string switches off.
   */
  @ParameterizedTest(name = "{0} [{1}] -> {2}")
  @CsvSource(delimiter = ';', value = {
      "znver4; +cx8,+sse2; +avx2,+avx512f,+avx512vl,",
      "skylake-avx512; ; +avx2,+avx512f,+avx512vl,",
      "x86-64-v4; +sse4.2; +avx2,+avx512f,+avx512vl,",
      "znver4; -avx512f; +avx2,",
      "znver4; -avx512vl; +avx2,",
      "znver4; -avx2; ''",
      "knl; ; +avx2,",
      "haswell; +cx8,+sse2; +avx2,",
      "znver3; ; +avx2,",
      "haswell; -avx; ''",
      "ivybridge; ; ''",
      "bdver2; ; ''",
      "x86-64-v2; +avx512f; ''",
      "x86-64; ; ''",
      "; +avx2; ''"})
  void impliedVectorFeatures(String cpu, String features, String want) {
    assertEquals(want, HardwareWidth.impliedVectorFeatures(cpu, features));
  }
}
