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
import org.packetizer.core.api.Remark;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.toolchain.BundledClang;
import org.packetizer.core.toolchain.ProcessResult;

/**
 * The foreign path of the glibc-exact expf/logf route (issue 16): a Black-Scholes-like kernel calling
 * expf and logf, compiled by the bundled clang with plain -O2 in its own translation unit, packetized
 * in the bit-exact mode at W8 (haswell) and W16 (x86-64-v4), emitted to objects by llc, and called
 * with 256- and 512-bit vector arguments by a C caller in its own translation unit, compiled once by
 * GCC and once by clang; the caller compares every lane with the scalar function (glibc) bit for bit,
 * special values included, and checks errno: untouched by ordinary lanes, EDOM from a lane whose
 * logf argument is negative, as the scalar call sets it.
 */
class GlibcExactCallerTest {
  @TempDir Path dir;

  @Test
  void gccAndClangCallersGetGlibcsBits() throws Exception {
    Assumptions.assumeTrue(Toolchains.hostHas("avx2") && Toolchains.hostHas("fma"), "SKIPPED (LOUD): the host has no AVX2+FMA");
    if (Toolchains.gcc().isEmpty()) {
      System.err.println("SKIPPED (LOUD): gcc is not installed; GlibcExactCallerTest did not run (bin/install-test-deps.sh installs it)");
      Assumptions.abort("gcc is not installed");
    }
    boolean wide = Toolchains.hostHas("avx512f");
    BundledClang clang = BundledClang.locate();
    Files.writeString(dir.resolve("bs_kernel.c"), FmodGccCallerTest.resource("bs_kernel.c"));
    Files.writeString(dir.resolve("bs_caller.c"), FmodGccCallerTest.resource("bs_caller.c"));
    List<String> objects = new ArrayList<>();
    for (String[] t : List.of(new String[] {"8", "haswell"}, new String[] {"16", "x86-64-v4"})) {
      int w = Integer.parseInt(t[0]);
      String bc = "kernel" + w + ".bc";
      // one scalar bs_piece in the program: the W16 module's is renamed
      String scalar = w == 8 ? "bs_piece" : "bs_piece_w16";
      clang.compileToBitcode(dir, Path.of("bs_kernel.c"), Path.of(bc), List.of("-O2", "-march=" + t[1], "-nostdlibinc", "-Dbs_piece=" + scalar));
      List<Remark> remarks = new ArrayList<>();
      try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.load(dir.resolve(bc))) {
        new Packetizer(PacketizerOptions.builder().width(w).params("vv").vectorMath(PacketizerOptions.VectorMath.INTRINSICS)
            .verifyEachPhase(true).remarks(remarks::add).build()).run(m, scalar, "bs_piece" + w);
        m.write(dir.resolve("kernel" + w + ".packet.bc"));
      }
      assertEquals(3, remarks.stream().filter(r -> r.kind() == Remark.Kind.VECTORIZED_CALL
          && r.message().contains("glibc-exact vector (verified at run time)")).count(), remarks.toString());
      ProcessResult llc = clang.run(List.of("llc", "-O2", "-filetype=obj", "-relocation-model=pic",
          dir.resolve("kernel" + w + ".packet.bc").toString(), "-o", dir.resolve("kernel" + w + ".o").toString()), dir);
      assertEquals(0, llc.exitCode(), llc.stderr());
      objects.add("kernel" + w + ".o");
    }
    // the caller by GCC, and by clang (compiled to an object, linked by GCC's driver)
    List<String> isa = wide ? List.of("-mavx2", "-mfma", "-mavx512f", "-DWIDE") : List.of("-mavx2", "-mfma");
    List<String> exes = Toolchains.gccAndClangCallers(clang, dir, "bs_caller.c", isa, objects);
    for (String exe : exes) {
      ProcessResult r = clang.run(List.of(dir.resolve(exe).toString()), dir);
      assertEquals(0, r.exitCode(), exe + ": " + r.stdoutText() + r.stderr());
      assertTrue(r.stdoutText().contains((wide ? 320000 : 160000) + " lanes checked, 0 differences"), exe + ": " + r.stdoutText());
      assertTrue(r.stdoutText().contains("errno: ordinary 0, negative lane 33, scalar 33"), exe + ": " + r.stdoutText());
      if (!wide) System.err.println("SKIPPED (LOUD): the host has no AVX-512; " + exe + " ran W8 only");
    }
  }
}
