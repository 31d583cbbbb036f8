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
 * Narrow gathers (issue 16, nineteenth round) from C: grid kernels written as a C programmer writes them (a 5x5-cross
 * stencil {@code g + y*W + x} and a bilinear fetch of the four texels at {@code t + y*W + x}), compiled by the bundled
 * clang at plain {@code -O2} for no CPU (generic attributes), packetized for an Intel CPU with AVX-512 named in the
 * options only (their loads become gathers off one 32-bit index packet behind the overflow test: checked in the remarks),
 * emitted by the bundled {@code llc} for that CPU and called directly, as vector functions, from a C caller of its own
 * built by GCC and by clang: every lane of random points, of packets at one point, of consecutive points and of points
 * at the grid's four corners, against the scalar functions of the same object; the grid lies between two PROT_NONE pages
 * and touches both, so a gather reading outside it faults.
 *
 * <p>AVX2 (twentieth round, {@link #avx2W16ThroughArrayDriversFromC}): W16 for skylake (an Intel AVX2 core LLVM tunes as
 * having fast gathers), the CPU only in the options and {@code llc} run without {@code -mcpu} (the packet
 * functions' attributes decide, as in {@link TuneCpuCallerTest}); their assembly must hold real {@code vgatherdps} with a
 * 32-bit ymm index register (not LLVM's per-lane expansion), two per load; called through their array drivers (a 64-byte
 * vector without AVX-512 is passed in memory by GCC, in two ymm registers by LLVM: no direct call from C).
 */
class NarrowGathersCallerTest {
  @TempDir Path dir;

  static final String KERNELS = """
      #define W 40
      #define H 24
      float cross5(const float *g, int x, int y) {
        const float *c = g + y * W + x;
        return 0.4f * c[0] + 0.15f * (c[-1] + c[1] + c[-W] + c[W]) - 0.05f * (c[-2] + c[2] + c[-2 * W] + c[2 * W]);
      }
      float bilerp(const float *t, int x, int y, float fx, float fy) {
        const float *p = t + y * W + x;
        float a = p[0] + fx * (p[1] - p[0]);
        float b = p[W] + fx * (p[W + 1] - p[W]);
        return a + fy * (b - a);
      }
      """;

  /**
   * The grid kernels compiled by the bundled clang -O2 into {@code dir/kernels.bc}; the test is aborted, loudly, where
   * gcc (the second C compiler of the callers) is missing.
   */
  static BundledClang gridKernels(Path dir) throws Exception {
    Toolchains.requireGcc("NarrowGathersCallerTest");
    BundledClang clang = BundledClang.locate();
    Files.writeString(dir.resolve("grid_kernels.c"), KERNELS);
    clang.compileToBitcode(dir, Path.of("grid_kernels.c"), Path.of("kernels.bc"), List.of("-O2"));
    return clang;
  }

  static final String CALLER = """
      #include <immintrin.h>
      #include <stdio.h>
      #include <stdlib.h>
      #include <string.h>
      #include <sys/mman.h>
      #include <unistd.h>
      #define W 40
      #define H 24
      #if LANES == 16
      typedef __m512 vf; typedef __m512i vi;
      #define LOADI(p) _mm512_loadu_si512((const void *)(p))
      #define LOADF(p) _mm512_loadu_ps(p)
      #define STOREF(p, v) _mm512_storeu_ps(p, v)
      #else
      typedef __m256 vf; typedef __m256i vi;
      #define LOADI(p) _mm256_loadu_si256((const void *)(p))
      #define LOADF(p) _mm256_loadu_ps(p)
      #define STOREF(p, v) _mm256_storeu_ps(p, v)
      #endif
      float cross5(const float *g, int x, int y);
      float bilerp(const float *t, int x, int y, float fx, float fy);
      vf CROSS(const float *g, vi x, vi y);
      vf BILERP(const float *t, vi x, vi y, vf fx, vf fy);
      static unsigned long long s = 88172645463325252ULL;
      static unsigned rnd(void) { s ^= s << 13; s ^= s >> 7; s ^= s << 17; return (unsigned)(s >> 11); }
      int main(void) {
        size_t pg = (size_t)sysconf(_SC_PAGESIZE), bytes = W * H * sizeof(float);
        size_t span = (bytes + pg - 1) / pg * pg;
        char *m = mmap(NULL, span + 2 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m == MAP_FAILED || mprotect(m, pg, PROT_NONE) || mprotect(m + pg + span, pg, PROT_NONE)) { perror("mmap"); return 2; }
        /* grid g at the page end (its last element before the upper guard page); grid t at the page start (its first after the lower one) */
        float *g = (float *)(m + pg + span - bytes);
        char *m2 = mmap(NULL, span + 2 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m2 == MAP_FAILED || mprotect(m2, pg, PROT_NONE) || mprotect(m2 + pg + span, pg, PROT_NONE)) { perror("mmap"); return 2; }
        float *t = (float *)(m2 + pg);
        for (int i = 0; i < W * H; i++) { g[i] = (float)(rnd() % 2001) / 1000.0f - 1.0f; t[i] = (float)(rnd() % 1001) / 100.0f; }
        int bad = 0, packets = 0;
        for (int p = 0; p < 4000; p++) {
          int x[LANES], y[LANES], bx[LANES], by[LANES];
          float fx[LANES], fy[LANES], out[LANES];
          int mode = p % 5, x0 = 2 + (int)(rnd() % (W - 4)), y0 = 2 + (int)(rnd() % (H - 4));
          for (int k = 0; k < LANES; k++) {
            switch (mode) {
              case 0: case 1: x[k] = 2 + (int)(rnd() % (W - 4)); y[k] = 2 + (int)(rnd() % (H - 4)); break;
              case 2: x[k] = x0; y[k] = y0; break;
              case 3: x[k] = 2 + (x0 - 2 + k) % (W - 4); y[k] = y0; break;
              default: x[k] = (rnd() & 1) ? 2 : W - 3; y[k] = (rnd() & 1) ? 2 : H - 3; break;
            }
            /* bilerp reads p[0], p[1], p[W], p[W+1]: x in [0, W-2], y in [0, H-2]; corners touch both guard pages */
            bx[k] = mode == 4 ? ((rnd() & 1) ? 0 : W - 2) : x[k] - 2 + (int)(rnd() % 3);
            by[k] = mode == 4 ? ((rnd() & 1) ? 0 : H - 2) : y[k] - 2 + (int)(rnd() % 3);
            fx[k] = (float)(rnd() % 1000) / 1000.0f; fy[k] = (float)(rnd() % 1000) / 1000.0f;
          }
          STOREF(out, CROSS(g, LOADI(x), LOADI(y)));
          for (int k = 0; k < LANES; k++) {
            float e = cross5(g, x[k], y[k]);
            if (memcmp(&e, &out[k], 4)) { if (bad < 10) printf("cross5 lane %d (%d, %d): %a vs %a\\n", k, x[k], y[k], out[k], e); bad++; }
          }
          STOREF(out, BILERP(t, LOADI(bx), LOADI(by), LOADF(fx), LOADF(fy)));
          for (int k = 0; k < LANES; k++) {
            float e = bilerp(t, bx[k], by[k], fx[k], fy[k]);
            if (memcmp(&e, &out[k], 4)) { if (bad < 10) printf("bilerp lane %d (%d, %d): %a vs %a\\n", k, bx[k], by[k], out[k], e); bad++; }
          }
          packets++;
        }
        printf("W=%d: %d packets of two kernels checked, %d differences\\n", LANES, packets, bad);
        return bad != 0;
      }
      """;

  @ParameterizedTest(name = "W={0} cpu={1}")
  @CsvSource({"16, sapphirerapids", "8, sapphirerapids", "16, skylake-avx512"})
  void gridKernelsFromCAgreeWithTheScalarFunctions(int w, String cpu) throws Exception {
    Assumptions.assumeTrue(Toolchains.hostHas("avx512f") && Toolchains.hostHas("avx512vl") && Toolchains.hostHas("avx512bw")
        && Toolchains.hostHas("avx512dq"), "SKIPPED (LOUD): the host has no AVX-512; the " + cpu + " packet functions were not run from C");
    BundledClang clang = gridKernels(dir);
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.load(dir.resolve("kernels.bc"))) {
      for (String[] k : new String[][] {{"cross5", "uvv", "9"}, {"bilerp", "uvvvv", "4"}}) {
        assertEquals("x86-64", m.function(k[0]).orElseThrow().stringAttribute("target-cpu").orElse(""), "generic bitcode");
        List<String> remarks = new ArrayList<>();
        new Packetizer(PacketizerOptions.builder().width(w).params(k[1]).verifyEachPhase(true).targetCpu(cpu).remarks(x -> remarks.add(x.message()))
            .build()).run(m, k[0], k[0] + "_simd" + w);
        assertTrue(remarks.stream().anyMatch(x -> x.contains("became " + k[2] + " gather(s) with 32-bit indices off the uniform base")
            && x.contains("where a lane's sum overflows")), () -> k[0] + ": " + remarks);
      }
      // (the packet functions carry the options' CPU and keep the scalar functions' rounding: their llvm.fmuladd become
      // an fmul and an fadd, as the generic scalar functions, which keep x86-64, compute them; retargeting the scalar
      // functions here too would fuse theirs under the CPU's FMA and make them the ones that differ)
      for (String[] k : new String[][] {{"cross5", "x86-64"}, {"bilerp", "x86-64"}, {"cross5_simd" + w, cpu}, {"bilerp_simd" + w, cpu}}) {
        assertEquals(k[1], m.function(k[0]).orElseThrow().stringAttribute("target-cpu").orElse(""), k[0]);
      }
      m.write(dir.resolve("kernel.packet.bc"));
    }
    Files.writeString(dir.resolve("caller.c"), CALLER);
    List<String> mcpu = List.of("-mcpu=" + cpu);
    List<String> asm = new ArrayList<>(List.of("llc", "-O2"));
    asm.addAll(mcpu);
    asm.addAll(List.of(dir.resolve("kernel.packet.bc").toString(), "-o", dir.resolve("kernel.s").toString()));
    ProcessResult asmRun = clang.run(asm, dir);
    assertEquals(0, asmRun.exitCode(), asmRun.stderr());
    String text = Files.readString(dir.resolve("kernel.s"));
    // (a real gather with a 32-bit index register of the packet's width: vgatherdps ...(%base,%ymmN,4) / (%base,%zmmN,4))
    java.util.regex.Pattern dps = java.util.regex.Pattern.compile("vgatherdps\\s+[^\\n]*\\(%r\\w+,%" + (w == 16 ? "z" : "y") + "mm\\d+,4\\)");
    for (String[] k : new String[][] {{"cross5_simd" + w, "9"}, {"bilerp_simd" + w, "4"}}) {
      String body = functionAssembly(text, k[0]);
      long n = dps.matcher(body).results().count();
      assertTrue(n >= Integer.parseInt(k[1]), () -> k[0] + " for " + cpu + ": " + n + " gathers with 32-bit indices, want " + k[1] + ":\n" + body);
    }
    List<String> obj = new ArrayList<>(List.of("llc", "-O2"));
    obj.addAll(mcpu);
    obj.addAll(List.of("-filetype=obj", "-relocation-model=pic", dir.resolve("kernel.packet.bc").toString(), "-o", dir.resolve("kernel.o").toString()));
    ProcessResult llc = clang.run(obj, dir);
    assertEquals(0, llc.exitCode(), llc.stderr());
    List<String> isa = new ArrayList<>(List.of("-std=gnu11", "-Werror"));
    isa.addAll(List.of("-mavx512f", "-mavx512vl", "-mavx512bw", "-mavx512dq"));
    isa.addAll(List.of("-DLANES=" + w, "-DCROSS=cross5_simd" + w, "-DBILERP=bilerp_simd" + w));
    for (String exe : Toolchains.gccAndClangCallers(clang, dir, "caller.c", isa, List.of("kernel.o"))) {
      ProcessResult r = clang.run(List.of(dir.resolve(exe).toString()), dir);
      String out = r.stdoutText();
      assertEquals(0, r.exitCode(), exe + " W=" + w + " " + cpu + ": lanes differ from the scalar functions (exit " + r.exitCode()
          + "; 139 is a fault):\n" + out + r.stderr());
      assertTrue(out.contains("W=" + w + ": 4000 packets of two kernels checked, 0 differences"), out);
    }
  }

  /** The assembly of function {@code name} in {@code asm} (from its label to its {@code .size}). */
  static String functionAssembly(String asm, String name) {
    int start = asm.indexOf(name + ":");
    assertTrue(start >= 0, () -> "no " + name + " in\n" + asm);
    int end = asm.indexOf(".size\t" + name, start);
    return asm.substring(start, end < 0 ? asm.length() : end);
  }

  static final String DRIVER_CALLER = """
      #include <stdio.h>
      #include <stdlib.h>
      #include <string.h>
      #include <sys/mman.h>
      #include <unistd.h>
      #include "drivers.h"
      #define W 40
      #define H 24
      #define NP 16003
      float cross5(const float *g, int x, int y);
      float bilerp(const float *t, int x, int y, float fx, float fy);
      static unsigned long long s = 0x9E3779B97F4A7C15ULL;
      static unsigned rnd(void) { s ^= s << 13; s ^= s >> 7; s ^= s << 17; return (unsigned)(s >> 11); }
      static int32_t x[NP], y[NP], bx[NP], by[NP];
      static float fx[NP], fy[NP], out[NP];
      int main(void) {
        size_t pg = (size_t)sysconf(_SC_PAGESIZE), bytes = W * H * sizeof(float);
        size_t span = (bytes + pg - 1) / pg * pg;
        char *m = mmap(NULL, span + 2 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        char *m2 = mmap(NULL, span + 2 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m == MAP_FAILED || m2 == MAP_FAILED || mprotect(m, pg, PROT_NONE) || mprotect(m + pg + span, pg, PROT_NONE)
            || mprotect(m2, pg, PROT_NONE) || mprotect(m2 + pg + span, pg, PROT_NONE)) { perror("mmap"); return 2; }
        float *g = (float *)(m + pg + span - bytes), *t = (float *)(m2 + pg);
        for (int i = 0; i < W * H; i++) { g[i] = (float)(rnd() % 2001) / 1000.0f - 1.0f; t[i] = (float)(rnd() % 1001) / 100.0f; }
        int x0 = 2, y0 = 2;
        for (int i = 0; i < NP; i++) {
          int mode = (i / 16) % 5;
          if (i % 16 == 0) { x0 = 2 + (int)(rnd() % (W - 4)); y0 = 2 + (int)(rnd() % (H - 4)); }
          switch (mode) {
            case 0: case 1: x[i] = 2 + (int)(rnd() % (W - 4)); y[i] = 2 + (int)(rnd() % (H - 4)); break;
            case 2: x[i] = x0; y[i] = y0; break;
            case 3: x[i] = 2 + (x0 - 2 + i % 16) % (W - 4); y[i] = y0; break;
            default: x[i] = (rnd() & 1) ? 2 : W - 3; y[i] = (rnd() & 1) ? 2 : H - 3; break;
          }
          bx[i] = mode == 4 ? ((rnd() & 1) ? 0 : W - 2) : x[i] - 2 + (int)(rnd() % 3);
          by[i] = mode == 4 ? ((rnd() & 1) ? 0 : H - 2) : y[i] - 2 + (int)(rnd() % 3);
          fx[i] = (float)(rnd() % 1000) / 1000.0f; fy[i] = (float)(rnd() % 1000) / 1000.0f;
        }
        int bad = 0;
        cross5_drv(g, x, y, out, NP);
        for (int i = 0; i < NP; i++) {
          float e = cross5(g, x[i], y[i]);
          if (memcmp(&e, &out[i], 4)) { if (bad < 10) printf("cross5 %d (%d, %d): %a vs %a\\n", i, x[i], y[i], out[i], e); bad++; }
        }
        bilerp_drv(t, bx, by, fx, fy, out, NP);
        for (int i = 0; i < NP; i++) {
          float e = bilerp(t, bx[i], by[i], fx[i], fy[i]);
          if (memcmp(&e, &out[i], 4)) { if (bad < 10) printf("bilerp %d (%d, %d): %a vs %a\\n", i, bx[i], by[i], out[i], e); bad++; }
        }
        printf("drivers: %d elements of two kernels checked, %d differences\\n", NP, bad);
        return bad != 0;
      }
      """;

  @ParameterizedTest(name = "W=16 cpu={0}")
  @org.junit.jupiter.params.provider.ValueSource(strings = {"skylake"})
  void avx2W16ThroughArrayDriversFromC(String cpu) throws Exception {
    Assumptions.assumeTrue(Toolchains.hostHas("avx2") && Toolchains.hostHas("fma"), "SKIPPED (LOUD): the host has no AVX2; the " + cpu
        + " packet functions were not run from C");
    BundledClang clang = gridKernels(dir);
    List<org.packetizer.core.api.PacketizationResult.DriverInfo> drivers = new ArrayList<>();
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.load(dir.resolve("kernels.bc"))) {
      for (String[] k : new String[][] {{"cross5", "uvv", "9"}, {"bilerp", "uvvvv", "4"}}) {
        assertEquals("generic", m.function(k[0]).orElseThrow().stringAttribute("tune-cpu").orElse(""), "generic bitcode");
        List<String> remarks = new ArrayList<>();
        drivers.add(new Packetizer(PacketizerOptions.builder().width(16).params(k[1]).verifyEachPhase(true).targetCpu(cpu).arrayDriver("*_drv")
            .remarks(x -> remarks.add(x.message())).build()).run(m, k[0], k[0] + "_simd16").driver().orElseThrow());
        assertTrue(remarks.stream().anyMatch(x -> x.contains("became " + k[2] + " gather(s) with 32-bit indices off the uniform base")
            && x.contains("is an Intel AVX2 core that LLVM tunes as having fast hardware gathers")), () -> k[0] + ": " + remarks);
      }
      m.write(dir.resolve("kernel.packet.bc"));
    }
    Files.writeString(dir.resolve("drivers.h"), org.packetizer.core.driver.ArrayDriver.header(drivers, "drivers.h", null));
    Files.writeString(dir.resolve("caller.c"), DRIVER_CALLER);
    // (no -mcpu: the packet functions' own attributes, skylake / alderlake without a tuning CPU)
    ProcessResult asmRun = clang.run(List.of("llc", "-O2", dir.resolve("kernel.packet.bc").toString(), "-o", dir.resolve("kernel.s").toString()), dir);
    assertEquals(0, asmRun.exitCode(), asmRun.stderr());
    String text = Files.readString(dir.resolve("kernel.s"));
    java.util.regex.Pattern dps = java.util.regex.Pattern.compile("vgatherdps\\s+%ymm\\d+,\\s*[^\\n]*\\(%r\\w+,%ymm\\d+,4\\)");
    for (String[] k : new String[][] {{"cross5_simd16", "18"}, {"bilerp_simd16", "8"}}) {
      String body = functionAssembly(text, k[0]);
      long n = dps.matcher(body).results().count();
      assertTrue(n >= Integer.parseInt(k[1]), () -> k[0] + " for " + cpu + ": " + n + " ymm gathers with 32-bit indices, want " + k[1] + ":\n" + body);
    }
    ProcessResult llc = clang.run(List.of("llc", "-O2", "-filetype=obj", "-relocation-model=pic", dir.resolve("kernel.packet.bc").toString(), "-o",
        dir.resolve("kernel.o").toString()), dir);
    assertEquals(0, llc.exitCode(), llc.stderr());
    for (String exe : Toolchains.gccAndClangCallers(clang, dir, "caller.c", List.of("-std=gnu11", "-Werror", "-mavx2"), List.of("kernel.o"))) {
      ProcessResult r = clang.run(List.of(dir.resolve(exe).toString()), dir);
      String out = r.stdoutText();
      assertEquals(0, r.exitCode(), exe + " W=16 " + cpu + ": elements differ from the scalar functions (exit " + r.exitCode()
          + "; 139 is a fault):\n" + out + r.stderr());
      assertTrue(out.contains("drivers: 16003 elements of two kernels checked, 0 differences"), out);
    }
  }
}
