package org.packetizer.cli;

import static org.junit.jupiter.api.Assertions.*;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.packetizer.core.check.CrossTarget;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.toolchain.BundledClang;

/**
 * {@code packetize} for other targets: {@code --target-triple} (and a module compiled for AArch64 by
 * clang, which needs no option), {@code --check} under qemu, and the errors of bad target options.
 */
class CrossTargetCliTest {
  @TempDir Path dir;

  static void requireQemu() {
    for (CrossTarget t : List.of(CrossTarget.neon(), CrossTarget.rvv(256))) {
      t.missing().ifPresent(m -> {
        String msg = "SKIPPED LOUDLY: cannot run " + t.name() + " code here, missing " + m;
        System.err.println(msg);
        Assumptions.abort(msg);
      });
    }
  }

  @Test
  void checkRunsUnderQemuForAnotherTriple() throws IOException {
    requireQemu();
    Path bc = Cli.bundled(dir, "mandelbrot");
    Path out = dir.resolve("m.bc");
    Cli.Run r = Cli.run(bc.toString(), "-f", "mandelbrot", "-w", "8", "--params", "vvu", "--target-triple", "riscv64-linux-gnu",
        "--target-features", "+v,+zvl256b", "--vector-bits", "256", "--check", "-o", out.toString());
    assertEquals(0, r.code(), r::toString);
    assertTrue(r.err().contains("all equal") && r.err().contains("under qemu-riscv64 -cpu rv64,v=true,vlen=256"), r::toString);
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.load(Files.readAllBytes(out), "m.bc")) {
      assertEquals("riscv64-linux-gnu", m.targetTriple());
      assertEquals(4L << 32 | 4L, m.function("mandelbrot_simd8").orElseThrow().enumAttributeValue("vscale_range").orElseThrow());
    }
  }

  @Test
  void aModuleClangCompiledForAArch64IsCheckedUnderQemuWithoutOptions() throws IOException {
    requireQemu();
    Path src = dir.resolve("k.c");
    Files.writeString(src, """
        static float helper(float x, int n) {
          float s = 0;
          for (int i = 0; i < n; i++) s += x * (float) i;
          return s;
        }
        float k(float x, int n) { return x > 0.5f ? helper(x, n) : -x; }
        """);
    for (String opt : List.of("-O1", "-O2")) {
      Path bc = dir.resolve("k" + opt + ".bc");
      BundledClang.locate().compileToBitcode(dir, src.getFileName(), bc.getFileName(), List.of("--target=aarch64-linux-gnu", opt));
      Cli.Run r = Cli.run(bc.toString(), "-f", "k", "-w", "4", "--params", "vu", "--check", "-o", dir.resolve("o.bc").toString());
      assertEquals(0, r.code(), r::toString);
      assertTrue(r.err().contains("all equal") && r.err().contains("under qemu-aarch64"), r::toString);
    }
  }

  @Test
  void aCrashUnderQemuIsAFailedCheck() {
    requireQemu();
    Path c = Cli.copy(dir, "crashes.c");
    Path bc = dir.resolve("crashes.bc");
    BundledClang.locate().compileToBitcode(dir, c.getFileName(), bc.getFileName(), List.of("--target=aarch64-linux-gnu", "-O1"));
    Cli.Run r = Cli.run(bc.toString(), "-f", "crashy", "--params", "vu", "--buffer", "1=i32:in", "-w", "4", "--check",
        "-o", dir.resolve("out.bc").toString());
    assertEquals(ExitCodes.CHECK_MISMATCH, r.code(), r::toString);
    assertTrue(r.err().contains("crashed under qemu-aarch64") && r.err().contains("SIGSEGV"), r::toString);
    assertFalse(r.err().contains("\tat "), r::toString);
  }

  @Test
  void badTargetOptionsAreUsageErrors() throws IOException {
    Path bc = Cli.bundled(dir, "mandelbrot");
    Cli.Run r = Cli.run(bc.toString(), "-f", "mandelbrot", "--params", "vvu", "--target-triple", "nonsense-cpu-os");
    assertEquals(ExitCodes.USAGE_OR_INPUT, r.code(), r::toString);
    assertTrue(r.err().contains("nonsense-cpu-os"), r::toString);
    r = Cli.run(bc.toString(), "-f", "mandelbrot", "--params", "vvu", "--vector-bits", "300", "--target-triple", "aarch64-linux-gnu");
    assertEquals(ExitCodes.USAGE_OR_INPUT, r.code(), r::toString);
    assertTrue(r.err().contains("power of two"), r::toString);
    r = Cli.run(bc.toString(), "-f", "mandelbrot", "--params", "vvu", "--vector-bits", "256");
    assertEquals(ExitCodes.USAGE_OR_INPUT, r.code(), r::toString);
    r = Cli.run(bc.toString(), "-f", "mandelbrot", "--params", "vvu", "--target-triple", "aarch64-linux-gnu", "--c-abi",
        "-o", dir.resolve("x.bc").toString());
    assertEquals(ExitCodes.UNSUPPORTED, r.code(), r::toString);
    assertTrue(r.err().contains("x86-64 only"), r::toString);
  }

  @Test
  void scalablePacketsFromTheCommandLine() throws IOException {
    Path bc = Cli.bundled(dir, "mandelbrot");
    Path out = dir.resolve("s.ll");
    Cli.Run r = Cli.run(bc.toString(), "-f", "mandelbrot", "-w", "4", "--params", "vvu", "--target-triple", "aarch64-linux-gnu",
        "--target-features", "+sve", "--scalable", "-S", "-o", out.toString());
    assertEquals(0, r.code(), r::toString);
    String ir = Files.readString(out);
    assertTrue(ir.contains("@mandelbrot_simd4(<vscale x 4 x float> %x0, <vscale x 4 x float> %y0, i32 %maxIter, <vscale x 4 x i1> %mask)")
        || ir.matches("(?s).*define <vscale x 4 x i32> @mandelbrot_simd4\\(<vscale x 4 x float>.*<vscale x 4 x i1>.*"), ir);
    // an atomic read-modify-write through each lane's own pointer is unrolled lane by lane: refused, exit 3, nothing written
    Path atomic = dir.resolve("atomic.ll");
    Files.writeString(atomic, "define i32 @f(ptr %p, i32 %x) {\n  %y = atomicrmw add ptr %p, i32 %x seq_cst\n  ret i32 %y\n}\n");
    Path out2 = dir.resolve("c.ll");
    r = Cli.run(atomic.toString(), "-f", "f", "-w", "4", "--params", "vv", "--target-triple", "aarch64-linux-gnu",
        "--target-features", "+sve", "--scalable", "-S", "-o", out2.toString());
    assertEquals(ExitCodes.UNSUPPORTED, r.code(), r::toString);
    assertTrue(r.err().contains("scalable packets") && r.err().contains("element"), r::toString);
    assertFalse(Files.exists(out2));
  }

  @Test
  void checkRunsScalablePacketsUnderQemuAtSeveralVectorLengths() throws IOException {
    Assumptions.assumeTrue(org.packetizer.core.check.CrossTarget.sve(512).missing().isEmpty(), "SKIPPED LOUDLY: no qemu-aarch64");
    // call03 calls expf: the scalable function loops over its vscale × 4 lanes for llvm.exp
    Path bc = Cli.bundled(dir, "call03");
    Cli.Run r = Cli.run(bc.toString(), "-f", "call03", "-w", "4", "--target-triple", "aarch64-linux-gnu", "--target-features",
        "+sve", "--scalable", "--check", "-o", dir.resolve("c.bc").toString());
    assertEquals(0, r.code(), r::toString);
    assertTrue(r.err().contains("all equal") && r.err().contains("under qemu-aarch64 at SVE 128, 256, 512 bits")
        || r.out().contains("all equal") && r.out().contains("under qemu-aarch64 at SVE 128, 256, 512 bits"), r::toString);
    // the SVE vector-function-ABI variant, checked through its LLVM form
    Path m = Cli.bundled(dir, "mandelbrot");
    r = Cli.run(m.toString(), "-f", "mandelbrot", "-w", "4", "--params", "vvu", "--target-triple", "aarch64-linux-gnu",
        "--target-features", "+sve", "--scalable", "--vector-abi", "--check", "-S", "-o", dir.resolve("m.ll").toString());
    assertEquals(0, r.code(), r::toString);
    String ir = Files.readString(dir.resolve("m.ll"));
    assertTrue(ir.contains("@_ZGVsMxvvu_mandelbrot(<vscale x 4 x float>") && ir.contains("<vscale x 16 x i1> %pg"), ir);
    assertTrue((r.out() + r.err()).contains("all equal"), r::toString);
  }

  @Test
  void checkRunsScalableStructOfArraysParametersUnderQemu() throws IOException {
    Assumptions.assumeTrue(org.packetizer.core.check.CrossTarget.sve(512).missing().isEmpty(), "SKIPPED LOUDLY: no qemu-aarch64");
    // fig417: a struct Color written under a divergent branch through a struct-of-arrays pointer; the check lays out
    // blocks of vscale × 4 elements per field at each vector length (8 and 16 lanes at 256 and 512 bits)
    Path bc = Cli.bundled(dir, "fig417");
    Cli.Run r = Cli.run(bc.toString(), "-f", "fig417", "-w", "4", "--params", "vvs", "--target-triple", "aarch64-linux-gnu",
        "--target-features", "+sve", "--scalable", "--check", "-o", dir.resolve("f.bc").toString());
    assertEquals(0, r.code(), r::toString);
    assertTrue((r.out() + r.err()).contains("all equal") && (r.out() + r.err()).contains("under qemu-aarch64 at SVE 128, 256, 512 bits"),
        r::toString);
    // the SVE vector function ABI has no token for a struct-of-arrays parameter: refused, nothing written
    Path out = dir.resolve("g.ll");
    r = Cli.run(bc.toString(), "-f", "fig417", "-w", "4", "--params", "vvs", "--target-triple", "aarch64-linux-gnu",
        "--target-features", "+sve", "--scalable", "--vector-abi", "-S", "-o", out.toString());
    assertNotEquals(0, r.code(), r::toString);
    assertTrue(r.err().contains("struct-of-arrays") && r.err().contains("vector function ABI"), r::toString);
    assertFalse(Files.exists(out));
  }
}
