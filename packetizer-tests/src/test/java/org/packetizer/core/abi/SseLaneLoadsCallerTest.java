package org.packetizer.core.abi;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.packetizer.core.Packetizer;
import org.packetizer.core.api.PacketizerOptions;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.toolchain.BundledClang;
import org.packetizer.core.toolchain.ProcessResult;

/**
 * Per-lane loads on SSE4.1 without AVX as shifted 16-byte loads and immediate blends (issue 16, twenty-second round)
 * ({@code -Dpacketizer.sseLaneLoads=shifted}, not the default) from C: a 5x5-cross stencil, three ints two rows apart, three floats 20 bytes apart off a per-lane pointer, fields of a
 * struct through a per-lane pointer and a float table read at a computed index, written as a C programmer writes them,
 * compiled by the bundled clang at plain {@code -O2} for no CPU, packetized at W4 for {@code x86-64-v2} (SSE4.2), emitted by
 * the bundled {@code llc} (the stencil's and the spaced loads' packet functions have {@code blendps}/{@code pblendw} and
 * fewer inserts than lanes need), and called as vector functions from a C caller built by GCC and by clang: every lane
 * against the scalar functions of the same object. Every buffer touches a PROT_NONE page at one end: the spaced loads'
 * array starts right after one (lanes whose first element is at byte 0..12 of the page) and, in a second copy, ends right
 * before one (the last element at the page's end); the grids touch both. A shifted window outside the bytes the scalar
 * code reads would fault there.
 */
class SseLaneLoadsCallerTest {
  @TempDir Path dir;

