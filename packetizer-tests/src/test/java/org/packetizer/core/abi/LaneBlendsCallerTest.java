package org.packetizer.core.abi;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.packetizer.core.Packetizer;
import org.packetizer.core.api.PacketizerOptions;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.toolchain.BundledClang;
import org.packetizer.core.toolchain.ProcessResult;

/**
 * Per-lane loads as broadcasts from memory and blends (issue 16, twentieth round) from C: a 5x5-cross stencil and a
 * kernel of three ints two rows of 32 apart written as a C programmer writes them, compiled by the bundled clang at plain {@code -O2}
 * for no CPU (generic attributes), packetized for an Intel AVX2 CPU named in the options only (the remark names the
 * broadcasts and blends), emitted by the bundled {@code llc} for that CPU (the packet functions' assembly has
 * {@code vbroadcastss} and {@code vblendps} and not one {@code vinsertps}) and called directly, as vector functions,
 * from a C caller of its own built by GCC and by clang: every lane of random points, of packets at one point, of
 * consecutive points and of points at the grid's corners, against the scalar functions of the same object; the grids
 * lie between two PROT_NONE pages and touch both, so a load outside them faults.
 */
class LaneBlendsCallerTest {
  @TempDir Path dir;

  static final String KERNELS = """
      #define W 40
      #define H 24
      float cross5(const float *g, int x, int y) {
        const float *c = g + y * W + x;
        return 0.4f * c[0] + 0.15f * (c[-1] + c[1] + c[-W] + c[W]) - 0.05f * (c[-2] + c[2] + c[-2 * W] + c[2 * W]);
      }
      int taps3(const int *t, int x, int y) {
        const int *c = t + y * 32 + x;
        return c[-64] + 5 * c[0] - (c[64] >> 1);
      }
      """;

  static final String CALLER = """
      #include <immintrin.h>
      #include <stdio.h>
      #include <stdlib.h>
      #include <string.h>
      #include <sys/mman.h>
      #include <unistd.h>
      #define W 40
      #define H 24
      #if LANES == 8
      typedef __m256 vf; typedef __m256i vi;
      #define LOADI(p) _mm256_loadu_si256((const void *)(p))
      #define STOREF(p, v) _mm256_storeu_ps(p, v)
      #define STOREI(p, v) _mm256_storeu_si256((void *)(p), v)
      #else
      typedef __m128 vf; typedef __m128i vi;
      #define LOADI(p) _mm_loadu_si128((const void *)(p))
      #define STOREF(p, v) _mm_storeu_ps(p, v)
      #define STOREI(p, v) _mm_storeu_si128((void *)(p), v)
      #endif
      float cross5(const float *g, int x, int y);
      int taps3(const int *t, int x, int y);
      vf CROSS(const float *g, vi x, vi y);
      vi TAPS(const int *t, vi x, vi y);
      static unsigned long long s = 88172645463325252ULL;
      static unsigned rnd(void) { s ^= s << 13; s ^= s >> 7; s ^= s << 17; return (unsigned)(s >> 11); }
      static char *guarded(size_t bytes, size_t *span) {
        size_t pg = (size_t)sysconf(_SC_PAGESIZE);
        *span = (bytes + pg - 1) / pg * pg;
        char *m = mmap(NULL, *span + 2 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m == MAP_FAILED || mprotect(m, pg, PROT_NONE) || mprotect(m + pg + *span, pg, PROT_NONE)) { perror("mmap"); exit(2); }
        return m + pg;
      }
      int main(void) {
        size_t span, span2, bytes = W * H * sizeof(float), tn = 31 * 32, tbytes = tn * sizeof(int);
        /* grid g at the page end (its last element before the upper guard page); table t at the page start */
        float *g = (float *)(guarded(bytes, &span) + span - bytes);
        int *t = (int *)guarded(tbytes, &span2);
        for (int i = 0; i < W * H; i++) g[i] = (float)(rnd() % 2001) / 1000.0f - 1.0f;
        for (size_t i = 0; i < tn; i++) t[i] = (int)(rnd() % 200001) - 100000;
        int bad = 0, packets = 0;
        for (int p = 0; p < 4000; p++) {
          int x[LANES], y[LANES], tx[LANES], ty[LANES], oi[LANES];
          float out[LANES];
          int mode = p % 5, x0 = 2 + (int)(rnd() % (W - 4)), y0 = 2 + (int)(rnd() % (H - 4)), tx0 = (int)(rnd() % 32), ty0 = 2 + (int)(rnd() % 27);
          for (int k = 0; k < LANES; k++) {
            switch (mode) {
              case 0: case 1: x[k] = 2 + (int)(rnd() % (W - 4)); y[k] = 2 + (int)(rnd() % (H - 4)); tx[k] = (int)(rnd() % 32); ty[k] = 2 + (int)(rnd() % 27); break;
              case 2: x[k] = x0; y[k] = y0; tx[k] = tx0; ty[k] = ty0; break;
              case 3: x[k] = 2 + (x0 - 2 + k) % (W - 4); y[k] = y0; tx[k] = (tx0 + k) % 32; ty[k] = ty0; break;
              default: x[k] = (rnd() & 1) ? 2 : W - 3; y[k] = (rnd() & 1) ? 2 : H - 3; tx[k] = (rnd() & 1) ? 0 : 31; ty[k] = (rnd() & 1) ? 2 : 28; break;
            }
          }
          STOREF(out, CROSS(g, LOADI(x), LOADI(y)));
          for (int k = 0; k < LANES; k++) {
            float e = cross5(g, x[k], y[k]);
            if (memcmp(&e, &out[k], 4)) { if (bad < 10) printf("cross5 lane %d (%d, %d): %a vs %a\\n", k, x[k], y[k], out[k], e); bad++; }
          }
          STOREI(oi, TAPS(t, LOADI(tx), LOADI(ty)));
          for (int k = 0; k < LANES; k++) {
            int e = taps3(t, tx[k], ty[k]);
            if (e != oi[k]) { if (bad < 10) printf("taps3 lane %d (%d, %d): %d vs %d\\n", k, tx[k], ty[k], oi[k], e); bad++; }
          }
          packets++;
        }
        printf("W=%d: %d packets of two kernels checked, %d differences\\n", LANES, packets, bad);
        return bad != 0;
      }
      """;

