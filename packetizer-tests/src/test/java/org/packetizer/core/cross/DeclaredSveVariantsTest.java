package org.packetizer.core.cross;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.packetizer.core.Packetizer;
import org.packetizer.core.api.PacketizationResult;
import org.packetizer.core.api.PacketizerOptions;
import org.packetizer.core.api.TargetSpec;
import org.packetizer.core.check.CrossTarget;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.ir.TargetMachine;
import org.packetizer.core.jit.TargetObject;
import org.packetizer.core.mapping.VectorAbi;
import org.packetizer.core.toolchain.BundledClang;

/**
 * {@code --declared-variants} ({@link Packetizer#runDeclaredVariants}) for SVE: C functions with
 * {@code #pragma omp declare simd}, compiled by the bundled clang {@code -fopenmp-simd} for
 * {@code armv8-a+sve}, declare the scalable variants {@code _ZGVsMxv_shade}, {@code _ZGVsMxvu_blend},
 * {@code _ZGVsMxvl4_put}, {@code _ZGVsMxv_dsq} (doubles: 2 lanes per 128 bits), {@code _ZGVsMxvlu_idx}
 * (what clang records, checked in its output), and the fixed-length {@code _ZGVsM4v_four} (not made). The
 * variants made are called from ACLE SVE C in its own translation unit ({@code svwhilelt} loops,
 * sparse predicates from compares), compiled by the bundled clang and by {@code aarch64-linux-gnu-gcc},
 * run under qemu-aarch64 at SVE 128, 256 and 512 bits; every element is compared with the scalar
 * function (a copy compiled without the pragma) and masked-off elements must keep their old value.
 * Before, SVE declared variants were skipped (nothing was made; the callers did not link).
 */
class DeclaredSveVariantsTest {
  static final String SCALAR = """
      #include <math.h>
      #pragma omp declare simd
      float shade(float x) {
        float r;
        if (x < 0.0f) r = -2.0f * x + 1.0f;
        else r = sqrtf(x) * 3.0f;
        for (int i = 0; i < 3 && r > 10.0f; i++) r = r * 0.5f;
        return r;
      }
      #pragma omp declare simd uniform(k)
      float blend(float x, float k) { return x > k ? expf(x - k) : x * k + 0.25f; }
      #pragma omp declare simd linear(p)
      void put(float x, float *p) { *p = x * x - 1.0f; }
      #pragma omp declare simd
      double dsq(double x) { return x > 1.0 ? sqrt(x) * 2.0 : x * x - 3.0; }
      #pragma omp declare simd linear(i) uniform(b)
      float idx(float x, int i, const float *b) { return x > 0.0f ? x + b[i] : x * b[i]; }
      #pragma omp declare simd simdlen(4) notinbranch
      float four(float x) { return x + 1.0f; }
      """;

  static final String CALLER = """
      #include <arm_sve.h>
      #include <stdio.h>
      svfloat32_t _ZGVsMxv_shade(svfloat32_t, svbool_t);
      svfloat32_t _ZGVsMxvu_blend(svfloat32_t, float, svbool_t);
      void _ZGVsMxvl4_put(svfloat32_t, float *, svbool_t);
      svfloat64_t _ZGVsMxv_dsq(svfloat64_t, svbool_t);
      svfloat32_t _ZGVsMxvlu_idx(svfloat32_t, int, const float *, svbool_t);
      float ref_shade(float); float ref_blend(float, float); double ref_dsq(double);
      float ref_idx(float, int, const float *);
      #define N 1003
      static float in[N], out[N], sparse[N], bl[N], put[N], ix[N], table[N];
      static double din[N], dout[N];
      int main(void) {
        int bad = 0;
        for (int i = 0; i < N; i++) {
          in[i] = (i - 300) * 0.37f; sparse[i] = -7.0f; put[i] = -9.0f; din[i] = (i - 500) * 0.013; dout[i] = -5.0;
          table[i] = (float)(i % 17) - 8.0f;
        }
        for (int i = 0; i < N; i += (int) svcntw()) {
          svbool_t pg = svwhilelt_b32(i, N);
          svfloat32_t x = svld1(pg, in + i);
          svst1(pg, out + i, _ZGVsMxv_shade(x, pg));
          svbool_t pos = svcmpgt(pg, x, svdup_f32(0.0f));
          svst1(pos, sparse + i, _ZGVsMxv_shade(x, pos));
          svst1(pg, bl + i, _ZGVsMxvu_blend(x, 1.5f, pg));
          _ZGVsMxvl4_put(x, put + i, pos);
          svst1(pg, ix + i, _ZGVsMxvlu_idx(x, i, table, pg));
        }
        for (int i = 0; i < N; i += (int) svcntd()) {
          svbool_t pg = svwhilelt_b64(i, N);
          svfloat64_t x = svld1(pg, din + i);
          svbool_t odd = svcmpne(pg, svand_x(pg, svindex_s64(i, 1), svdup_s64(1)), svdup_s64(0));
          svst1(odd, dout + i, _ZGVsMxv_dsq(x, odd));   /* odd elements only */
        }
        for (int i = 0; i < N; i++) {
          float want = ref_shade(in[i]);
          if (out[i] != want) { printf("shade %d: %g, want %g\\n", i, out[i], want); bad = 1; break; }
          float s = in[i] > 0.0f ? want : -7.0f;
          if (sparse[i] != s) { printf("sparse %d: %g, want %g\\n", i, sparse[i], s); bad = 1; break; }
          float b = ref_blend(in[i], 1.5f);
          if (bl[i] != b) { printf("blend %d: %g, want %g\\n", i, bl[i], b); bad = 1; break; }
          float q = in[i] > 0.0f ? in[i] * in[i] - 1.0f : -9.0f;
          if (put[i] != q) { printf("put %d: %g, want %g\\n", i, put[i], q); bad = 1; break; }
          float t = ref_idx(in[i], i, table);
          if (ix[i] != t) { printf("idx %d: %g, want %g\\n", i, ix[i], t); bad = 1; break; }
          double d = i % 2 ? ref_dsq(din[i]) : -5.0;
          if (dout[i] != d) { printf("dsq %d: %g, want %g\\n", i, dout[i], d); bad = 1; break; }
        }
        printf(bad ? "FAIL\\n" : "OK %d lanes\\n", (int) svcntw());
        return bad;
      }
      """;

