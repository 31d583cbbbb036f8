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
 * The refill interleave count that the per-CPU latency table changes (issue 16, eighteenth round), from C: the byte loops
 * of {@code driver/byte_loop_kernels.c} (an FNV-1a tokenizer, whose recurrence is an xor and a 32-bit multiply, and
 * Bernstein's hash, a multiply by 33 = a shift and an add), compiled by the bundled clang at plain {@code -O2} for no
 * CPU (generic x86-64 attributes) and packetized for a CPU named in the options only: on Intel CPUs the tokenizer's refill
 * body takes two chains at W8 (vpmulld 10 cycles; at W16 its throughput matches the recurrence, one), Bernstein's hash stays at one (its multiply is not a vpmulld); on znver4 both
 * take one. Emitted by the bundled {@code llc} for that CPU and called from {@code driver/byte_loop_caller.c} (its own
 * translation unit, the generated header only) built by GCC and by clang: every element of every n from 0 to 4W+1 and of
 * three large n, random and coherent, compared with the scalar functions, every array before a PROT_NONE page.
 */
class IntelInterleaveCallerTest {
  @TempDir Path dir;

  @ParameterizedTest(name = "W={0} cpu={1}")
  @CsvSource({"8, sapphirerapids, 2", "16, sapphirerapids, 1", "8, skylake-avx512, 2", "8, haswell, 2", "8, znver4, 1"})
  void theRefillInterleaveCountOfTheCpuMatchesTheScalarFunctionsFromC(int w, String cpu, int tokenIc) throws Exception {
    boolean avx512 = !cpu.equals("haswell");
    Assumptions.assumeTrue(avx512 ? Toolchains.hostHas("avx512f") && Toolchains.hostHas("avx512vl") : Toolchains.hostHas("avx2"),
        "SKIPPED (LOUD): the host has no " + (avx512 ? "AVX-512" : "AVX2") + "; the " + cpu + " drivers were not run from C");
    Toolchains.requireGcc("IntelInterleaveCallerTest");
    BundledClang clang = BundledClang.locate();
    Files.writeString(dir.resolve("byte_loop_kernels.c"), ArrayDriverCallerTest.resource("byte_loop_kernels.c"));
    clang.compileToBitcode(dir, Path.of("byte_loop_kernels.c"), Path.of("kernels.bc"), List.of("-O2"));
    String[][] kernels = {{"token_hash", "uvv", String.valueOf(tokenIc)}, {"zhash", "v", "1"}};
    List<PacketizationResult.DriverInfo> drivers = new ArrayList<>();
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.load(dir.resolve("kernels.bc"))) {
      for (String[] k : kernels) {
        assertEquals("x86-64", m.function(k[0]).orElseThrow().stringAttribute("target-cpu").orElse(""), "generic bitcode");
        List<String> remarks = new ArrayList<>();
        drivers.add(new Packetizer(PacketizerOptions.builder().width(w).params(k[1]).verifyEachPhase(true).targetCpu(cpu)
            .arrayDriver("*_refill").refill(Refill.ON).remarks(x -> remarks.add(x.message())).build()).run(m, k[0], k[0] + "_simd" + w)
            .driver().orElseThrow());
        String ic = remarks.stream().filter(x -> x.contains("interleave count") && x.contains("recurrence latency")).findFirst()
            .orElseThrow(() -> new AssertionError(k[0] + ": " + remarks));
        assertTrue(ic.contains("interleave count " + k[2] + " (" + Integer.parseInt(k[2]) * w + " elements per step"), k[0] + ": " + ic);
        assertTrue(ic.contains("of " + (avx512 ? 32 : 16) + " vector registers"), k[0] + ": " + ic);
      }
      // what the command's --target-cpu does (and a library user compiling for that CPU): the module's functions are
      // compiled for it (llc's -mcpu does not override a function's target-cpu attribute)
      for (org.packetizer.core.ir.Function f : m.functions()) {
        if (!f.isDeclaration()) f.setStringAttribute("target-cpu", cpu);
      }
      m.write(dir.resolve("kernel.packet.bc"));
    }
    if (cpu.equals("znver4")) {
      Assumptions.assumeTrue(Toolchains.hostHas("avx512_vbmi2") && Toolchains.hostHas("avx512_bitalg") && Toolchains.hostHas("gfni"),
          "SKIPPED (LOUD): the host lacks znver4's AVX-512 extensions; the znver4 drivers (IC checked above) were not run from C");
    }
    Files.writeString(dir.resolve("drivers.h"), ArrayDriver.header(drivers, "drivers.h", null));
    ArrayDriverCallerTest.writeCaller(dir, "byte_loop_caller.c");
    ProcessResult llc = clang.run(List.of("llc", "-O2", "-mcpu=" + cpu, "-filetype=obj", "-relocation-model=pic",
        dir.resolve("kernel.packet.bc").toString(), "-o", dir.resolve("kernel.o").toString()), dir);
    assertEquals(0, llc.exitCode(), llc.stderr());
    for (String exe : Toolchains.gccAndClangCallers(clang, dir, "caller.c", List.of("-std=c11", "-Werror", "-DW=" + w), List.of("kernel.o"))) {
      ProcessResult r = clang.run(List.of(dir.resolve(exe).toString()), dir);
      String out = r.stdoutText();
      assertEquals(0, r.exitCode(), exe + " W=" + w + " " + cpu + ": elements differ from the scalar functions (exit " + r.exitCode()
          + "; 139 is a fault):\n" + out + r.stderr());
      assertTrue(out.contains("W=" + w + ": " + 2 * 2 * (4 * w + 2 + 3) + " driver calls checked, 0 differences"), out);
    }
  }
}
