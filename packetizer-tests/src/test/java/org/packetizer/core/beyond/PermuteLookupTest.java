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
import org.packetizer.core.widen.PermuteLookup;
import org.packetizer.core.widen.PermuteLookup.Isa;

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
  /** W 4, 8, 16 on SSE4.2 (x86-64-v2), AVX2 (haswell), AVX-512 without VBMI (skylake-avx512) and with it (znver4), at -O1 and -O2. */
  static java.util.stream.Stream<org.junit.jupiter.params.provider.Arguments> cases() {
    List<org.junit.jupiter.params.provider.Arguments> out = new ArrayList<>();
    for (int w : new int[] {4, 8, 16}) for (String cpu : CPUS) for (String o : new String[] {"-O1", "-O2"}) {
      out.add(org.junit.jupiter.params.provider.Arguments.of(w, cpu, o));
    }
    return out.stream();
  }

  private static final List<String> CPUS = List.of("x86-64-v2", "haswell", "skylake-avx512", "znver4");

  @ParameterizedTest(name = "W={0} {1} {2}")
  @MethodSource("cases")
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
      // the small tables of the AVX2, SSE4.1 and AVX-512F routes
      ParamSpec near = ParamSpec.varying(ValueDomain.ints(-24, 40));
      TableLookupTest.check(m, "perm64_chain", w, cpu, "vvv", 200 + w, x, x, x);
      TableLookupTest.check(m, "s16_under_branch", w, cpu, "vv", 210 + w, near, x);
      TableLookupTest.check(m, "sh40_ends", w, cpu, "v", 220 + w, any);
      TableLookupTest.check(m, "u8ints_lookup", w, cpu, "v", 230 + w, any);
      TableLookupTest.check(m, "p16_lookup", w, cpu, "v", 240 + w, any);
      TableLookupTest.check(m, "u128_lookup", w, cpu, "v", 250 + w, any);
    }
  }

  /**
   * Larger tables by the size knob ({@code -Dpacketizer.permuteLookupEntries=256}): on SSE4.1 128
   * entries as 8 {@code pshufb} and Perlin's 256 as 16; on AVX2 (256 by default) the same routes.
   */
  @ParameterizedTest(name = "W={0} {1}")
  @org.junit.jupiter.params.provider.CsvSource({"4,x86-64-v2", "8,x86-64-v2", "8,haswell", "16,haswell"})
  void largerTablesByTheSizeKnob(int w, String cpu) {
    String saved = System.setProperty("packetizer.permuteLookupEntries", "256");
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = PlainC.compile(ctx, "permute_lookup.c", "-O2", "-march=" + cpu)) {
      ParamSpec x = ParamSpec.varying(ValueDomain.ints(-100000, 100000));
      ParamSpec any = ParamSpec.varying(ValueDomain.ints(Integer.MIN_VALUE, Integer.MAX_VALUE));
      TableLookupTest.check(m, "u128_lookup", w, cpu, "v", 260 + w, any);
      TableLookupTest.check(m, "perm_hash", w, cpu, "vvv", 270 + w, x, x, x);
      TableLookupTest.check(m, "signed_under_branch", w, cpu, "vv", 280 + w, x, x);
      List<Remark> rs = new ArrayList<>();
      String u = packetize(m, "u128_lookup", "v", w, cpu, rs);
      assertEquals(2, routeRemarks(rs, cpu.equals("haswell") ? "4 dword permutes in registers (AVX2 vpermd" : "8 byte shuffles in registers (SSSE3 pshufb"), rs::toString);
      assertEquals(0, count(u, "@llvm.masked.gather") + count(u, "gather.d.d"), u);
    } finally {
      restore("packetizer.permuteLookupEntries", saved);
    }
  }

  private static void restore(String key, String saved) {
    if (saved == null) System.clearProperty(key);
    else System.setProperty(key, saved);
  }

  private static long routeRemarks(List<Remark> rs, String text) {
    return rs.stream().filter(r -> r.kind() == Remark.Kind.MEMORY && r.message().contains(text)).count();
  }

  /**
   * The route per target and table size: AVX2 {@code vpshufb} up to 16 entries and {@code vpermd} up to
   * 256 on AMD (znver3), 64 on Intel (haswell), SSE4.1 {@code pshufb} up to 64, AVX-512F {@code vpermi2d} up to 512;
   * no gather and no scalar load where a route applies; larger tables keep the earlier routes on AVX2 and SSE4.1.
   */
  @Test
  void smallTablesArePermutedOnAvx2Sse41AndAvx512() {
    for (String opt : List.of("-O1", "-O2")) {
      for (String cpu : List.of("x86-64-v2", "haswell", "znver3", "skylake-avx512")) {
        try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = PlainC.compile(ctx, "permute_lookup.c", opt, "-march=" + cpu)) {
          boolean avx2 = cpu.equals("haswell") || cpu.equals("znver3");
          int w = cpu.equals("x86-64-v2") ? 4 : avx2 ? 8 : 16;
          String what = opt + " " + cpu;
          String perm = switch (cpu) {
            case "haswell", "znver3" -> "call <8 x i32> @llvm.x86.avx2.permd(";
            case "x86-64-v2" -> "call <16 x i8> @llvm.x86.ssse3.pshuf.b.128(";
            default -> "call <16 x i32> @llvm.x86.avx512.vpermi2var.d.512(";
          };
          // volume's chain: three lookups in 64 bytes, 2 vpermd (1 blend) / 4 pshufb (3 blends) / 1 vpermi2d each
          List<Remark> rs = new ArrayList<>();
          String c = packetize(m, "perm64_chain", "vvv", w, cpu, rs);
          String route = switch (cpu) {
            case "haswell", "znver3" -> "(64 x i8, values 0..255) became 2 dword permutes in registers (AVX2 vpermd, 4 entries per dword, a variable shift, 1 blend on index bits)";
            case "x86-64-v2" -> "(64 x i8, values 0..255) became 4 byte shuffles in registers (SSSE3 pshufb, SSE4.1 blends, 3 blends on index bits)";
            default -> "(64 x i8, values 0..255) became 1 dword permute in registers (AVX-512 vpermi2d, 4 entries per dword, a variable shift)";
          };
          assertEquals(3, routeRemarks(rs, route), what + "\n" + rs + "\n" + c);
          assertEquals(avx2 ? 6 : cpu.equals("x86-64-v2") ? 12 : 3, count(c, perm), what + "\n" + c);
          assertEquals(0, count(c, "load i8") + count(c, "gather"), what + "\n" + c);
          // 16 signed bytes under a branch: one vpshufb on AVX2, a sign extension, no mask
          rs.clear();
          String s = packetize(m, "s16_under_branch", "vv", w, cpu, rs);
          assertEquals(1, routeRemarks(rs, avx2 ? "became 1 byte shuffle in registers (AVX2 vpshufb): no memory access, so no mask"
              : cpu.equals("x86-64-v2") ? "became 1 byte shuffle in registers (SSSE3 pshufb, SSE4.1 blends): no memory access, so no mask"
              : "became 1 dword permute in registers (AVX-512 vpermi2d, 4 entries per dword): no memory access, so no mask"), what + "\n" + rs);
          assertTrue(s.contains("sext <" + w + " x i8>") || s.contains("ashr exact <" + w + " x i32>") || s.contains("ashr <" + w + " x i32>"), what + "\n" + s);
          assertEquals(0, count(s, "load i8") + count(s, "gather"), what + "\n" + s);
          // up to 32 entries one vpermi2d needs no byte shift
          if (cpu.equals("skylake-avx512")) assertEquals(0, count(s, "lshr <16 x i32>"), what + "\n" + s);
          // the 40 signed shorts: two vpermd; 8 ints: one vpshufb
          rs.clear();
          packetize(m, "sh40_ends", "v", w, cpu, rs);
          assertEquals(3, routeRemarks(rs, "(40 x i16, values -128..127) became"), what + "\n" + rs);
          if (avx2) {
            assertEquals(3, routeRemarks(rs, "became 2 dword permutes"), what + "\n" + rs);
            rs.clear();
            String u = packetize(m, "u8ints_lookup", "v", w, cpu, rs);
            assertEquals(2, routeRemarks(rs, "(8 x i32, values 0..255) became 1 byte shuffle in registers (AVX2 vpshufb)"), what + "\n" + rs);
            assertEquals(2, count(u, "call <32 x i8> @llvm.x86.avx2.pshuf.b("), what + "\n" + u);
          }
          // the periodic 256 bytes: 16 entries
          rs.clear();
          packetize(m, "p16_lookup", "v", w, cpu, rs);
          assertEquals(2, routeRemarks(rs, "(256 x i8, values 0..255, period 16) became 1 "), what + "\n" + rs);
          // 128 entries: AVX2 on AMD (4 vpermd) and AVX-512 (1 vpermi2d), not SSE4.1, not AVX2 on Intel (above its 64
          // entries since the twenty-first round); Perlin's 256-entry table: 8 vpermd on AMD's AVX2, 2 vpermi2d on AVX-512,
          // the scalar loads on SSE4.1, the gather routes on Intel's AVX2 (each lookup with a remark naming why)
          rs.clear();
          packetize(m, "u128_lookup", "v", w, cpu, rs);
          assertEquals(cpu.equals("x86-64-v2") || cpu.equals("haswell") ? 0 : 2,
              routeRemarks(rs, "(128 x i8, values 0..255) became " + (cpu.equals("znver3") ? "4" : "1")), what + "\n" + rs);
          assertEquals(cpu.equals("haswell") ? 2 : 0, routeRemarks(rs, "(128 x i8, values 0..255): not as 4 dword permutes in registers"
              + " (AVX2 vpermd, 4 entries per dword, a variable shift, 3 blends on index bits): the target (haswell) is an Intel core"), what + "\n" + rs);
          rs.clear();
          String p = packetize(m, "perm_hash", "vvv", w, cpu, rs);
          assertEquals(cpu.equals("x86-64-v2") || cpu.equals("haswell") ? 0 : 14, routeRemarks(rs, "(512 x i32, values 0..255, period 256) became "
              + (cpu.equals("znver3") ? "8 dword permutes in registers (AVX2 vpermd, 4 entries per dword, a variable shift, 7 blends"
                  : "2 dword permutes in registers (AVX-512 vpermi2d, 4 entries per dword, a variable shift, 1 blend")), what + "\n" + rs);
          // (7 on haswell: the first of each pair perm[A], perm[A + 1]; the second comes with its pair's load)
          assertEquals(cpu.equals("haswell") ? 7 : 0, routeRemarks(rs, "(512 x i32, values 0..255, period 256): not as 8 dword permutes"
              + " in registers (AVX2 vpermd, 4 entries per dword, a variable shift, 7 blends on index bits): the target (haswell) is an Intel core"),
              what + "\n" + rs);
          if (cpu.equals("haswell")) assertEquals(0, count(p, "permd"), what + "\n" + p);
          else if (!cpu.equals("x86-64-v2")) assertEquals(0, count(p, "gather") + count(p, "load i32"), what + "\n" + p);
          // 512 ints without a period: not on AVX2 (above 256 entries), 4 vpermi2d on AVX-512
          rs.clear();
          packetize(m, "int_table", "v", w, cpu, rs);
          assertEquals(cpu.equals("skylake-avx512") ? 2 : 0, routeRemarks(rs, "(512 x i32, values 0..255) became 4 dword permutes"), what + "\n" + rs);
          assertEquals(0, permuteRemarks(rs), what);
        }
      }
    }
  }

  /**
   * Byte tables of 256, 128 and 64 entries on AVX2 (twenty-first round, {@code beyond/permute_intel.c} by clang -O2):
   * every lane against the scalar function, unmasked and masked, on Intel's cores (the gather routes above 64
   * entries: word gathers, per-lane loads where LLVM expands them) and AMD's (the permutes), at W4 (one vpermd per
   * 8 lanes, padded), W8 and W16 (two parts); the branch's inactive lanes hold indices outside the tables.
   */
  @ParameterizedTest(name = "W={0} {1}")
  @org.junit.jupiter.params.provider.CsvSource({"4,haswell", "8,haswell", "16,haswell", "8,skylake", "16,skylake", "8,alderlake",
      "8,x86-64-v3", "4,znver3", "8,znver3", "16,znver3"})
  void intelAndAmdAvx2TablesAgreeWithScalar(int w, String cpu) {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = PlainC.compile(ctx, "permute_intel.c", "-O2", "-march=" + cpu)) {
      ParamSpec x = ParamSpec.varying(ValueDomain.ints(-100000, 100000));
      ParamSpec near = ParamSpec.varying(ValueDomain.ints(-40, 300));
      TableLookupTest.check(m, "hash256", w, cpu, "vvv", 300 + w, x, x, x);
      TableLookupTest.check(m, "hash128", w, cpu, "vvv", 310 + w, x, x, x);
      TableLookupTest.check(m, "hash64", w, cpu, "vvv", 320 + w, x, x, x);
      TableLookupTest.check(m, "branch_lookup", w, cpu, "vv", 330 + w, near, near);
    }
  }

  private static final String PERMD = "call <8 x i32> @llvm.x86.avx2.permd(";

  /**
   * The AVX2 limit per CPU family (twenty-first round): on Intel's cores (haswell, skylake, alderlake, and x86-64-v3,
   * which LLVM schedules as Haswell) tables above 64 entries are not permuted, each such lookup with a remark naming
   * the route not taken and why; AMD's (znver3, znver2) keep 8 and 4 {@code vpermd} per lookup in 256 and 128 entries;
   * 64 entries are 2 {@code vpermd} everywhere. The knobs: {@code permuteLookupEntries.intel=256} gives Intel the
   * permutes back, {@code permuteLookupEntries=64} sets every limit (AMD's too).
   */
  @Test
  void intelAvx2CoresTakeTheGatherRoutesAbove64Entries() {
    for (String cpu : List.of("haswell", "skylake", "alderlake", "x86-64-v3", "znver3", "znver2")) {
      boolean intel = !cpu.startsWith("znver");
      try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = PlainC.compile(ctx, "permute_intel.c", "-O2", "-march=" + cpu)) {
        List<Remark> rs = new ArrayList<>();
        String h = packetize(m, "hash256", "vvv", 8, cpu, rs);
        assertEquals(intel ? 0 : 48, count(h, PERMD), cpu + "\n" + h);
        assertEquals(intel ? 6 : 0, routeRemarks(rs, "(256 x i8, values 0..255): not as 8 dword permutes in registers (AVX2 vpermd, 4 entries"
            + " per dword, a variable shift, 7 blends on index bits): the target (" + cpu + ") is an Intel core, where every vpermd takes the one"
            + " shuffle port"), cpu + "\n" + rs);
        assertEquals(intel ? 0 : 6, routeRemarks(rs, "(256 x i8, values 0..255) became 8 dword permutes"), cpu + "\n" + rs);
        if (intel) assertTrue(count(h, "gather") + count(h, "load i8") + count(h, "load i32") >= 6, cpu + "\n" + h);
        rs.clear();
        String q = packetize(m, "hash128", "vvv", 8, cpu, rs);
        assertEquals(intel ? 0 : 24, count(q, PERMD), cpu + "\n" + q);
        assertEquals(intel ? 6 : 0, routeRemarks(rs, "(128 x i8, values 0..255): not as 4 dword permutes in registers"), cpu + "\n" + rs);
        assertEquals(intel ? 6 : 0, routeRemarks(rs, "above 64 entries the gather routes"), cpu + "\n" + rs);
        rs.clear();
        String s = packetize(m, "hash64", "vvv", 8, cpu, rs);
        assertEquals(12, count(s, PERMD), cpu + "\n" + s);
        assertEquals(6, routeRemarks(rs, "(64 x i8, values 0..255) became 2 dword permutes"), cpu + "\n" + rs);
        assertEquals(0, count(s, "gather") + count(s, "load i8"), cpu + "\n" + s);
        rs.clear();
        String b = packetize(m, "branch_lookup", "vv", 8, cpu, rs);
        assertEquals(intel ? 0 : 12, count(b, PERMD), cpu + "\n" + b);
        assertEquals(intel ? 2 : 0, routeRemarks(rs, "is an Intel core"), cpu + "\n" + rs);
      }
    }
    String saved = System.setProperty("packetizer.permuteLookupEntries.intel", "256");
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = PlainC.compile(ctx, "permute_intel.c", "-O2", "-march=haswell")) {
      List<Remark> rs = new ArrayList<>();
      assertEquals(48, count(packetize(m, "hash256", "vvv", 8, "haswell", rs), PERMD), rs::toString);
      assertEquals(0, routeRemarks(rs, "is an Intel core"), rs::toString);
    } finally {
      restore("packetizer.permuteLookupEntries.intel", saved);
    }
    saved = System.setProperty("packetizer.permuteLookupEntries", "64");
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = PlainC.compile(ctx, "permute_intel.c", "-O2", "-march=znver3")) {
      List<Remark> rs = new ArrayList<>();
      assertEquals(0, count(packetize(m, "hash128", "vvv", 8, "znver3", rs), PERMD), rs::toString);
      assertEquals(12, count(packetize(m, "hash64", "vvv", 8, "znver3", rs), PERMD), rs::toString);
    } finally {
      restore("packetizer.permuteLookupEntries", saved);
    }
  }

  /** {@code -Dpacketizer.permuteLookups=vbmi}: only the tenth round's VBMI route; the small tables keep their gathers and loads. */
  @Test
  void vbmiOnlyKnobKeepsTheEarlierRoutesElsewhere() {
    String saved = System.setProperty("packetizer.permuteLookups", "vbmi");
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = PlainC.compile(ctx, "permute_lookup.c", "-O2", "-march=haswell");
        LlvmModule z = PlainC.compile(ctx, "permute_lookup.c", "-O2", "-march=znver4")) {
      for (String cpu : List.of("haswell", "x86-64-v2", "skylake-avx512")) {
        List<Remark> rs = new ArrayList<>();
        String c = packetize(m, "perm64_chain", "vvv", 8, cpu, rs);
        assertEquals(0, routeRemarks(rs, "in registers ("), cpu + "\n" + rs);
        assertEquals(0, count(c, "permd") + count(c, "pshuf.b") + count(c, "vpermi2var"), c);
      }
      List<Remark> rs = new ArrayList<>();
      packetize(z, "perm64_chain", "vvv", 16, "znver4", rs);
      assertEquals(3, permuteRemarks(rs), rs::toString);
    } finally {
      restore("packetizer.permuteLookups", saved);
    }
  }

  @Test
  void isaLevels() {
    assertEquals(Isa.VBMI, PermuteLookup.isa("znver4", null));
    assertEquals(Isa.AVX512, PermuteLookup.isa("znver4", "-avx512vbmi"));
    assertEquals(Isa.AVX512, PermuteLookup.isa("skylake-avx512", ""));
    assertEquals(Isa.AVX2, PermuteLookup.isa("skylake-avx512", "-evex512"));
    assertEquals(Isa.AVX2, PermuteLookup.isa("haswell", "+avx,+avx2,+sse4.1"));
    assertEquals(Isa.AVX2, PermuteLookup.isa("x86-64", "+avx2,+sse4.1"));
    assertEquals(Isa.AVX2, PermuteLookup.isa("haswell", "+avx512vbmi"));
    assertEquals(Isa.SSE41, PermuteLookup.isa("x86-64-v2", null));
    assertEquals(Isa.SSE41, PermuteLookup.isa("haswell", "-avx2"));
    assertEquals(Isa.SSE41, PermuteLookup.isa("sandybridge", ""));
    assertEquals(Isa.NONE, PermuteLookup.isa("x86-64", "+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87"));
    assertEquals(Isa.NONE, PermuteLookup.isa("core2", null));
    assertEquals(Isa.NONE, PermuteLookup.isa(null, null));
    assertEquals(Isa.NONE, PermuteLookup.isa("haswell", "-ssse3"));
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
        // no VBMI: haswell (AVX2), skylake-avx512 (AVX-512 without VBMI; their routes are checked by
        // smallTablesArePermutedOnAvx2Sse41AndAvx512)
        for (var c : List.of(java.util.Map.entry("haswell", hw), java.util.Map.entry("skylake-avx512", skx))) {
          rs.clear();
          String o = packetize(c.getValue(), "perm_hash", "vvv", c.getKey().equals("haswell") ? 8 : 16, c.getKey(), rs);
          assertEquals(0, permuteRemarks(rs), c.getKey() + "\n" + o);
          assertEquals(0, count(o, "vpermi2var.qi"), o);
        }
        // code whose own attributes say x86-64 under options naming znver4: the packet function carries znver4 since the
        // nineteenth round (RunTarget; before, it kept x86-64 and no permute was made), so the same permutes as above
        rs.clear();
        String g = packetize(generic, "perm_hash", "vvv", 16, "znver4", rs);
        assertEquals(14, permuteRemarks(rs), opt + "\n" + g);
        assertEquals(28, count(g, PERMUTE), g);
        assertEquals("znver4", generic.function("perm_hash_znver416").orElseThrow().stringAttribute("target-cpu").orElse(""));
        assertEquals("x86-64", generic.function("perm_hash").orElseThrow().stringAttribute("target-cpu").orElse(""));
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
