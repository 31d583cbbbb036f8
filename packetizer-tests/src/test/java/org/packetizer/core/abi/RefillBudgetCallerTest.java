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
import org.packetizer.core.api.Refill;
import org.packetizer.core.driver.ArrayDriver;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.toolchain.BundledClang;
import org.packetizer.core.toolchain.ProcessResult;

/**
 * The foreign path of the refill iteration budget (issue 17, eighteenth round; {@code -Dpacketizer.refill.iterBudget}):
 * {@code driver/byte_loop_kernels.c}, compiled by the bundled clang at plain {@code -O2} for AVX-512 or AVX2, holds two
 * byte loops — a tokenizer over a bounded byte range that also stops at a NUL, and Bernstein's hash of a NUL-terminated
 * string reached through a pointer array — whose refill iteration keeps the loop with a budget (the remark says so), so
 * their byte loads read 8-byte windows inside it. The refill drivers, emitted to an object by the bundled {@code llc},
 * are called from {@code driver/byte_loop_caller.c} (its own translation unit, the generated header only) built by GCC
 * and by clang; it compares every element of every n from 0 to 4W+1 and of three large n, random and coherent, with the
 * scalar functions, the text, the string pool and every array before a PROT_NONE page (the last elements read the last
 * byte before it), guard bytes before each output. A budget of 3 (windows reloaded at every call, in the middle of a
 * window's bytes) is run too.
 */
class RefillBudgetCallerTest {
  @TempDir Path dir;

  @ParameterizedTest(name = "W={0} target={1} budget={2}")
  @CsvSource({"8,avx512,auto", "16,avx512,auto", "8,haswell,auto", "16,haswell,auto", "16,avx512,3", "8,haswell,3"})
  void byteLoopsKeepTheirWindowsInTheRefillIterationAndMatchTheScalarFunctionsFromC(int w, String target, String budget)
      throws Exception {
    boolean avx512 = target.equals("avx512");
    Assumptions.assumeTrue(avx512 ? Toolchains.hostHas("avx512f") && Toolchains.hostHas("avx512vl") : Toolchains.hostHas("avx2"),
        "SKIPPED (LOUD): the host has no " + (avx512 ? "AVX-512" : "AVX2") + "; the refill budget was not run from C");
    Toolchains.requireGcc("RefillBudgetCallerTest");
    BundledClang clang = BundledClang.locate();
    Files.writeString(dir.resolve("byte_loop_kernels.c"), ArrayDriverCallerTest.resource("byte_loop_kernels.c"));
    clang.compileToBitcode(dir, Path.of("byte_loop_kernels.c"), Path.of("kernels.bc"),
        List.of("-O2", avx512 ? "-march=skylake-avx512" : "-march=haswell"));
    String[][] kernels = {{"token_hash", "uvv"}, {"zhash", "v"}};
    List<PacketizationResult.DriverInfo> drivers = new ArrayList<>();
    System.setProperty("packetizer.refill.iterBudget", budget);
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.load(dir.resolve("kernels.bc"))) {
      for (String[] k : kernels) {
        List<String> remarks = new ArrayList<>();
        drivers.add(new Packetizer(PacketizerOptions.builder().width(w).params(k[1]).verifyEachPhase(true).arrayDriver("*_refill")
            .refill(Refill.ON).remarks(x -> remarks.add(x.message())).build()).run(m, k[0], k[0] + "_simd" + w).driver().orElseThrow());
        int n = budget.equals("auto") ? 8 : Integer.parseInt(budget);
        assertTrue(remarks.stream().anyMatch(x -> x.startsWith("lane refill (--refill) at the loop")
            && x.contains("each iteration of the driver runs up to " + n + " iterations of the loop")), k[0] + ": " + remarks);
      }
      m.write(dir.resolve("kernel.packet.bc"));
    } finally {
      System.clearProperty("packetizer.refill.iterBudget");
    }
    Files.writeString(dir.resolve("drivers.h"), ArrayDriver.header(drivers, "drivers.h", null));
    ArrayDriverCallerTest.writeCaller(dir, "byte_loop_caller.c");
    String object = Toolchains.llcKernel(clang, dir, "", "obj");
    for (String exe : Toolchains.gccAndClangCallers(clang, dir, "caller.c", List.of("-std=c11", "-Werror", "-DW=" + w), List.of(object))) {
      ProcessResult r = clang.run(List.of(dir.resolve(exe).toString()), dir);
      String out = r.stdoutText();
      assertEquals(0, r.exitCode(), exe + " W=" + w + ": elements differ from the scalar functions (exit " + r.exitCode()
          + "; 139 is a fault: a read past the page the scalar function reads in):\n" + out + r.stderr());
      assertTrue(out.contains("W=" + w + ": " + 2 * 2 * (4 * w + 2 + 3) + " driver calls checked, 0 differences"), out);
    }
  }
}
