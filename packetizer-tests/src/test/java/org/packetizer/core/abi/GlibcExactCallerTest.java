package org.packetizer.core.abi;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.packetizer.core.Packetizer;
import org.packetizer.core.api.PacketizerOptions;
import org.packetizer.core.api.Remark;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.toolchain.BundledClang;

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
    boolean wide = Toolchains.exactMathCallerSetUp("GlibcExactCallerTest", dir, "bs_kernel.c", "bs_caller.c");
    BundledClang clang = BundledClang.locate();
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
      objects.add(Toolchains.llcKernel(clang, dir, "" + w, "obj"));
    }
    // the caller by GCC, and by clang (compiled to an object, linked by GCC's driver), each run to exit 0
    for (Map.Entry<String, String> run : Toolchains.runExactMathCallers(clang, dir, "bs_caller.c", wide, objects).entrySet()) {
      String exe = run.getKey(), out = run.getValue();
      assertTrue(out.contains((wide ? 320000 : 160000) + " lanes checked, 0 differences"), exe + ": " + out);
      assertTrue(out.contains("errno: ordinary 0, negative lane 33, scalar 33"), exe + ": " + out);
      if (!wide) System.err.println("SKIPPED (LOUD): the host has no AVX-512; " + exe + " ran W8 only");
    }
  }
}
