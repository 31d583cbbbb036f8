package org.packetizer.core.cross;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.packetizer.core.Packetizer;
import org.packetizer.core.api.PacketizationException;
import org.packetizer.core.api.PacketizerOptions;
import org.packetizer.core.api.TargetSpec;
import org.packetizer.core.check.CrossTarget;
import org.packetizer.core.ir.Function;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.ir.TargetMachine;
import org.packetizer.core.jit.TargetObject;
import org.packetizer.core.mapping.VectorAbi;
import org.packetizer.core.toolchain.BundledClang;
import org.packetizer.core.toolchain.ProcessResult;

/**
 * {@code --vector-abi} for AArch64: a scalar C function compiled by the bundled clang for
 * {@code aarch64-linux-gnu} is published as the Advanced SIMD variants {@code _ZGVnN4v_shade} and
 * {@code _ZGVnM4v_shade} (the vector procedure call standard, the mask as a vector of unsigned integers
 * as wide as the narrowest data size), and called by code we did not shape, run under qemu-aarch64:
 *
 * <ul>
 *   <li>a C caller in its own translation unit compiled by the bundled clang, declaring the variants
 *       with {@code __attribute__((aarch64_vector_pcs))} and keeping many vectors live across the
 *       calls (in v8-v23, which that convention preserves and the base one does not);
 *   <li>a loop with {@code #pragma omp simd} compiled by Debian's {@code aarch64-linux-gnu-gcc -O3
 *       -fopenmp-simd}, which calls the variants its {@code declare simd} declaration promises.
 * </ul>
 */
class AArch64VectorAbiTest {
  static final String SCALAR = """
      #include <math.h>
      float shade(float x) {
        float r;
        if (x < 0.0f) r = -2.0f * x + 1.0f;
        else r = sqrtf(x) * 3.0f;
        for (int i = 0; i < 3 && r > 10.0f; i++) r = r * 0.5f;
        return r;
      }
      """;

  static final String CLANG_CALLER = """
      #include <arm_neon.h>
      #include <stdio.h>
      float shade(float);
      __attribute__((aarch64_vector_pcs)) float32x4_t _ZGVnN4v_shade(float32x4_t);
      __attribute__((aarch64_vector_pcs)) float32x4_t _ZGVnM4v_shade(float32x4_t, uint32x4_t);
      static float xs[64];
      int main(void) {
        int bad = 0;
        for (int i = 0; i < 64; i++) xs[i] = (i - 20) * 1.75f;
        /* many values live across the calls: aarch64_vector_pcs lets the caller keep them in v8-v23 */
        float32x4_t acc0 = vdupq_n_f32(1), acc1 = vdupq_n_f32(2), acc2 = vdupq_n_f32(3), acc3 = vdupq_n_f32(4);
        float32x4_t acc4 = vdupq_n_f32(5), acc5 = vdupq_n_f32(6), acc6 = vdupq_n_f32(7), acc7 = vdupq_n_f32(8);
        for (int i = 0; i < 64; i += 4) {
          float32x4_t x = vld1q_f32(xs + i);
          float32x4_t y = _ZGVnN4v_shade(x);
          uint32x4_t m = {i & 1 ? 0u : 7u, 0u, 0xffffffffu, 1u};   /* lanes 0 (every other time), 2, 3 active */
          float32x4_t z = _ZGVnM4v_shade(x, m);
          acc0 = vaddq_f32(acc0, y); acc1 = vmulq_f32(acc1, vdupq_n_f32(1.0f));
          acc2 = vaddq_f32(acc2, x); acc3 = vsubq_f32(acc3, x); acc4 = vaddq_f32(acc4, acc0);
          acc5 = vaddq_f32(acc5, acc2); acc6 = vaddq_f32(acc6, acc3); acc7 = vaddq_f32(acc7, acc1);
          for (int k = 0; k < 4; k++) {
            float want = shade(xs[i + k]);
            if (y[k] != want) { printf("unmasked lane %d of %d: %g, want %g\\n", k, i, y[k], want); bad = 1; }
            if (m[k] != 0 && z[k] != want) { printf("masked lane %d of %d: %g, want %g\\n", k, i, z[k], want); bad = 1; }
          }
        }
        /* the accumulators must be what they would be without the calls */
        float s = vaddvq_f32(acc0) + vaddvq_f32(acc1) + vaddvq_f32(acc2) + vaddvq_f32(acc3) + vaddvq_f32(acc4)
            + vaddvq_f32(acc5) + vaddvq_f32(acc6) + vaddvq_f32(acc7);
        float ref = 0; {
          float a0[4] = {1,1,1,1}, a1[4] = {2,2,2,2}, a2[4] = {3,3,3,3}, a3[4] = {4,4,4,4}, a4[4] = {5,5,5,5};
          float a5[4] = {6,6,6,6}, a6[4] = {7,7,7,7}, a7[4] = {8,8,8,8};
          for (int i = 0; i < 64; i += 4) for (int k = 0; k < 4; k++) {
            a0[k] += shade(xs[i + k]); a2[k] += xs[i + k]; a3[k] -= xs[i + k]; a4[k] += a0[k]; a5[k] += a2[k]; a6[k] += a3[k];
            a7[k] += a1[k];
          }
          for (int k = 0; k < 4; k++) ref += a0[k] + a1[k] + a2[k] + a3[k] + a4[k] + a5[k] + a6[k] + a7[k];
        }
        if (s != ref) { printf("live vectors changed across the calls: %g, want %g\\n", s, ref); bad = 1; }
        printf(bad ? "FAIL\\n" : "OK clang\\n");
        return bad;
      }
      """;

