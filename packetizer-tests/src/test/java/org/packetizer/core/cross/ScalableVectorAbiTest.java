package org.packetizer.core.cross;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.packetizer.core.Packetizer;
import org.packetizer.core.api.PacketizationException;
import org.packetizer.core.api.PacketizerOptions;
import org.packetizer.core.api.TargetSpec;
import org.packetizer.core.check.CrossTarget;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.ir.TargetMachine;
import org.packetizer.core.jit.TargetObject;
import org.packetizer.core.toolchain.BundledClang;

/**
 * {@code --vector-abi --scalable}: scalar C functions compiled by the bundled clang for AArch64 with SVE
 * are published as the SVE vector-function-ABI variants {@code _ZGVsMxv_shade} and {@code
 * _ZGVsMxvu_blend} (vector length agnostic, {@code svbool_t} predicate last) and called from a C caller
 * in its own translation unit written with the ACLE SVE intrinsics — an array loop over {@code svcntw()}
 * elements per step whose predicate comes from {@code svwhilelt} (the last step partial), a sparse
 * predicate from a compare, SVE vectors live across the calls — compiled once by the bundled clang and
 * once by Debian's {@code aarch64-linux-gnu-gcc} (GCC 12 does not call {@code _ZGVs} variants from
 * {@code #pragma omp simd} loops itself, it only calls the Advanced SIMD ones), each run under
 * qemu-aarch64 at SVE 128, 256 and 512 bits (4, 8 and 16 lanes from the same code). The reference is
 * the scalar function called per element.
 */
class ScalableVectorAbiTest {
  static final String SCALAR = """
      #include <math.h>
      float shade(float x) {
        float r;
        if (x < 0.0f) r = -2.0f * x + 1.0f;
        else r = sqrtf(x) * 3.0f;
        for (int i = 0; i < 3 && r > 10.0f; i++) r = r * 0.5f;
        return r;
      }
      float blend(float x, float k) {
        return x > k ? expf(x - k) : x * k + 0.25f;
      }
      void put(float x, float *p) {
        *p = x * x - 1.0f;
      }
      """;

  static final String CALLER = """
      #include <arm_sve.h>
      #include <stdio.h>
      svfloat32_t _ZGVsMxv_shade(svfloat32_t, svbool_t);
      svfloat32_t _ZGVsMxvu_blend(svfloat32_t, float, svbool_t);
      void _ZGVsMxvl4_put(svfloat32_t, float *, svbool_t);
      float ref_shade(float);
      float ref_blend(float, float);
      #define N 1003
      static float in[N], out[N], sparse[N], bl[N], put[N];
      int main(void) {
        int bad = 0;
        for (int i = 0; i < N; i++) { in[i] = (i - 300) * 0.37f; sparse[i] = -7.0f; put[i] = -9.0f; }
        svint32_t acc0 = svdup_s32(1), acc1 = svdup_s32(2), acc2 = svdup_s32(3), acc3 = svdup_s32(4);
        for (int i = 0; i < N; i += (int) svcntw()) {
          svbool_t pg = svwhilelt_b32(i, N);
          svfloat32_t x = svld1(pg, in + i);
          svst1(pg, out + i, _ZGVsMxv_shade(x, pg));
          svbool_t pos = svcmpgt(pg, x, svdup_f32(0.0f));
          svst1(pos, sparse + i, _ZGVsMxv_shade(x, pos));
          svst1(pg, bl + i, _ZGVsMxvu_blend(x, 1.5f, pg));
          _ZGVsMxvl4_put(x, put + i, pos);   /* the predicate decides which lanes store */
          acc0 = svadd_m(pg, acc0, svindex_s32(i, 1)); acc1 = svsub_m(pg, acc1, svindex_s32(i, 3));
          acc2 = svmul_m(pg, acc2, svdup_s32(1));
          acc3 = svadd_m(pg, acc3, acc0);
        }
        for (int i = 0; i < N; i++) {
          float want = ref_shade(in[i]);
          if (out[i] != want) { printf("shade %d: %g, want %g\\n", i, out[i], want); bad = 1; break; }
          float s = in[i] > 0.0f ? want : -7.0f;
          if (sparse[i] != s) { printf("sparse %d: %g, want %g\\n", i, sparse[i], s); bad = 1; break; }
          float b = ref_blend(in[i], 1.5f);
          float q = in[i] > 0.0f ? in[i] * in[i] - 1.0f : -9.0f;
          if (put[i] != q) { printf("put %d: %g, want %g\\n", i, put[i], q); bad = 1; break; }
          if (bl[i] != b) { printf("blend %d: %g, want %g\\n", i, bl[i], b); bad = 1; break; }
        }
        /* the SVE values live across the calls must be what they would be without them */
        /* (integers: exact whatever the order of the sums) */
        int a0[64], a1[64], a2[64], a3[64];
        int vl = (int) svcntw();
        for (int k = 0; k < vl; k++) { a0[k] = 1; a1[k] = 2; a2[k] = 3; a3[k] = 4; }
        for (int i = 0; i < N; i += vl)
          for (int k = 0; k < vl && i + k < N; k++) { a0[k] += i + k; a1[k] -= i + 3 * k; a3[k] += a0[k]; }
        long got = svaddv(svptrue_b32(), acc0) + svaddv(svptrue_b32(), acc1) + svaddv(svptrue_b32(), acc2)
            + svaddv(svptrue_b32(), acc3);
        long ref = 0;
        for (int k = 0; k < vl; k++) ref += (long) a0[k] + a1[k] + a2[k] + a3[k];
        if (got != ref) { printf("live SVE vectors changed across the calls: %ld, want %ld\\n", got, ref); bad = 1; }
        printf(bad ? "FAIL\\n" : "OK %d lanes\\n", vl);
        return bad;
      }
      """;

