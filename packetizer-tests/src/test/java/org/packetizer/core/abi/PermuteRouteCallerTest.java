package org.packetizer.core.abi;

import static org.junit.jupiter.api.Assertions.*;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.packetizer.core.Packetizer;
import org.packetizer.core.api.PacketizerOptions;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.toolchain.BundledClang;
import org.packetizer.core.toolchain.ProcessResult;

/**
 * The AVX2 route of byte-valued constant tables per CPU family (issue 16, twenty-first round), on code we did not shape:
 * {@code beyond/permute_intel.c} (tables of 256, 128 and 64 entries; Perlin-style chains and lookups under branches) by
 * the bundled clang at plain {@code -O2} for no CPU, packetized at W8 with the CPU only in the options: haswell and
 * skylake (Intel: above 64 entries the gather routes, no {@code vpermd}) and znver3 (AMD: 8 and 4 {@code vpermd} per
 * lookup as before); the 64-entry table is 2 {@code vpermd} per lookup on all three. The bundled {@code llc} (no
 * {@code -mcpu}: the functions' attributes rule) compiles them; a C caller built by GCC and by clang calls every packet
 * function as a vector function ({@code __m256i} in, {@code __m256i} out) and compares every lane with the scalar
 * function of the same object: the first lookup's index runs through every entry in every lane, and the branch's lanes
 * hold indices inside and outside the tables.
 */
class PermuteRouteCallerTest {
  @TempDir Path dir;

  static final List<String> CPUS = List.of("haswell", "skylake", "znver3");

  static final String CALLER = """
      #include <immintrin.h>
      #include <stdio.h>
      int hash256(int x, int y, int z);
      int hash128(int x, int y, int z);
      int hash64(int x, int y, int z);
      int branch_lookup(int x, int y);
      #define DECL(c) __m256i hash256_##c(__m256i, __m256i, __m256i); __m256i hash128_##c(__m256i, __m256i, __m256i); \\
        __m256i hash64_##c(__m256i, __m256i, __m256i); __m256i branch_lookup_##c(__m256i, __m256i);
      DECL(haswell) DECL(skylake) DECL(znver3)
      typedef __m256i (*v3)(__m256i, __m256i, __m256i);
      typedef __m256i (*v2)(__m256i, __m256i);
      static unsigned long long s = 0x2545F4914F6CDD1DULL;
      static unsigned rnd(void) { s ^= s << 13; s ^= s >> 7; s ^= s << 17; return (unsigned)(s >> 11); }
      static int bad = 0, lanes = 0;
      static void hashes(const char *name, v3 f, int (*g)(int, int, int)) {
        for (int p = 0; p < 1024; p++) {
          int x[8], y[8], z[8], out[8];
          for (int k = 0; k < 8; k++) {
            /* every entry in every lane: the first index is x & (size - 1); negative x and large y, z too */
            x[k] = (p + 37 * k) - (p & 256 ? 2048 : 0);
            y[k] = p < 512 ? (int)(rnd() % 600) - 300 : (int)rnd();
            z[k] = p < 512 ? (int)(rnd() % 600) - 300 : (int)rnd();
          }
          _mm256_storeu_si256((__m256i *)out, f(_mm256_loadu_si256((const __m256i *)x), _mm256_loadu_si256((const __m256i *)y),
                                                _mm256_loadu_si256((const __m256i *)z)));
          for (int k = 0; k < 8; k++, lanes++) {
            int want = g(x[k], y[k], z[k]);
            if (out[k] != want) { if (bad < 10) printf("%s packet %d lane %d (%d, %d, %d): %d, want %d\\n", name, p, k, x[k], y[k], z[k], out[k], want); bad++; }
          }
        }
      }
      static void branches(const char *name, v2 f) {
        for (int p = 0; p < 1024; p++) {
          int x[8], y[8], out[8];
          for (int k = 0; k < 8; k++) {
            /* inside and outside both tables, mixed within a packet; all lanes inside or all outside now and then */
            x[k] = p % 7 == 0 ? (int)(rnd() % 128) : p % 7 == 1 ? -1 - (int)(rnd() % 1000) : (p + 53 * k) % 400 - 60;
            y[k] = p % 7 == 0 ? (int)(rnd() % 256) : p % 7 == 1 ? 256 + (int)(rnd() % 1000) : (p * 3 + 29 * k) % 420 - 80;
          }
          _mm256_storeu_si256((__m256i *)out, f(_mm256_loadu_si256((const __m256i *)x), _mm256_loadu_si256((const __m256i *)y)));
          for (int k = 0; k < 8; k++, lanes++) {
            int want = branch_lookup(x[k], y[k]);
            if (out[k] != want) { if (bad < 10) printf("%s packet %d lane %d (%d, %d): %d, want %d\\n", name, p, k, x[k], y[k], out[k], want); bad++; }
          }
        }
      }
      #define RUN(c) hashes("hash256_" #c, hash256_##c, hash256); hashes("hash128_" #c, hash128_##c, hash128); \\
        hashes("hash64_" #c, hash64_##c, hash64); branches("branch_lookup_" #c, branch_lookup_##c);
      int main(void) {
        RUN(haswell) RUN(skylake) RUN(znver3)
        printf("%d lanes checked, %d differences\\n", lanes, bad);
        return bad != 0;
      }
      """;

