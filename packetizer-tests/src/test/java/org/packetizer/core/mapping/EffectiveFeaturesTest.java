package org.packetizer.core.mapping;

import static org.junit.jupiter.api.Assertions.*;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * {@link VectorMathRoutes#effectiveFeatures(String, String)}: the CPU's implied vector features plus the function's
 * string, with LLVM's rule that a feature switched off takes the features built on it along. Found by
 * GccOmpSimdCallerTest after the nineteenth round's change: the SSE ("b") variant of a vector function in an AVX-512
 * module carries {@code -avx}, and the CPU's implied {@code +avx2} survived, so it called AVX2's libmvec.
 */
class EffectiveFeaturesTest {
  private static Set<String> of(String cpu, String features) {
    return Set.of(VectorMathRoutes.effectiveFeatures(cpu, features).split(","));
  }

  @Test
  void aFeatureSwitchedOffTakesTheFeaturesBuiltOnItAlong() {
    Set<String> sse = of("sapphirerapids", "+sse4.2,-avx");
    for (String f : List.of("+avx", "+avx2", "+fma", "+avx512f")) assertFalse(sse.contains(f), () -> f + " in " + sse);
    assertTrue(sse.contains("+sse4.1") && sse.contains("+sse4.2"), sse::toString);
    Set<String> avx2 = of("skylake-avx512", "-avx512f");
    assertTrue(avx2.containsAll(List.of("+avx", "+avx2", "+fma")), avx2::toString);
    assertFalse(avx2.contains("+avx512f"), avx2::toString);
    Set<String> noFma = of("haswell", "-fma");
    assertTrue(noFma.containsAll(List.of("+avx", "+avx2")) && !noFma.contains("+fma"), noFma::toString);
    Set<String> noSse2 = of("haswell", "-sse2");
    assertTrue(noSse2.stream().noneMatch(f -> f.startsWith("+sse4") || f.startsWith("+avx") || f.equals("+fma")), noSse2::toString);
  }

  @Test
  void aCpuNameAddsItsFeaturesToGenericBitcodesString() {
    Set<String> f = of("haswell", "+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87");
    assertTrue(f.containsAll(List.of("+avx", "+avx2", "+fma", "+sse", "+sse2")), f::toString);
    assertEquals("+sse,+sse2", VectorMathRoutes.effectiveFeatures("x86-64", "+sse,+sse2"));
    assertTrue(of("znver4", "").contains("+avx512f"));
  }
}
