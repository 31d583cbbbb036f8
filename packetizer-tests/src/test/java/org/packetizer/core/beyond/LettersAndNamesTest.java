package org.packetizer.core.beyond;

import static org.junit.jupiter.api.Assertions.*;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.packetizer.core.api.ParamKind;
import org.packetizer.core.mapping.VectorAbi;

/** Parameter letters (with alignment) and vector-function-ABI names: parsing and printing round-trip. */
class LettersAndNamesTest {
  @Test
  void lettersRoundTrip() {
    for (String s : List.of("", "v", "u", "l", "l4", "ln2", "s", "ua32", "l4a16", "va8", "sa64", "vul4a32ln8", "uuula16")) {
      StringBuilder sb = new StringBuilder();
      for (ParamKind k : ParamKind.parseLetters(s)) sb.append(k.letters());
      assertEquals(s, sb.toString());
    }
    assertEquals(List.of(ParamKind.VARYING, new ParamKind.Uniform(32), new ParamKind.Linear(4, 16), new ParamKind.Linear(-8)),
        ParamKind.parseLetters("vua32l4a16ln8"));
    assertEquals(new ParamKind.Linear(1), ParamKind.linear(1));
    assertEquals(ParamKind.UNIFORM, new ParamKind.Uniform(1));
    assertEquals(64, ParamKind.parseLetters("sa64").getFirst().alignment());
    assertEquals(new ParamKind.Linear(2, 8), new ParamKind.Linear(2).withAlignment(8));
  }

  @Test
  void badLettersSayWhy() {
    for (String s : List.of("a16", "ua3", "ua", "ln", "l0", "x", "ua0")) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ParamKind.parseLetters(s), s);
      assertFalse(e.getMessage().isBlank());
    }
    assertThrows(IllegalArgumentException.class, () -> new ParamKind.Uniform(12));
  }

  @Test
  void mangleAndDemangle() {
    VectorAbi.Variant v = new VectorAbi.Variant('d', true, 8, ParamKind.parseLetters("vl4ua32"), "shade");
    assertEquals("_ZGVdM8vl4ua32_shade", v.mangledName());
    assertEquals("_ZGVdM8vl4ua32_shade(shade_simd8)", v.attributeEntry("shade_simd8"));
    assertEquals(v, VectorAbi.demangle("_ZGVdM8vl4ua32_shade").orElseThrow());
    assertEquals(v, VectorAbi.demangle("_ZGVdM8vl4ua32_shade(shade_simd8)").orElseThrow());
    assertEquals("my_fn_2", VectorAbi.demangle("_ZGVeN16v_my_fn_2").orElseThrow().scalarName());
    assertEquals(List.of(), VectorAbi.demangle("_ZGVbN4_noargs").orElseThrow().params());
    assertTrue(VectorAbi.demangle("shade_simd8").isEmpty());
    // AArch64 Advanced SIMD (issue 18); SVE's scalable variants are not emitted
    assertEquals('n', VectorAbi.demangle("_ZGVnM4vu_f").orElseThrow().isa());
    assertEquals("_ZGVnN2v_g", new VectorAbi.Variant('n', false, 2, ParamKind.parseLetters("v"), "g").mangledName());
    for (String bad : List.of("_ZGVdN8vls1_f", "_ZGVsMxv_f", "_ZGVqN4v_f", "_ZGVdNxv_f", "_ZGVdQ8v_f", "_ZGVdN8v", "_ZGVdN8s_f", "_ZGVdN8vR4_f")) {
      assertThrows(IllegalArgumentException.class, () -> VectorAbi.demangle(bad), bad);
    }
    assertThrows(IllegalArgumentException.class, () -> new VectorAbi.Variant('d', false, 8, List.of(ParamKind.SOA), "f"));
  }

  @Test
  void isaFromTargetFeatures() {
    assertEquals('b', VectorAbi.isa("+sse,+sse2,+x87"));
    assertEquals('c', VectorAbi.isa("+avx,+sse4.2"));
    assertEquals('d', VectorAbi.isa("+avx,+avx2,+fma"));
    assertEquals('e', VectorAbi.isa("+avx,+avx2,+avx512f,+avx512vl"));
    assertEquals('b', VectorAbi.isa("-avx2,+sse2"));
    assertEquals('b', VectorAbi.isa(""));
  }
}