  static final String GCC_CALLER = """
      #include <stdio.h>
      #pragma omp declare simd simdlen(4) notinbranch
      float shade(float);
      float ref(float);   /* the scalar function under another name: never vectorized */
      float in[1000], out[1000];
      int main(void) {
        for (int i = 0; i < 1000; i++) in[i] = (i - 300) * 0.37f;
        #pragma omp simd
        for (int i = 0; i < 1000; i++) out[i] = shade(in[i]);
        int bad = 0;
        for (int i = 0; i < 1000; i++) if (out[i] != ref(in[i])) { printf("%d: %g, want %g\\n", i, out[i], ref(in[i])); bad = 1; break; }
        printf(bad ? "FAIL\\n" : "OK gcc\\n");
        return bad;
      }
      """;

  @Test
  void advancedSimdVariantsAreCalledByClangAndGccUnderQemu(@TempDir Path dir) throws Exception {
    CrossTarget neon = CrossTarget.neon();
    CrossTests.require(neon);
    BundledClang clang = BundledClang.locate();
    List<String> aarch64 = List.of("--target=aarch64-linux-gnu", "-O2", "-fno-math-errno");
    byte[] bc = clang.compileToBitcode(SCALAR, "shade.c", aarch64);
    Path obj = dir.resolve("variants.o");
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.load(bc, "shade.c")) {
      assertTrue(m.targetTriple().startsWith("aarch64"), m.targetTriple());
      for (boolean masked : new boolean[] {false, true}) {
        var r = new Packetizer(PacketizerOptions.builder().width(4).params("v").masked(masked).vectorAbi(true).build())
            .run(m, "shade", null);
        String name = masked ? "_ZGVnM4v_shade" : "_ZGVnN4v_shade";
        assertEquals(name, r.packetFunction());
        Function f = m.function(name).orElseThrow();
        assertEquals(VectorAbi.AARCH64_VECTOR_PCS, f.callingConvention(), "the vector procedure call standard");
        if (masked) assertEquals("<4 x i32>", f.param(1).type().toString(), "mask lanes as wide as the narrowest data size");
      }
      // a second copy of the scalar function for the GCC caller's reference
      m.function("shade").orElseThrow();
      assertTrue(m.verify().isEmpty(), () -> m.verify().get());
      try (TargetMachine tm = new TargetSpec("aarch64-linux-gnu", "", "+neon", 0).targetMachine()) {
        TargetObject.emitModule(m, tm, obj);
      }
    }
    Files.writeString(dir.resolve("ref.c"), SCALAR.replace("float shade(", "float ref("));
    Files.writeString(dir.resolve("clang_caller.c"), CLANG_CALLER);
    Files.writeString(dir.resolve("gcc_caller.c"), GCC_CALLER);
    run(clang, dir, List.of("clang", "--target=aarch64-linux-gnu", "-O2", "-c", "clang_caller.c", "-o", "clang_caller.o"));
    run(clang, dir, List.of("clang", "--target=aarch64-linux-gnu", "-O0", "-c", "ref.c", "-o", "ref.o"));
    run(clang, dir, List.of(neon.gcc(), "-o", "clang_caller", "clang_caller.o", obj.toString(), "-lm"));
    ProcessResult gccCompile = run(clang, dir, List.of(neon.gcc(), "-O3", "-fopenmp-simd", "-S", "gcc_caller.c", "-o", "gcc_caller.s"));
    String asm = Files.readString(dir.resolve("gcc_caller.s"));
    assertTrue(asm.contains("_ZGVnN4v_shade"), () -> "GCC's loop does not call the Advanced SIMD variant:\n" + gccCompile.stderr());
    run(clang, dir, List.of(neon.gcc(), "-o", "gcc_caller", "gcc_caller.s", "ref.o", obj.toString(), "-lm"));
    for (String exe : List.of("clang_caller", "gcc_caller")) {
      ProcessBuilder pb = new ProcessBuilder(neon.qemuPath().toString(), "-cpu", neon.qemuCpu(), dir.resolve(exe).toString())
          .redirectErrorStream(true);
      pb.environment().put("QEMU_LD_PREFIX", neon.sysroot().toString());
      Process p = pb.start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertEquals(0, p.waitFor(), () -> exe + " under qemu-aarch64:\n" + out);
      assertTrue(out.contains("OK"), out);
    }
  }

  @Test
  void riscvHasNoVectorFunctionAbiAndSaysSo() {
    try (LlvmContext ctx = LlvmContext.create();
         LlvmModule m = ctx.parseIr("define float @f(float %x) {\n  ret float %x\n}\n", "f")) {
      new TargetSpec("riscv64-linux-gnu", "", "+v", 0).applyTo(m);
      String before = m.toIr();
      var e = assertThrows(PacketizationException.class, () -> new Packetizer(PacketizerOptions.builder().width(4)
          .vectorAbi(true).build()).run(m, "f", null));
      assertTrue(e.getMessage().contains("riscv64") && e.getMessage().contains("@f"), e::getMessage);
      assertEquals(before, m.toIr(), "the module is unchanged");
    }
  }

  @Test
  void tooWideAdvancedSimdVariantIsRejected() {
    try (LlvmContext ctx = LlvmContext.create();
         LlvmModule m = ctx.parseIr("define float @f(float %x) {\n  ret float %x\n}\n", "f")) {
      new TargetSpec("aarch64-linux-gnu", "", "+neon", 0).applyTo(m);
      var e = assertThrows(PacketizationException.class, () -> new Packetizer(PacketizerOptions.builder().width(32)
          .vectorAbi(true).build()).run(m, "f", null));
      assertTrue(e.getMessage().contains("four 128-bit"), e::getMessage);
    }
  }

  static ProcessResult run(BundledClang clang, Path dir, List<String> cmd) {
    ProcessResult r = clang.run(new ArrayList<>(cmd), dir);
    assertEquals(0, r.exitCode(), () -> String.join(" ", cmd) + ":\n" + r.stderr());
    return r;
  }
}
