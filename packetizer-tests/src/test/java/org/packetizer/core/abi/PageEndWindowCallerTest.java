package org.packetizer.core.abi;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.packetizer.core.Packetizer;
import org.packetizer.core.api.PacketizationResult;
import org.packetizer.core.api.PacketizerOptions;
import org.packetizer.core.driver.ArrayDriver;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.toolchain.BundledClang;
import org.packetizer.core.toolchain.ProcessResult;

/**
 * The foreign path of the byte windows' page-end form (issue 16, nineteenth round; {@code
 * -Dpacketizer.byteWindows.slowLanes=shifted}, the default): {@code driver/page_end_kernels.c}, compiled by the bundled
 * clang at plain {@code -O2} for the target, holds strhash's byte loop and a pointer walk with a data-dependent exit; their
 * array drivers (one W-lane packet per step), emitted to an object by the bundled {@code llc}, are called from {@code
 * driver/page_end_caller.c} (its own translation unit, the generated header only) built by GCC and by clang. The text
 * spans two pages and ends at a PROT_NONE page: for every length 0..48 and every lane a packet where that lane's string
 * ends at the text's last byte, the other lanes' strings near the end, across the inner page boundary or anywhere; then
 * random n. Every element is compared with the scalar functions; a window read across the guard page faults (exit 139).
 * The form before ({@code loop}) runs the same program.
 */
class PageEndWindowCallerTest {
  @TempDir Path dir;

  @ParameterizedTest(name = "W={0} target={1} form={2}")
  @CsvSource({"8,haswell,shifted", "16,haswell,shifted", "8,avx512,shifted", "16,avx512,shifted", "16,avx512,loop"})
  void stringsAtThePagesEndMatchTheScalarFunctionsFromC(int w, String target, String form) throws Exception {
    boolean avx512 = target.equals("avx512");
    Assumptions.assumeTrue(avx512 ? Toolchains.hostHas("avx512f") && Toolchains.hostHas("avx512vl") && Toolchains.hostHas("avx512bw")
        : Toolchains.hostHas("avx2"), "SKIPPED (LOUD): the host has no " + (avx512 ? "AVX-512" : "AVX2") + "; the page-end windows were not run from C");
    Toolchains.requireGcc("PageEndWindowCallerTest");
    BundledClang clang = BundledClang.locate();
    Files.writeString(dir.resolve("page_end_kernels.c"), ArrayDriverCallerTest.resource("page_end_kernels.c"));
    String march = avx512 ? "-march=skylake-avx512" : "-march=haswell";
    clang.compileToBitcode(dir, Path.of("page_end_kernels.c"), Path.of("kernels.bc"), List.of("-O2", march));
    List<PacketizationResult.DriverInfo> drivers = new ArrayList<>();
    String before = System.getProperty("packetizer.byteWindows.slowLanes");
    System.setProperty("packetizer.byteWindows.slowLanes", form);
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.load(dir.resolve("kernels.bc"))) {
      for (String k : List.of("fnv_range", "until_star")) {
        List<String> remarks = new ArrayList<>();
        PacketizationResult r = new Packetizer(PacketizerOptions.builder().width(w).params("uvv").verifyEachPhase(true)
            .arrayDriver(true).interleave(1).remarks(x -> remarks.add(x.message())).build()).run(m, k, k + "_simd" + w);
        assertEquals(k + "_map", r.driverFunction().orElseThrow());
        drivers.add(r.driver().orElseThrow());
        // (the byte loads read windows, and in the default form a lane near its page's end reads the page's last 8 bytes)
        assertTrue(remarks.stream().anyMatch(x -> x.contains("each lane reads 8 bytes once every 8 iterations")), k + ": " + remarks);
        assertEquals(form.equals("shifted"), remarks.stream().anyMatch(x -> x.contains("reads the page's last 8 bytes, shifted")), k + ": " + remarks);
      }
      m.write(dir.resolve("kernel.packet.bc"));
    } finally {
      if (before == null) System.clearProperty("packetizer.byteWindows.slowLanes");
      else System.setProperty("packetizer.byteWindows.slowLanes", before);
    }
    Files.writeString(dir.resolve("drivers.h"), ArrayDriver.header(drivers, "drivers.h", null));
    ArrayDriverCallerTest.writeCaller(dir, "page_end_caller.c");
    String object = Toolchains.llcKernel(clang, dir, "", "obj");
    for (String exe : Toolchains.gccAndClangCallers(clang, dir, "caller.c", List.of("-std=c11", "-Werror", "-DW=" + w), List.of(object))) {
      ProcessResult r = clang.run(List.of(dir.resolve(exe).toString()), dir);
      String out = r.stdoutText();
      assertEquals(0, r.exitCode(), exe + " W=" + w + " " + form + ": elements differ from the scalar functions (exit " + r.exitCode()
          + "; 139 is a fault: a read past the page the scalar function reads in):\n" + out + r.stderr());
      assertTrue(out.contains("W=" + w + ": " + 2 * (1 + 4 * w + 2 + 1) + " driver calls checked, 0 differences"), out);
    }
  }
}
