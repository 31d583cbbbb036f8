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
 * The foreign path of the glibc-exact powf/exp2f/log2f route (issue 16): a shading kernel calling powf
 * under a branch (a partial mask) and exp2f and log2f on every lane, compiled by the bundled clang with
 * plain -O2 in its own translation unit, packetized in the bit-exact mode at W4 (x86-64-v2: exp2f and
 * log2f take the route, powf stays per lane), W8 (haswell) and W16 (znver4), emitted to objects by
 * llc, and called with 128-, 256- and 512-bit vector arguments by a C caller in its own translation
 * unit, compiled once by GCC and once by clang; the caller compares every lane with the scalar function
 * (glibc) bit for bit, special values, integer exponents, overflow and underflow included, and checks
 * errno: untouched by ordinary lanes, ERANGE from a lane whose powf overflows, as the scalar call sets it.
 */
class GlibcPowCallerTest {
  @TempDir Path dir;

  @Test
  void gccAndClangCallersGetGlibcsBits() throws Exception {
    boolean wide = Toolchains.exactMathCallerSetUp("GlibcPowCallerTest", dir, "shade_kernel.c", "shade_caller.c");
    BundledClang clang = BundledClang.locate();
    List<String> objects = new ArrayList<>();
    List<String[]> targets = new ArrayList<>(List.of(new String[] {"4", "x86-64-v2"}, new String[] {"8", "haswell"}));
    if (wide) targets.add(new String[] {"16", "znver4"});
    for (String[] t : targets) {
      int w = Integer.parseInt(t[0]);
      String bc = "kernel" + w + ".bc";
      // one scalar shade_piece in the program: the other modules' are renamed; d * 3 - 1 not contracted into an
      // FMA (which haswell and znver4 have and x86-64-v2 has not), so that the W8 module's scalar is every width's reference
      String scalar = w == 8 ? "shade_piece" : "shade_piece_w" + w;
      clang.compileToBitcode(dir, Path.of("shade_kernel.c"), Path.of(bc), List.of("-O2", "-march=" + t[1], "-nostdlibinc",
          "-ffp-contract=off", "-Dshade_piece=" + scalar));
      List<Remark> remarks = new ArrayList<>();
      try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.load(dir.resolve(bc))) {
        new Packetizer(PacketizerOptions.builder().width(w).params("vv").vectorMath(PacketizerOptions.VectorMath.INTRINSICS)
            .verifyEachPhase(true).remarks(remarks::add).build()).run(m, scalar, "shade_piece" + w);
        m.write(dir.resolve("kernel" + w + ".packet.bc"));
      }
      assertEquals(w == 4 ? 2 : 3, remarks.stream().filter(r -> r.kind() == Remark.Kind.VECTORIZED_CALL
          && r.message().contains("glibc-exact vector (verified at run time)")).count(), t[1] + ": " + remarks);
      objects.add(Toolchains.llcKernel(clang, dir, "" + w, "obj"));
    }
    // the caller by GCC, and by clang (compiled to an object, linked by GCC's driver), each run to exit 0
    for (Map.Entry<String, String> run : Toolchains.runExactMathCallers(clang, dir, "shade_caller.c", wide, objects).entrySet()) {
      String exe = run.getKey(), out = run.getValue();
      assertTrue(out.contains((wide ? 480000 : 320000) + " lanes checked, 0 differences"), exe + ": " + out);
      assertTrue(out.contains("errno: ordinary 0, overflowing lane 34, scalar 34"), exe + ": " + out);
      if (!wide) System.err.println("SKIPPED (LOUD): the host has no AVX-512; " + exe + " ran W4 and W8 only");
    }
  }
}