  @Test
  void sveVariantsAreCalledFromAcleCodeByClangAndGccAtThreeVectorLengths(@TempDir Path dir) throws Exception {
    CrossTarget sve = CrossTarget.sve(512);
    CrossTests.require(sve);
    BundledClang clang = BundledClang.locate();
    List<String> flags = List.of("--target=aarch64-linux-gnu", "-march=armv8-a+sve", "-O2", "-fno-math-errno");
    byte[] bc = clang.compileToBitcode(SCALAR, "shade.c", flags);
    Path obj = dir.resolve("variants.o");
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.load(bc, "shade.c")) {
      var r1 = new Packetizer(PacketizerOptions.builder().width(4).params("v").scalable(true).vectorAbi(true).build())
          .run(m, "shade", null);
      assertEquals("_ZGVsMxv_shade", r1.packetFunction());
      var r2 = new Packetizer(PacketizerOptions.builder().width(4).params("vu").scalable(true).vectorAbi(true).build())
          .run(m, "blend", null);
      assertEquals("_ZGVsMxvu_blend", r2.packetFunction());
      var r3 = new Packetizer(PacketizerOptions.builder().width(4).params("vl4").scalable(true).vectorAbi(true).build())
          .run(m, "put", null);
      assertEquals("_ZGVsMxvl4_put", r3.packetFunction());
      assertEquals("<vscale x 16 x i1>", m.function("_ZGVsMxv_shade").orElseThrow().param(1).type().toString(),
          "the predicate is an svbool_t");
      assertTrue(m.verify().isEmpty(), () -> m.verify().get());
      try (TargetMachine tm = new TargetSpec("aarch64-linux-gnu", "", "+neon,+sve", 0).targetMachine()) {
        TargetObject.emitModule(m, tm, obj);
      }
    }
    CrossTests.acleCallersAtSveLengths(clang, sve, dir, obj, SCALAR.replace("float shade(", "float ref_shade(")
        .replace("float blend(", "float ref_blend(").replace("void put(", "void ref_put("), CALLER, List.of("-fno-math-errno"));
  }

  @Test
  void sveVariantOfDoublesIsRefusedNamingTheParameter() {
    try (LlvmContext ctx = LlvmContext.create();
         LlvmModule m = ctx.parseIr("define double @f(double %x) {\n  ret double %x\n}\n", "f")) {
      new TargetSpec("aarch64-linux-gnu", "", "+neon,+sve", 0).applyTo(m);
      String before = m.toIr();
      var e = assertThrows(PacketizationException.class, () -> new Packetizer(PacketizerOptions.builder().width(4)
          .params("v").scalable(true).vectorAbi(true).build()).run(m, "f", null));
      assertTrue(e.getMessage().contains("64-bit") || e.getMessage().contains("32-bit"), e::getMessage);
      assertTrue(e.getMessage().contains("@f"), e::getMessage);
      assertEquals(before, m.toIr(), "the module is unchanged");
    }
  }

  @Test
  void sveVariantNeedsSve() {
    try (LlvmContext ctx = LlvmContext.create();
         LlvmModule m = ctx.parseIr("define float @f(float %x) {\n  ret float %x\n}\n", "f")) {
      new TargetSpec("riscv64-linux-gnu", "", "+v", 0).applyTo(m);
      String before = m.toIr();
      var e = assertThrows(PacketizationException.class, () -> new Packetizer(PacketizerOptions.builder().width(4)
          .params("v").scalable(true).vectorAbi(true).build()).run(m, "f", null));
      assertTrue(e.getMessage().contains("riscv64") && e.getMessage().contains("@f"), e::getMessage);
      assertEquals(before, m.toIr(), "the module is unchanged");
    }
  }
}
