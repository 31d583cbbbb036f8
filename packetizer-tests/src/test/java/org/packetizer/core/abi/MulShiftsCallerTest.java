package org.packetizer.core.abi;

import static org.junit.jupiter.api.Assertions.*;

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
 * Multiplies by constants on a recurrence as shifts and adds (issue 16, twenty-second round: {@code widen.MulShifts}) from
 * C: FNV-1a 32-bit and 64-bit over a key's bytes, a per-lane number of rounds, written as a C programmer writes them,
 * compiled by the bundled clang at plain {@code -O2} for no CPU, packetized for haswell named in the options only (the
 * remark names the multiply; the packet functions' assembly from the bundled {@code llc} has shifts and no
 * {@code vpmulld} / {@code vpmuludq}), and called directly, as vector functions, from a C caller of its own built by GCC
 * and by clang: every lane of 20000 packets (random keys and rounds, all lanes equal, rounds 0 and the maximum) against
 * the scalar functions of the same object.
 */
class MulShiftsCallerTest {
  @TempDir Path dir;

  static final String KERNELS = """
      typedef unsigned int u32;
      typedef unsigned long long u64;
      u32 fnv32(u32 key, int rounds) {
        u32 h = 2166136261u;
        for (int r = 0; r < rounds; ++r) {
          for (int i = 0; i < 4; ++i) { h ^= (key >> (8 * i)) & 0xffu; h *= 16777619u; }
          key += (u32)r;
        }
        return h;
      }
      u64 fnv64(u64 key, int rounds) {
        u64 h = 14695981039346656037ull;
        for (int r = 0; r < rounds; ++r) {
          for (int i = 0; i < 8; ++i) { h ^= (key >> (8 * i)) & 0xffu; h *= 1099511628211ull; }
          key = key * 3 + 1;
        }
        return h;
      }
      """;

  static final String CALLER = """
      #include <immintrin.h>
      #include <stdio.h>
      typedef unsigned int u32;
      typedef unsigned long long u64;
      u32 fnv32(u32 key, int rounds);
      u64 fnv64(u64 key, int rounds);
      __m256i fnv32_simd8(__m256i key, __m256i rounds);
      __m256i fnv64_simd4(__m256i key, __m128i rounds);
      static u64 s = 88172645463325252ULL;
      static u64 rnd(void) { s ^= s << 13; s ^= s >> 7; s ^= s << 17; return s; }
      int main(void) {
        int bad = 0, packets = 0;
        for (int p = 0; p < 20000; p++) {
          u32 k32[8], o32[8]; int r8[8], r4[4]; u64 k64[4], o64[4];
          u32 same = (u32)rnd(); int mode = p % 4;
          for (int k = 0; k < 8; k++) {
            k32[k] = mode == 1 ? same : (u32)rnd();
            r8[k] = mode == 2 ? 0 : mode == 3 ? 12 : (int)(rnd() % 13);
          }
          for (int k = 0; k < 4; k++) {
            k64[k] = mode == 1 ? (u64)same * 0x9E3779B97F4A7C15ull : rnd();
            r4[k] = mode == 2 ? 0 : mode == 3 ? 9 : (int)(rnd() % 10);
          }
          _mm256_storeu_si256((__m256i *)o32, fnv32_simd8(_mm256_loadu_si256((const __m256i *)k32), _mm256_loadu_si256((const __m256i *)r8)));
          _mm256_storeu_si256((__m256i *)o64, fnv64_simd4(_mm256_loadu_si256((const __m256i *)k64), _mm_loadu_si128((const __m128i *)r4)));
          for (int k = 0; k < 8; k++) {
            u32 e = fnv32(k32[k], r8[k]);
            if (e != o32[k]) { if (bad < 10) printf("fnv32 lane %d (%u, %d): %u vs %u\\n", k, k32[k], r8[k], o32[k], e); bad++; }
          }
          for (int k = 0; k < 4; k++) {
            u64 e = fnv64(k64[k], r4[k]);
            if (e != o64[k]) { if (bad < 10) printf("fnv64 lane %d (%llu, %d): %llu vs %llu\\n", k, k64[k], r4[k], o64[k], e); bad++; }
          }
          packets++;
        }
        printf("%d packets of two kernels checked, %d differences\\n", packets, bad);
        return bad != 0;
      }
      """;