  @Test
  void declaredSveVariantsAreMadeAndCalledFromAcleCodeByClangAndGcc(@TempDir Path dir) throws Exception {
    CrossTarget sve = CrossTarget.sve(512);
    CrossTests.require(sve);
    BundledClang clang = BundledClang.locate();
    List<String> flags = List.of("--target=aarch64-linux-gnu", "-march=armv8-a+sve", "-O2", "-fno-math-errno", "-fopenmp-simd");
    byte[] bc = clang.compileToBitcode(SCALAR, "declared.c", flags);
    Path obj = dir.resolve("variants.o");
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.load(bc, "declared.c")) {
      // what clang records (the test's premise)
      assertTrue(m.function("shade").orElseThrow().stringAttributes().containsKey("_ZGVsMxv_shade"));
      assertTrue(m.function("four").orElseThrow().stringAttributes().containsKey("_ZGVsM4v_four"));
      Set<String> made = new TreeSet<>();
      for (String f : List.of("shade", "blend", "put", "dsq", "idx", "four")) {
        List<PacketizationResult> rs = new Packetizer(PacketizerOptions.builder().build()).runDeclaredVariants(m, f);
        for (PacketizationResult r : rs) made.add(r.packetFunction());
      }
      assertEquals(Set.of("_ZGVsMxv_shade", "_ZGVsMxvu_blend", "_ZGVsMxvl4_put", "_ZGVsMxv_dsq", "_ZGVsMxvlu_idx"), made);
      assertTrue(m.function("_ZGVsM4v_four").isEmpty(), "fixed-length SVE variants are not made");
      assertEquals("<vscale x 2 x double>", m.function("_ZGVsMxv_dsq").orElseThrow().param(0).type().toString(),
          "doubles: 2 lanes per 128 bits");
      assertEquals("<vscale x 16 x i1>", m.function("_ZGVsMxvu_blend").orElseThrow().param(2).type().toString(),
          "the predicate is an svbool_t");
      assertTrue(m.verify().isEmpty(), () -> m.verify().get());
      try (TargetMachine tm = new TargetSpec("aarch64-linux-gnu", "", "+neon,+sve", 0).targetMachine()) {
        TargetObject.emitModule(m, tm, obj);
      }
    }
    String ref = SCALAR.replace("#pragma omp", "//").replace("float shade(", "float ref_shade(")
        .replace("float blend(", "float ref_blend(").replace("void put(", "void ref_put(").replace("double dsq(", "double ref_dsq(")
        .replace("float idx(", "float ref_idx(").replace("float four(", "float ref_four(");
    CrossTests.acleCallersAtSveLengths(clang, sve, dir, obj, ref, CALLER, List.of("-fno-math-errno"));
  }

  @Test
  void scalableNamesAreParsedAndFixedSveNamesAreNot() {
    var v = VectorAbi.demangleScalable("_ZGVsMxvl4u_f").orElseThrow();
    assertEquals("f", v.scalarName());
    assertEquals("_ZGVsMxvl4u_f", v.mangledName());
    assertTrue(VectorAbi.demangleScalable("_ZGVsM4v_f").isEmpty());
    assertTrue(VectorAbi.demangleScalable("_ZGVnN4v_f").isEmpty());
    assertThrows(IllegalArgumentException.class, () -> VectorAbi.demangleScalable("_ZGVsMxR4_f"));
  }
}
