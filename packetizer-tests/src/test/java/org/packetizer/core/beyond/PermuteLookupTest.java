package org.packetizer.core.beyond;

import static org.junit.jupiter.api.Assertions.*;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.packetizer.core.Packetizer;
import org.packetizer.core.api.PacketizerOptions;
import org.packetizer.core.api.Remark;
import org.packetizer.core.check.ParamSpec;
import org.packetizer.core.check.ValueDomain;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;

/**
 * Lookups in small constant tables of byte-sized values as byte permutes in registers (issue 16,
 * W16/AVX-512: noise3's {@code perm}, volume's {@code vperm}): foreign C ({@code beyond/permute_lookup.c},
 * plain {@code -O1}/{@code -O2}) with a periodic 512-entry int table (Perlin hashing), signed bytes
 * looked up under a divergent branch whose inactive lanes hold indices outside the table, 300
 * unsigned shorts (four permutes), signed shorts (a sign extension) and 512 ints without a period (index bits 7 and 8 both choose).
 * Differential at W=4, 8, 16 on x86-64-v2, haswell and znver4 (the permute route runs on znver4; W4
 * and W8 pad the index to 16 lanes), unmasked and masked packet functions. Structure: the permutes
 * and no gather on znver4; none on haswell, skylake-avx512 (no VBMI) or with the knob off; a table
 * with an entry of 256 and a writable table keep their gathers.
 */
