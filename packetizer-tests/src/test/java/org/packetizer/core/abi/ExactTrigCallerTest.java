package org.packetizer.core.abi;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.io.TempDir;
import org.packetizer.core.Packetizer;
import org.packetizer.core.api.PacketizerOptions;
import org.packetizer.core.api.Remark;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.toolchain.BundledClang;
import org.packetizer.core.toolchain.ProcessResult;

/**
 * The foreign path of the bit-exact vector sinf/cosf (issue 16): kernels calling sinf and cosf
 * ({@code trig_kernel.c}: each alone, and a sine and cosine of one angle, which clang fuses into
 * sincosf), compiled by the bundled clang with plain -O2 in their own translation unit, packetized in
 * the default bit-exact mode at W8 for haswell (glibc's FMA build) and at W4 for x86-64-v2 (its SSE2
 * build), emitted to an object by llc, and called with {@code __m256}/{@code __m128} arguments by a C
 * caller compiled separately by GCC and by clang ({@code trig_caller.c}): every lane of a million
 * random bit patterns, a million random values in [-130, 130] and the boundaries (multiples of pi/4
 * and their neighbours, 2^-12, 0.75, 120, subnormals, zeros, infinities, NaN payloads) against glibc's
 * scalar sinf and cosf, bit for bit. The W4 build runs with {@code GLIBC_TUNABLES=glibc.cpu.hwcaps=-AVX2,-FMA}
 * too, so glibc selects its SSE2 build there and the vector code is compared with it (the SSE2 helper is
 * taken only with {@code -Dpacketizer.exactTrigSse2=true}, which this test sets while packetizing).
 *
 * <p>{@code -Dpacketizer.trig.keep=DIR} copies the callers to DIR: {@code DIR/caller-w8-gcc all} is the
 * exhaustive check of all 2^32 inputs (docs/testing.md).
 */
class ExactTrigCallerTest {
  @TempDir Path dir;

  @ParameterizedTest(name = "W={0} {1}, caller by {2}")
  @CsvSource({"8, haswell, gcc", "8, haswell, clang", "4, x86-64-v2, gcc", "4, x86-64-v2, clang"})
  void callerGetsGlibcsBits(int w, String cpu, String compiler) throws Exception {
    Assumptions.assumeTrue(Toolchains.hostHas("avx2"), "SKIPPED (LOUD): the host has no AVX2");
    if (compiler.equals("gcc")) Toolchains.requireGcc("ExactTrigCallerTest (GCC caller)");
    BundledClang clang = BundledClang.locate();
    Files.writeString(dir.resolve("trig_kernel.c"), FmodGccCallerTest.resource("trig_kernel.c"));
    Files.writeString(dir.resolve("trig_caller.c"), FmodGccCallerTest.resource("trig_caller.c"));
    clang.compileToBitcode(dir, Path.of("trig_kernel.c"), Path.of("kernel.bc"), List.of("-O2", "-march=" + cpu, "-nostdlibinc"));
    List<Remark> remarks = new ArrayList<>();
    // the SSE2 build's helper is taken only on request (ExactTrig.worthwhile): here it is what W4 x86-64-v2 tests
    String was = System.setProperty("packetizer.exactTrigSse2", "true");
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.load(dir.resolve("kernel.bc"))) {
      for (String f : List.of("k_sin", "k_cos")) {
        new Packetizer(PacketizerOptions.builder().width(w).vectorMath(PacketizerOptions.VectorMath.INTRINSICS).params("v").verifyEachPhase(true).remarks(remarks::add).build()).run(m, f, f + w);
      }
      new Packetizer(PacketizerOptions.builder().width(w).vectorMath(PacketizerOptions.VectorMath.INTRINSICS).params("vv").verifyEachPhase(true).remarks(remarks::add).build()).run(m, "k_dir", "k_dir" + w);
      m.write(dir.resolve("kernel.packet.bc"));
    } finally {
      if (was == null) System.clearProperty("packetizer.exactTrigSse2");
      else System.setProperty("packetizer.exactTrigSse2", was);
    }
    String build = w == 8 ? "FMA build" : "SSE2 build";
    assertEquals(4, remarks.stream().filter(r -> r.kind() == Remark.Kind.VECTORIZED_CALL && r.message().contains("glibc's")
        && r.message().contains(build)).count(), remarks.toString());
    assertTrue(remarks.stream().noneMatch(r -> r.kind() == Remark.Kind.SCALARIZED_CALL), remarks.toString());
    ProcessResult llc = clang.run(List.of("llc", "-O2", "-filetype=obj", "-relocation-model=pic",
        dir.resolve("kernel.packet.bc").toString(), "-o", dir.resolve("kernel.o").toString()), dir);
    assertEquals(0, llc.exitCode(), llc.stderr());
    String cc = compiler.equals("gcc") ? Toolchains.gcc().get() : clang.clangPath().toString();
    List<String> cmd = new ArrayList<>(List.of(cc, "-O2", w == 8 ? "-mavx2" : "-msse4.2", "-Wall", "trig_caller.c", "kernel.o", "-o", "caller", "-lm"));
    if (w == 4) cmd.add(1, "-DW4");
    if (compiler.equals("clang")) cmd.add(1, "-fno-builtin");
    ProcessResult link = clang.run(cmd, dir);
    assertEquals(0, link.exitCode(), link.stderr());
    String keep = System.getProperty("packetizer.trig.keep");
    if (keep != null) {
      Files.createDirectories(Path.of(keep));
      Files.copy(dir.resolve("caller"), Path.of(keep, "caller-w" + w + "-" + compiler), StandardCopyOption.REPLACE_EXISTING);
    }
    ProcessResult r = clang.run(List.of(dir.resolve("caller").toString(), "1000000", "7"), dir);
    assertEquals(0, r.exitCode(), r.stdoutText() + r.stderr());
    assertTrue(r.stdoutText().contains(" 0 differences"), r.stdoutText());
    if (w == 4) {
      ProcessBuilder pb = new ProcessBuilder(dir.resolve("caller").toString(), "300000", "11").directory(dir.toFile()).redirectErrorStream(true);
      pb.environment().put("GLIBC_TUNABLES", "glibc.cpu.hwcaps=-AVX2,-FMA");
      Process p = pb.start();
      String out = new String(p.getInputStream().readAllBytes());
      assertEquals(0, p.waitFor(), out);
      assertTrue(out.contains(" 0 differences"), out);
    }
  }
}