  /** LaneBlendsCallerTest's grid kernels (cross5, taps3 on a 40-wide grid) and three of this test's own. */
  static final String KERNELS = LaneBlendsCallerTest.KERNELS + """
      float spaced(const float *p, int i) {
        const float *c = p + i;
        return c[0] - 2.0f * c[5] + 0.5f * c[10];
      }
      struct particle { float x, y, z, mass; int id; };
      float energy(const struct particle *ps, int i) {
        const struct particle *q = &ps[i];
        return q->mass * (q->x * q->x + q->z * q->z) + (float)q->id;
      }
      float lut(const float *table, int v) {
        int j = (v * 37) & 255;
        return table[j] * 0.75f + table[j + 256] * 0.25f;
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
      #define NS 400
      struct particle { float x, y, z, mass; int id; };
      float cross5(const float *g, int x, int y);
      int taps3(const int *t, int x, int y);
      float spaced(const float *p, int i);
      float energy(const struct particle *ps, int i);
      float lut(const float *table, int v);
      __m128 cross5_simd4(const float *g, __m128i x, __m128i y);
      __m128i taps3_simd4(const int *t, __m128i x, __m128i y);
      __m128 spaced_simd4(const float *p, __m128i i);
      __m128 energy_simd4(const struct particle *ps, __m128i i);
      __m128 lut_simd4(const float *table, __m128i v);
      static unsigned long long s = 88172645463325252ULL;
      static unsigned rnd(void) { s ^= s << 13; s ^= s >> 7; s ^= s << 17; return (unsigned)(s >> 11); }
      /* bytes between two PROT_NONE pages; at_end: the last byte right before the upper one, else the first right after
         the lower one */
      static char *guarded(size_t bytes, int at_end) {
        size_t pg = (size_t)sysconf(_SC_PAGESIZE), span = (bytes + pg - 1) / pg * pg;
        char *m = mmap(NULL, span + 2 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m == MAP_FAILED || mprotect(m, pg, PROT_NONE) || mprotect(m + pg + span, pg, PROT_NONE)) { perror("mmap"); exit(2); }
        return at_end ? m + pg + span - bytes : m + pg;
      }
      static float frand(void) { return (float)(rnd() % 2001) / 1000.0f - 1.0f; }
      static int bad = 0;
      static void cmpf(const char *what, int k, int a, int b, float got, float want) {
        if (memcmp(&got, &want, 4)) { if (bad < 10) printf("%s lane %d (%d, %d): %a vs %a\\n", what, k, a, b, got, want); bad++; }
      }
      int main(void) {
        size_t gbytes = W * H * sizeof(float), tn = 31 * 32, tbytes = tn * sizeof(int), sbytes = NS * sizeof(float);
        float *g = (float *)guarded(gbytes, 1), *g0 = (float *)guarded(gbytes, 0);
        int *t = (int *)guarded(tbytes, 0), *t1 = (int *)guarded(tbytes, 1);
        float *sp[2] = {(float *)guarded(sbytes, 0), (float *)guarded(sbytes, 1)};
        struct particle *ps[2] = {(struct particle *)guarded(100 * sizeof(struct particle), 0),
                                  (struct particle *)guarded(100 * sizeof(struct particle), 1)};
        float *table = (float *)guarded(512 * sizeof(float), 1);
        for (int i = 0; i < W * H; i++) g0[i] = g[i] = frand();
        for (size_t i = 0; i < tn; i++) t1[i] = t[i] = (int)(rnd() % 200001) - 100000;
        for (int i = 0; i < NS; i++) sp[0][i] = sp[1][i] = frand();
        for (int i = 0; i < 100; i++) for (int h = 0; h < 2; h++) {
          ps[h][i].x = frand(); ps[h][i].y = frand(); ps[h][i].z = frand(); ps[h][i].mass = frand(); ps[h][i].id = (int)(rnd() % 1000);
        }
        for (int i = 0; i < 512; i++) table[i] = frand();
        int packets = 0;
        for (int p = 0; p < 4000; p++) {
          int x[4], y[4], tx[4], ty[4], si[4], pi[4], v[4], oi[4];
          float out[4];
          int mode = p % 5, x0 = 2 + (int)(rnd() % (W - 4)), y0 = 2 + (int)(rnd() % (H - 4));
          for (int k = 0; k < 4; k++) {
            switch (mode) {
              case 0: case 1:
                x[k] = 2 + (int)(rnd() % (W - 4)); y[k] = 2 + (int)(rnd() % (H - 4)); tx[k] = (int)(rnd() % 32); ty[k] = 2 + (int)(rnd() % 27);
                si[k] = (int)(rnd() % (NS - 10)); pi[k] = (int)(rnd() % 100); break;
              case 2: x[k] = x0; y[k] = y0; tx[k] = 5; ty[k] = 9; si[k] = 0; pi[k] = 0; break;
              case 3: x[k] = 2 + (x0 - 2 + k) % (W - 4); y[k] = y0; tx[k] = k; ty[k] = 2; si[k] = k; pi[k] = k; break;
              default: /* the ends: the first elements right after the lower guard page, the last right before the upper */
                x[k] = (rnd() & 1) ? 2 : W - 3; y[k] = (rnd() & 1) ? 2 : H - 3; tx[k] = (rnd() & 1) ? 0 : 31; ty[k] = (rnd() & 1) ? 2 : 28;
                si[k] = (rnd() & 1) ? (int)(rnd() % 4) : NS - 11 - (int)(rnd() % 4); pi[k] = (rnd() & 1) ? (int)(rnd() % 4) : 99 - (int)(rnd() % 4); break;
            }
            v[k] = (int)rnd();
          }
          __m128i X = _mm_loadu_si128((const void *)x), Y = _mm_loadu_si128((const void *)y);
          for (int h = 0; h < 2; h++) {
            const float *gg = h ? g0 : g;
            _mm_storeu_ps(out, cross5_simd4(gg, X, Y));
            for (int k = 0; k < 4; k++) cmpf("cross5", k, x[k], y[k], out[k], cross5(gg, x[k], y[k]));
            const int *tt = h ? t1 : t;
            _mm_storeu_si128((void *)oi, taps3_simd4(tt, _mm_loadu_si128((const void *)tx), _mm_loadu_si128((const void *)ty)));
            for (int k = 0; k < 4; k++) {
              int e = taps3(tt, tx[k], ty[k]);
              if (e != oi[k]) { if (bad < 10) printf("taps3 lane %d (%d, %d): %d vs %d\\n", k, tx[k], ty[k], oi[k], e); bad++; }
            }
            _mm_storeu_ps(out, spaced_simd4(sp[h], _mm_loadu_si128((const void *)si)));
            for (int k = 0; k < 4; k++) cmpf("spaced", k, h, si[k], out[k], spaced(sp[h], si[k]));
            _mm_storeu_ps(out, energy_simd4(ps[h], _mm_loadu_si128((const void *)pi)));
            for (int k = 0; k < 4; k++) cmpf("energy", k, h, pi[k], out[k], energy(ps[h], pi[k]));
          }
          _mm_storeu_ps(out, lut_simd4(table, _mm_loadu_si128((const void *)v)));
          for (int k = 0; k < 4; k++) cmpf("lut", k, v[k], 0, out[k], lut(table, v[k]));
          packets++;
        }
        printf("W=4: %d packets of five kernels checked, %d differences\\n", packets, bad);
        return bad != 0;
      }
      """;

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"x86-64-v2", "nehalem"})
  void kernelsFromCAgreeWithTheScalarFunctions(String cpu) throws Exception {
    Assumptions.assumeTrue(Toolchains.hostHas("sse4_2"), "SKIPPED (LOUD): the host has no SSE4.2; the packet functions were not run from C");
    Toolchains.requireGcc("SseLaneLoadsCallerTest");
    BundledClang clang = BundledClang.locate();
    Files.writeString(dir.resolve("sse_kernels.c"), KERNELS);
    clang.compileToBitcode(dir, Path.of("sse_kernels.c"), Path.of("kernels.bc"), List.of("-O2"));
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.load(dir.resolve("kernels.bc"))) {
      for (String[] k : new String[][] {{"cross5", "uvv"}, {"taps3", "uvv"}, {"spaced", "uv"}, {"energy", "uv"}, {"lut", "uv"}}) {
        assertEquals("x86-64", m.function(k[0]).orElseThrow().stringAttribute("target-cpu").orElse(""), "generic bitcode");
        List<String> remarks = new ArrayList<>();
        // (the route is opt-in: -Dpacketizer.sseLaneLoads=shifted)
        String before = System.setProperty("packetizer.sseLaneLoads", "shifted");
        try {
          new Packetizer(PacketizerOptions.builder().width(4).params(k[1]).verifyEachPhase(true).targetCpu(cpu).remarks(x -> remarks.add(x.message()))
              .build()).run(m, k[0], k[0] + "_simd4");
        } finally {
          if (before == null) System.clearProperty("packetizer.sseLaneLoads");
          else System.setProperty("packetizer.sseLaneLoads", before);
        }
        boolean shifted = remarks.stream().anyMatch(x -> x.contains("lanes as shifted 16-byte loads and blends, not inserts"));
        // (the stencil, the taps and the spaced loads have a load inside their span; the table lookup is not a per-lane
        // root's; the struct's fields may take the neighbour windows instead: either route, checked by the calls)
        if (!k[0].equals("energy")) assertEquals(!k[0].equals("lut"), shifted, () -> k[0] + ": " + remarks);
      }
      m.write(dir.resolve("kernel.packet.bc"));
    }
    ProcessResult asm = clang.run(List.of("llc", "-O2", "-mcpu=" + cpu, "-relocation-model=pic", dir.resolve("kernel.packet.bc").toString(),
        "-o", dir.resolve("kernel.s").toString()), dir);
    assertEquals(0, asm.exitCode(), asm.stderr());
    String s = Files.readString(dir.resolve("kernel.s"));
    for (String fn : new String[] {"cross5_simd4", "spaced_simd4"}) {
      String b = LaneBlendsCallerTest.body(s, fn);
      int blends = LaneBlendsCallerTest.count(b, "blendps") + LaneBlendsCallerTest.count(b, "pblendw");
      assertTrue(blends >= 3, fn + ":\n" + b);
    }
    // cross5: rows -W and +W and column +2 by shifted loads (3 lanes each), rows -2W and +2W keep 3 and 2 inserts
    assertTrue(LaneBlendsCallerTest.count(LaneBlendsCallerTest.body(s, "cross5_simd4"), "insertps") <= 5, s);
    Files.writeString(dir.resolve("caller.c"), CALLER);
    ProcessResult llc = clang.run(List.of("llc", "-O2", "-mcpu=" + cpu, "-filetype=obj", "-relocation-model=pic",
        dir.resolve("kernel.packet.bc").toString(), "-o", dir.resolve("kernel.o").toString()), dir);
    assertEquals(0, llc.exitCode(), llc.stderr());
    List<String> isa = List.of("-std=gnu11", "-Werror", "-msse4.2");
    for (String exe : Toolchains.gccAndClangCallers(clang, dir, "caller.c", isa, List.of("kernel.o"))) {
      ProcessResult r = clang.run(List.of(dir.resolve(exe).toString()), dir);
      String out = r.stdoutText();
      assertEquals(0, r.exitCode(), exe + " " + cpu + ": lanes differ from the scalar functions (exit " + r.exitCode()
          + "; 139 is a fault):\n" + out + r.stderr());
      assertTrue(out.contains("W=4: 4000 packets of five kernels checked, 0 differences"), out);
    }
  }
}