class PermuteLookupTest {
  @ParameterizedTest(name = "W={0} {1} {2}")
  @MethodSource("org.packetizer.core.beyond.PlainC#widthCpuOptCases")
  void agreesWithScalar(int w, String cpu, String opt) {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = PlainC.compile(ctx, "permute_lookup.c", opt, "-march=" + cpu)) {
      ParamSpec x = ParamSpec.varying(ValueDomain.ints(-100000, 100000));
      ParamSpec any = ParamSpec.varying(ValueDomain.ints(Integer.MIN_VALUE, Integer.MAX_VALUE));
      TableLookupTest.check(m, "perm_hash", w, cpu, "vvv", 40 + w, x, x, x);
      TableLookupTest.check(m, "signed_under_branch", w, cpu, "vv", 50 + w, x, x);
      TableLookupTest.check(m, "short_table", w, cpu, "v", 60 + w, any);
      TableLookupTest.check(m, "int_table", w, cpu, "v", 70 + w, any);
      TableLookupTest.check(m, "signed_shorts", w, cpu, "v", 90 + w, any);
      TableLookupTest.check(m, "not_permuted", w, cpu, "v", 80 + w, any);
    }
  }

  /** W32 (two 16-lane permute groups, concatenated) and W2 (padded) on znver4. */
  @ParameterizedTest(name = "W={0}")
  @org.junit.jupiter.params.provider.ValueSource(ints = {2, 32})
  void otherWidths(int w) {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = PlainC.compile(ctx, "permute_lookup.c", "-O2", "-march=znver4")) {
      ParamSpec x = ParamSpec.varying(ValueDomain.ints(-100000, 100000));
      ParamSpec any = ParamSpec.varying(ValueDomain.ints(Integer.MIN_VALUE, Integer.MAX_VALUE));
      TableLookupTest.check(m, "perm_hash", w, "znver4", "vvv", 140 + w, x, x, x);
      TableLookupTest.check(m, "signed_under_branch", w, "znver4", "vv", 150 + w, x, x);
      TableLookupTest.check(m, "int_table", w, "znver4", "v", 170 + w, any);
      TableLookupTest.check(m, "signed_shorts", w, "znver4", "v", 190 + w, any);
      List<Remark> rs = new ArrayList<>();
      String i = packetize(m, "int_table", "v", w, "znver4", rs);
      assertEquals(2, permuteRemarks(rs), i);
      assertEquals(w == 32 ? 16 : 8, count(i, PERMUTE), i);
    }
  }

  private static String packetize(LlvmModule m, String fn, String params, int w, String cpu, List<Remark> remarks) {
    String name = fn + "_" + cpu.replace('-', '_') + w;
    new Packetizer(PacketizerOptions.builder().width(w).params(params).targetCpu(cpu).remarks(remarks::add).build()).run(m, fn, name);
    return m.function(name).orElseThrow().print();
  }

  private static int count(String s, String what) {
    int n = 0;
    for (int i = s.indexOf(what); i >= 0; i = s.indexOf(what, i + 1)) n++;
    return n;
  }

  private static long permuteRemarks(List<Remark> rs) {
    return rs.stream().filter(r -> r.kind() == Remark.Kind.MEMORY && r.message().contains("in registers (AVX-512 VBMI vpermi2b")).count();
  }

  private static final String PERMUTE = "call <64 x i8> @llvm.x86.avx512.vpermi2var.qi.512(";

  @Test
  void byteValuedConstantTablesArePermutedOnVbmiTargets() {
    for (String opt : List.of("-O1", "-O2")) {
      try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = PlainC.compile(ctx, "permute_lookup.c", opt, "-march=znver4");
          LlvmModule hw = PlainC.compile(ctx, "permute_lookup.c", opt, "-march=haswell");
          LlvmModule skx = PlainC.compile(ctx, "permute_lookup.c", opt, "-march=skylake-avx512");
          LlvmModule generic = PlainC.compile(ctx, "permute_lookup.c", opt)) {
        // Perlin hashing: 14 lookups in a table of period 256, two permutes each, no gather, no pairs
        List<Remark> rs = new ArrayList<>();
        String h = packetize(m, "perm_hash", "vvv", 16, "znver4", rs);
        assertEquals(14, permuteRemarks(rs), opt + "\n" + h);
        assertEquals(28, count(h, PERMUTE), h);
        assertEquals(0, count(h, "@llvm.masked.gather"), h);
        assertTrue(rs.stream().anyMatch(r -> r.message().contains("(512 x i32, values 0..255, period 256) became 2 byte permutes")), rs::toString);
        // signed bytes under a divergent branch: no mask needed, a sign extension
        rs.clear();
        String s = packetize(m, "signed_under_branch", "vv", 16, "znver4", rs);
        assertEquals(1, permuteRemarks(rs), s);
        assertEquals(2, count(s, PERMUTE), s);
        assertTrue(s.contains("sext <16 x i8>") || s.contains("ashr exact <16 x i32>") && s.contains("splat (i32 24)"), s);
        assertEquals(0, count(s, "@llvm.masked.gather"), s);
        // 300 shorts: four permutes per lookup; 512 ints: four each
        rs.clear();
        String w = packetize(m, "short_table", "v", 16, "znver4", rs);
        assertEquals(2, permuteRemarks(rs), w);
        assertEquals(8, count(w, PERMUTE), w);
        rs.clear();
        String i = packetize(m, "int_table", "v", 16, "znver4", rs);
        assertEquals(2, permuteRemarks(rs), i);
        assertEquals(8, count(i, PERMUTE), i);
        rs.clear();
        String ss = packetize(m, "signed_shorts", "v", 16, "znver4", rs);
        assertEquals(1, permuteRemarks(rs), ss);
        assertTrue(rs.stream().anyMatch(r -> r.message().contains("(100 x i16, values -128..127) became 1 byte permute")), rs::toString);
        // W8 on znver4: padded to 16 lanes
        rs.clear();
        String i8 = packetize(m, "int_table", "v", 8, "znver4", rs);
        assertEquals(2, permuteRemarks(rs), i8);
        // not fit: an entry of 256, a writable table
        rs.clear();
        String n = packetize(m, "not_permuted", "v", 16, "znver4", rs);
        assertEquals(0, permuteRemarks(rs), n);
        assertEquals(0, count(n, PERMUTE), n);
        // no VBMI: haswell (AVX2), skylake-avx512 (AVX-512 without VBMI); and code whose own attributes
        // say x86-64 (a JIT compiles it by them) although the options name znver4
        for (var c : List.of(java.util.Map.entry("haswell", hw), java.util.Map.entry("skylake-avx512", skx), java.util.Map.entry("znver4", generic))) {
          rs.clear();
          String o = packetize(c.getValue(), "perm_hash", "vvv", c.getKey().equals("haswell") ? 8 : 16, c.getKey(), rs);
          assertEquals(0, permuteRemarks(rs), c.getKey() + "\n" + o);
          assertEquals(0, count(o, "vpermi2var.qi"), o);
        }
      }
    }
  }

  @Test
  void knobOffKeepsTheGatherRoutes() {
    String saved = System.setProperty("packetizer.permuteLookups", "false");
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = PlainC.compile(ctx, "permute_lookup.c", "-O2", "-march=znver4")) {
      List<Remark> rs = new ArrayList<>();
      String h = packetize(m, "perm_hash", "vvv", 16, "znver4", rs);
      assertEquals(0, permuteRemarks(rs), h);
      assertEquals(0, count(h, "vpermi2var.qi"), h);
      assertTrue(count(h, "@llvm.masked.gather") > 0, h);
    } finally {
      if (saved == null) System.clearProperty("packetizer.permuteLookups");
      else System.setProperty("packetizer.permuteLookups", saved);
    }
  }

  @Test
  void vbmiTargets() {
    assertTrue(org.packetizer.core.widen.PermuteLookup.vbmi("znver4", ""));
    assertTrue(org.packetizer.core.widen.PermuteLookup.vbmi("znver5", null));
    assertTrue(org.packetizer.core.widen.PermuteLookup.vbmi("x86-64-v4", "+avx512f,+avx512bw,+avx512vbmi"));
    assertFalse(org.packetizer.core.widen.PermuteLookup.vbmi("x86-64-v4", "+avx512f,+avx512bw,+avx512vbmi2"));
    assertFalse(org.packetizer.core.widen.PermuteLookup.vbmi("skylake-avx512", ""));
    assertFalse(org.packetizer.core.widen.PermuteLookup.vbmi("znver4", "-avx512vbmi"));
    assertFalse(org.packetizer.core.widen.PermuteLookup.vbmi("haswell", ""));
  }
}