  /** The lines of {@code fn}'s body in the assembly {@code asm}. */
  static String body(String asm, String fn) {
    int at = asm.indexOf("\n" + fn + ":");
    assertTrue(at >= 0, fn + " not in the assembly");
    int end = asm.indexOf(".Lfunc_end", at);
    return asm.substring(at, end);
  }

  static int count(String s, String what) {
    int n = 0;
    for (int i = s.indexOf(what); i >= 0; i = s.indexOf(what, i + 1)) n++;
    return n;
  }

  @ParameterizedTest(name = "W={0} cpu={1}")
  @CsvSource({"8, haswell", "4, haswell", "8, x86-64-v3"})
  void kernelsFromCAgreeWithTheScalarFunctions(int w, String cpu) throws Exception {
    Assumptions.assumeTrue(Toolchains.hostHas("avx2") && Toolchains.hostHas("fma"), "SKIPPED (LOUD): the host has no AVX2; the " + cpu
        + " packet functions were not run from C");
    Toolchains.requireGcc("LaneBlendsCallerTest");
    BundledClang clang = BundledClang.locate();
    Files.writeString(dir.resolve("lane_kernels.c"), KERNELS);
    clang.compileToBitcode(dir, Path.of("lane_kernels.c"), Path.of("kernels.bc"), List.of("-O2"));
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.load(dir.resolve("kernels.bc"))) {
      for (String[] k : new String[][] {{"cross5", "uvv"}, {"taps3", "uvv"}}) {
        assertEquals("x86-64", m.function(k[0]).orElseThrow().stringAttribute("target-cpu").orElse(""), "generic bitcode");
        List<String> remarks = new ArrayList<>();
        new Packetizer(PacketizerOptions.builder().width(w).params(k[1]).verifyEachPhase(true).targetCpu(cpu).remarks(x -> remarks.add(x.message()))
            .build()).run(m, k[0], k[0] + "_simd" + w);
        assertTrue(remarks.stream().anyMatch(x -> x.contains("per-lane loads: " + w + " broadcasts from memory and " + (w - 1) + " blends, not inserts")),
            () -> k[0] + ": " + remarks);
      }
      m.write(dir.resolve("kernel.packet.bc"));
    }
    ProcessResult asm = clang.run(List.of("llc", "-O2", "-mcpu=" + cpu, "-relocation-model=pic", dir.resolve("kernel.packet.bc").toString(),
        "-o", dir.resolve("kernel.s").toString()), dir);
    assertEquals(0, asm.exitCode(), asm.stderr());
    String s = Files.readString(dir.resolve("kernel.s"));
    for (String fn : new String[] {"cross5_simd" + w, "taps3_simd" + w}) {
      String b = body(s, fn);
      assertEquals(0, count(b, "vinsertps"), fn + ":\n" + b);
      assertTrue(count(b, "vbroadcastss") >= w && count(b, "vblendps") + count(b, "vpblendd") >= w - 1, fn + ":\n" + b);
    }
    Files.writeString(dir.resolve("caller.c"), CALLER);
    ProcessResult llc = clang.run(List.of("llc", "-O2", "-mcpu=" + cpu, "-filetype=obj", "-relocation-model=pic",
        dir.resolve("kernel.packet.bc").toString(), "-o", dir.resolve("kernel.o").toString()), dir);
    assertEquals(0, llc.exitCode(), llc.stderr());
    List<String> isa = List.of("-std=gnu11", "-Werror", "-mavx2", "-mfma", "-DLANES=" + w, "-DCROSS=cross5_simd" + w, "-DTAPS=taps3_simd" + w);
    for (String exe : Toolchains.gccAndClangCallers(clang, dir, "caller.c", isa, List.of("kernel.o"))) {
      ProcessResult r = clang.run(List.of(dir.resolve(exe).toString()), dir);
      String out = r.stdoutText();
      assertEquals(0, r.exitCode(), exe + " W=" + w + " " + cpu + ": lanes differ from the scalar functions (exit " + r.exitCode()
          + "; 139 is a fault):\n" + out + r.stderr());
      assertTrue(out.contains("W=" + w + ": 4000 packets of two kernels checked, 0 differences"), out);
    }
  }
}
