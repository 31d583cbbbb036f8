package org.packetizer.core.abi;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Files;
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
 * The foreign path of the glibc-exact helpers' range lanes (issue 16, twenty-third round): expf, exp2f and powf
 * called by a kernel compiled by the bundled clang with plain -O2 (errno visible) in its own translation unit,
 * packetized in the bit-exact mode at W4 (x86-64-v2: expf and exp2f; powf stays per lane), W8 (haswell) and W16
 * (skylake-avx512, where the host has AVX-512), emitted to objects by llc and called by a C caller in its own
 * translation unit, compiled once by GCC and once by clang. The caller draws each lane from every class around the
 * over- and underflow thresholds (each threshold and its neighbours, the fast band under them, deep under- and
 * overflow, NaN and infinities now and then) and compares, per packet, every lane with glibc's scalar function bit for
 * bit and errno after the packet call with errno after the scalar calls. The helpers' IR is checked too: with the
 * default each of the three stores ERANGE through {@code __errno_location} on its cold edge, with
 * {@code -Dpacketizer.helperRangeLanes=libm} and for a target that is not Linux none does.
 */
class GlibcRangeLanesCallerTest {
  @TempDir Path dir;

  /** Packetizes range_kernel.c's three functions at width w for march into dir/kernel{w}.packet.bc; returns the module's IR text. */
  static String packetize(BundledClang clang, Path dir, int w, String march, String triple) throws Exception {
    String bc = "kernel" + w + ".bc";
    List<String> flags = new ArrayList<>(List.of("-O2", "-march=" + march, "-nostdlibinc"));
    if (triple != null) flags.add("--target=" + triple);
    // one scalar function of each name in the program: the other widths' modules rename theirs
    String suffix = w == 8 ? "" : "_w" + w;
    for (String fn : List.of("range_exp", "range_exp2", "range_pow")) flags.add("-D" + fn + "=" + fn + suffix);
    clang.compileToBitcode(dir, Path.of("range_kernel.c"), Path.of(bc), flags);
    List<Remark> remarks = new ArrayList<>();
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.load(dir.resolve(bc))) {
      for (String fn : List.of("range_exp", "range_exp2", "range_pow")) {
        new Packetizer(PacketizerOptions.builder().width(w).params(fn.equals("range_pow") ? "vv" : "v")
            .vectorMath(PacketizerOptions.VectorMath.INTRINSICS).verifyEachPhase(true).remarks(remarks::add).build()).run(m, fn + suffix, fn + w);
      }
      assertEquals(w == 4 ? 2 : 3, remarks.stream().filter(r -> r.kind() == Remark.Kind.VECTORIZED_CALL
          && r.message().contains("glibc-exact vector (verified at run time)")).count(), march + ": " + remarks);
      m.write(dir.resolve("kernel" + w + ".packet.bc"));
      return m.toIr();
    }
  }

  /** The number of glibc-exact helper entries (expf, exp2f, powf) in the IR text that call __errno_location. */
  static int helpersStoringErrno(String ir) {
    int n = 0;
    for (String f : ir.split("\ndefine ")) {
      String head = f.lines().findFirst().orElse("");
      if (head.matches(".*@__packetizer_glibc_(expf|exp2f|powf)_v\\d+_[0-9a-f]+[a-z]*\\(.*") && f.contains("call ptr @__errno_location()")) n++;
    }
    return n;
  }

  @Test
  void gccAndClangCallersGetGlibcsBitsAndErrno() throws Exception {
    boolean wide = Toolchains.exactMathCallerSetUp("GlibcRangeLanesCallerTest", dir, "range_kernel.c", "range_caller.c");
    BundledClang clang = BundledClang.locate();
    List<String> objects = new ArrayList<>();
    List<String[]> targets = new ArrayList<>(List.of(new String[] {"4", "x86-64-v2"}, new String[] {"8", "haswell"}));
    if (wide) targets.add(new String[] {"16", "skylake-avx512"});
    for (String[] t : targets) {
      int w = Integer.parseInt(t[0]);
      String ir = packetize(clang, dir, w, t[1], null);
      assertEquals(w == 4 ? 2 : 3, helpersStoringErrno(ir), t[1] + ": the helpers finishing their range lanes");
      objects.add(Toolchains.llcKernel(clang, dir, "" + w, "obj"));
    }
    for (Map.Entry<String, String> run : Toolchains.runExactMathCallers(clang, dir, "range_caller.c", wide, objects).entrySet()) {
      String exe = run.getKey(), out = run.getValue();
      int packets = wide ? 40000 + 40000 + 90000 + 60000 : 40000 + 40000 + 90000;
      assertTrue(out.contains(packets + " packets checked, 0 differences;"), exe + ": " + out);
      int range = Integer.parseInt(out.replaceAll("(?s).*differences; (\\d+) with range lanes only.*", "$1"));
      assertTrue(range > packets / 10, exe + ": too few packets with range lanes alone: " + out);
      if (!wide) System.err.println("SKIPPED (LOUD): the host has no AVX-512; " + exe + " ran W4 and W8 only");
    }
  }

  @Test
  void theKnobAndOtherSystemsKeepTheScalarCalls() throws Exception {
    BundledClang clang = BundledClang.locate();
    Files.writeString(dir.resolve("range_kernel.c"), FmodGccCallerTest.resource("range_kernel.c"));
    System.setProperty("packetizer.helperRangeLanes", "libm");
    try {
      assertEquals(0, helpersStoringErrno(packetize(clang, dir, 8, "haswell", null)), "-Dpacketizer.helperRangeLanes=libm");
    } finally {
      System.clearProperty("packetizer.helperRangeLanes");
    }
    // not Linux: errno is not *__errno_location() everywhere
    assertEquals(0, helpersStoringErrno(packetize(clang, dir, 8, "haswell", "x86_64-unknown-freebsd")), "FreeBSD");
    assertEquals(3, helpersStoringErrno(packetize(clang, dir, 8, "haswell", null)), "the default");
  }
}
