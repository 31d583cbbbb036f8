package org.packetizer.core.abi;

import static org.junit.jupiter.api.Assertions.*;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
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
import org.packetizer.core.api.Remark;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.toolchain.BundledClang;
import org.packetizer.core.toolchain.ProcessResult;

/**
 * The foreign path of the exact fmodf route (issue 16): a kernel calling fmodf, compiled by the
 * bundled clang with plain -O2 in its own translation unit, packetized at W=8 for haswell (fmodf
 * becomes the packetizer's vector IR), emitted to an object by llc, and called with {@code __m256}
 * arguments by a C caller that GCC compiles separately; the caller compares every lane with the
 * scalar function (glibc's fmodf) bit for bit, special values included. Linked as the README's
 * C-caller example says: {@code -lm -lmvec -lsleef}.
 */
class FmodGccCallerTest {
  @TempDir Path dir;

  @Test
  void gccCallerGetsGlibcsBitsFromThePacketFunction() throws Exception {
    Assumptions.assumeTrue(Toolchains.hostHas("avx2"), "SKIPPED (LOUD): the host has no AVX2");
    Toolchains.requireGcc("FmodGccCallerTest");
    BundledClang clang = BundledClang.locate();
    Files.writeString(dir.resolve("rng_kernel.c"), resource("rng_kernel.c"));
    Files.writeString(dir.resolve("rng_caller.c"), resource("rng_caller.c"));
    clang.compileToBitcode(dir, Path.of("rng_kernel.c"), Path.of("kernel.bc"), List.of("-O2", "-march=haswell", "-nostdlibinc"));
    List<Remark> remarks = new ArrayList<>();
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.load(dir.resolve("kernel.bc"))) {
      new Packetizer(PacketizerOptions.builder().width(8).params("vv").verifyEachPhase(true).remarks(remarks::add).build())
          .run(m, "rng_step", "rng_step8");
      m.write(dir.resolve("kernel.packet.bc"));
    }
    assertEquals(3, remarks.stream().filter(r -> r.kind() == Remark.Kind.VECTORIZED_CALL && r.message().contains("exact")).count(),
        remarks.toString());
    assertTrue(remarks.stream().noneMatch(r -> r.kind() == Remark.Kind.SCALARIZED_CALL), remarks.toString());
    ProcessResult llc = clang.run(List.of("llc", "-O2", "-filetype=obj", "-relocation-model=pic",
        dir.resolve("kernel.packet.bc").toString(), "-o", dir.resolve("kernel.o").toString()), dir);
    assertEquals(0, llc.exitCode(), llc.stderr());
    ProcessResult gcc = clang.run(List.of(Toolchains.gcc().get(), "-O2", "-mavx2", "-Wall", "rng_caller.c", "kernel.o", "-o", "caller",
        "-lm", "-lmvec", "-lsleef"), dir);
    assertEquals(0, gcc.exitCode(), gcc.stderr());
    ProcessResult r = clang.run(List.of(dir.resolve("caller").toString()), dir);
    assertEquals(0, r.exitCode(), r.stdoutText() + r.stderr());
    assertTrue(r.stdoutText().contains("160000 lanes checked, 0 differences"), r.stdoutText());
  }

  static String resource(String name) {
    try (InputStream in = FmodGccCallerTest.class.getResourceAsStream("/vectormath/" + name)) {
      if (in == null) throw new IllegalArgumentException("no test resource vectormath/" + name);
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