  @Test
  void fnvFromCAgreesWithTheScalarFunctions() throws Exception {
    Assumptions.assumeTrue(Toolchains.hostHas("avx2"), "SKIPPED (LOUD): the host has no AVX2; the haswell packet functions were not run from C");
    Toolchains.requireGcc("MulShiftsCallerTest");
    BundledClang clang = BundledClang.locate();
    Files.writeString(dir.resolve("fnv.c"), KERNELS);
    clang.compileToBitcode(dir, Path.of("fnv.c"), Path.of("kernels.bc"), List.of("-O2"));
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.load(dir.resolve("kernels.bc"))) {
      for (String[] k : new String[][] {{"fnv32", "8", "16777619"}, {"fnv64", "4", "1099511628211"}}) {
        assertEquals("x86-64", m.function(k[0]).orElseThrow().stringAttribute("target-cpu").orElse(""), "generic bitcode");
        List<String> remarks = new ArrayList<>();
        new Packetizer(PacketizerOptions.builder().width(Integer.parseInt(k[1])).params("vv").verifyEachPhase(true).targetCpu("haswell")
            .remarks(x -> remarks.add(x.message())).build()).run(m, k[0], k[0] + "_simd" + k[1]);
        assertTrue(remarks.stream().anyMatch(x -> x.startsWith("multiply by a constant as shifts and adds") && x.contains("x * " + k[2] + " ")
            && x.contains("on haswell (intel family), on a loop-carried recurrence")), () -> k[0] + ": " + remarks);
      }
      m.write(dir.resolve("kernel.packet.bc"));
    }
    ProcessResult asm = clang.run(List.of("llc", "-O2", "-mcpu=haswell", "-relocation-model=pic", dir.resolve("kernel.packet.bc").toString(),
        "-o", dir.resolve("kernel.s").toString()), dir);
    assertEquals(0, asm.exitCode(), asm.stderr());
    String s = Files.readString(dir.resolve("kernel.s"));
    String b32 = LaneBlendsCallerTest.body(s, "fnv32_simd8");
    assertEquals(0, LaneBlendsCallerTest.count(b32, "vpmulld"), b32);
    assertTrue(LaneBlendsCallerTest.count(b32, "vpslld") >= 3, b32);
    String b64 = LaneBlendsCallerTest.body(s, "fnv64_simd4");
    assertEquals(0, LaneBlendsCallerTest.count(b64, "vpmuludq"), b64);
    assertTrue(LaneBlendsCallerTest.count(b64, "vpsllq") >= 4, b64);
    Files.writeString(dir.resolve("caller.c"), CALLER);
    ProcessResult llc = clang.run(List.of("llc", "-O2", "-mcpu=haswell", "-filetype=obj", "-relocation-model=pic",
        dir.resolve("kernel.packet.bc").toString(), "-o", dir.resolve("kernel.o").toString()), dir);
    assertEquals(0, llc.exitCode(), llc.stderr());
    for (String exe : Toolchains.gccAndClangCallers(clang, dir, "caller.c", List.of("-std=gnu11", "-Werror", "-mavx2"), List.of("kernel.o"))) {
      ProcessResult r = clang.run(List.of(dir.resolve(exe).toString()), dir);
      String out = r.stdoutText();
      assertEquals(0, r.exitCode(), exe + ": lanes differ from the scalar functions (exit " + r.exitCode() + "):\n" + out + r.stderr());
      assertTrue(out.contains("20000 packets of two kernels checked, 0 differences"), out);
    }
  }
}