  @Test
  void tablesByFamilyFromGenericBitcodeAgreeFromC() throws Exception {
    Assumptions.assumeTrue(Toolchains.hostHas("avx2"), "SKIPPED (LOUD): the host has no AVX2; the packet functions were not run from C");
    BundledClang clang = BundledClang.locate();
    try (InputStream in = PermuteRouteCallerTest.class.getResourceAsStream("/beyond/permute_intel.c")) {
      assertNotNull(in, "test resource beyond/permute_intel.c");
      Files.writeString(dir.resolve("permute_intel.c"), new String(in.readAllBytes(), StandardCharsets.UTF_8));
    }
    clang.compileToBitcode(dir, Path.of("permute_intel.c"), Path.of("kernels.bc"), List.of("-O2"));
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.load(dir.resolve("kernels.bc"))) {
      assertEquals("x86-64", m.function("hash256").orElseThrow().stringAttribute("target-cpu").orElse(""), "generic bitcode");
      for (String cpu : CPUS) {
        for (String[] k : new String[][] {{"hash256", "vvv"}, {"hash128", "vvv"}, {"hash64", "vvv"}, {"branch_lookup", "vv"}}) {
          List<String> remarks = new ArrayList<>();
          new Packetizer(PacketizerOptions.builder().width(8).params(k[1]).verifyEachPhase(true).targetCpu(cpu).remarks(r -> remarks.add(r.message()))
              .build()).run(m, k[0], k[0] + "_" + cpu);
          boolean declined = remarks.stream().anyMatch(r -> r.contains("is an Intel core, where every vpermd takes the one shuffle port"));
          assertEquals(!cpu.startsWith("znver") && !k[0].equals("hash64"), declined, () -> k[0] + " " + cpu + ": " + remarks);
        }
      }
      m.write(dir.resolve("kernels.packet.bc"));
    }
    ProcessResult asm = clang.run(List.of("llc", "-O2", "-relocation-model=pic", "kernels.packet.bc", "-o", "kernels.s"), dir);
    assertEquals(0, asm.exitCode(), asm.stderr());
    String s = Files.readString(dir.resolve("kernels.s"));
    for (String cpu : CPUS) {
      boolean amd = cpu.startsWith("znver");
      String h256 = LaneBlendsCallerTest.body(s, "hash256_" + cpu), h128 = LaneBlendsCallerTest.body(s, "hash128_" + cpu);
      String h64 = LaneBlendsCallerTest.body(s, "hash64_" + cpu);
      // six lookups per function: 8, 4 and 2 vpermd each on AMD; on Intel above 64 entries none, the gather routes instead
      assertEquals(amd ? 48 : 0, LaneBlendsCallerTest.count(h256, "vpermd"), () -> cpu + ":\n" + h256);
      assertEquals(amd ? 24 : 0, LaneBlendsCallerTest.count(h128, "vpermd"), () -> cpu + ":\n" + h128);
      assertEquals(12, LaneBlendsCallerTest.count(h64, "vpermd"), () -> cpu + ":\n" + h64);
      if (!amd) {
        assertTrue(LaneBlendsCallerTest.count(h256, "vpgatherdd") + LaneBlendsCallerTest.count(h256, "movzbl") >= 6, () -> cpu + ":\n" + h256);
        assertTrue(LaneBlendsCallerTest.count(h128, "vpgatherdd") + LaneBlendsCallerTest.count(h128, "movzbl") >= 6, () -> cpu + ":\n" + h128);
      }
    }
    Toolchains.requireGcc("PermuteRouteCallerTest's C callers");
    ProcessResult llc = clang.run(List.of("llc", "-O2", "-filetype=obj", "-relocation-model=pic", "kernels.packet.bc", "-o", "kernels.o"), dir);
    assertEquals(0, llc.exitCode(), llc.stderr());
    Files.writeString(dir.resolve("caller.c"), CALLER);
    for (String exe : Toolchains.gccAndClangCallers(clang, dir, "caller.c", List.of("-std=gnu11", "-Werror", "-mavx2"), List.of("kernels.o"))) {
      ProcessResult r = clang.run(List.of(dir.resolve(exe).toString()), dir);
      String out = r.stdoutText();
      assertEquals(0, r.exitCode(), exe + ": lanes differ from the scalar functions (exit " + r.exitCode() + "; 139 is a fault):\n" + out + r.stderr());
      assertTrue(out.contains((3 * 4 * 1024 * 8) + " lanes checked, 0 differences"), out);
    }
  }
}
