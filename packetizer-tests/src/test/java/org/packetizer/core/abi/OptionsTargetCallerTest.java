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
import org.packetizer.core.ir.Function;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.toolchain.BundledClang;
import org.packetizer.core.toolchain.ProcessResult;

/**
 * A CPU named in the API's options only (issue 16, nineteenth round; {@code RunTarget}): {@code
 * driver/options_target_kernels.c} compiled by the bundled clang at plain {@code -O2} for no CPU (generic x86-64
 * attributes) and packetized through the Java API with {@code targetCpu} alone. The functions the run makes (packet
 * functions, array drivers) carry the options' CPU, the user's keep x86-64; the decisions agree with it — the rounded
 * conversions of {@code cell} (one AVX-512 instruction per rounding at 16 lanes, only where the CPU has AVX-512) and the
 * interleave rule's latency table for {@code fnv}'s multiply chain, named in a remark (the CPU's family; for the generic
 * ISA levels LLVM's scheduling model for the name) — and {@code cell}'s {@code llvm.fmuladd} keeps the generic scalar
 * function's rounding (a multiply and an add, not fused for the FMA CPUs). The module is then compiled by the bundled {@code llc} WITHOUT
 * {@code -mcpu} (every function by its own attributes, as a JIT or a later {@code clang -c} does) and the drivers called
 * from {@code driver/options_target_caller.c} (its own translation unit, the generated header only) built by GCC and by
 * clang: every element of every n from 0 to 4W+1 and of two large n, random and coherent, compared with the scalar
 * functions, every array before a PROT_NONE page.
 */
class OptionsTargetCallerTest {
  @TempDir Path dir;

  static final String CONVERSION = "call <16 x i32> @llvm.x86.avx512.mask.cvtps2dq.512(";

  @ParameterizedTest(name = "W={0} cpu={1}")
  @CsvSource({"16, sapphirerapids, 2, Intel from Haswell, 1", "8, sapphirerapids, 0, Intel from Haswell, 2",
      "8, haswell, 0, Intel from Haswell, 2", "8, x86-64-v3, 0, Intel from Haswell, 2",
      "4, x86-64-v2, 0, Sandy Bridge, 2", "8, znver4, 0, generic x86, 1"})
  void theRunsFunctionsCarryTheOptionsCpuAndMatchTheScalarFunctionsFromC(int w, String cpu, int conversions, String family,
      int fnvIc) throws Exception {
    String hostNeeds = cpu.equals("x86-64-v2") ? "sse4_2" : cpu.equals("haswell") || cpu.equals("x86-64-v3") ? "avx2" : "avx512vl";
    Assumptions.assumeTrue(Toolchains.hostHas(hostNeeds), "SKIPPED (LOUD): the host has no " + hostNeeds + "; " + cpu
        + " code was not run from C");
    if (cpu.equals("znver4")) {
      Assumptions.assumeTrue(Toolchains.hostHas("avx512_vbmi2") && Toolchains.hostHas("avx512_bitalg") && Toolchains.hostHas("gfni"),
          "SKIPPED (LOUD): the host lacks znver4's AVX-512 extensions; znver4 code was not run from C");
    }
    Toolchains.requireGcc("OptionsTargetCallerTest");
    BundledClang clang = BundledClang.locate();
    Files.writeString(dir.resolve("options_target_kernels.c"), ArrayDriverCallerTest.resource("options_target_kernels.c"));
    clang.compileToBitcode(dir, Path.of("options_target_kernels.c"), Path.of("kernels.bc"), List.of("-O2"));
    List<PacketizationResult.DriverInfo> drivers = new ArrayList<>();
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.load(dir.resolve("kernels.bc"))) {
      for (String[] k : new String[][] {{"cell", "vv"}, {"fnv", "uvv"}}) {
        Function scalar = m.function(k[0]).orElseThrow();
        assertEquals("x86-64", scalar.stringAttribute("target-cpu").orElse(""), "generic bitcode");
        String features = scalar.stringAttribute("target-features").orElse("");
        List<String> remarks = new ArrayList<>();
        String simd = k[0] + "_simd" + w;
        PacketizationResult r = new Packetizer(PacketizerOptions.builder().width(w).params(k[1]).verifyEachPhase(true)
            .targetCpu(cpu).arrayDriver("*_drv").remarks(x -> remarks.add(x.message())).build()).run(m, k[0], simd);
        PacketizationResult.DriverInfo d = r.driver().orElseThrow();
        drivers.add(d);
        // the run's functions carry the options' CPU; the user's function keeps its own attributes
        for (String made : List.of(simd, d.name())) {
          assertEquals(cpu, m.function(made).orElseThrow().stringAttribute("target-cpu").orElse(""), made);
        }
        assertEquals("x86-64", scalar.stringAttribute("target-cpu").orElse(""), k[0] + " after the run");
        assertEquals(features, scalar.stringAttribute("target-features").orElse(""), k[0] + " after the run");
        String packet = m.function(simd).orElseThrow().print();
        if (k[0].equals("cell")) {
          assertEquals(conversions, packet.split(java.util.regex.Pattern.quote(CONVERSION), -1).length - 1, packet);
          // the scalar function's multiply-add (not fused on its generic target): not fused in the packet either
          assertTrue(m.function(k[0]).orElseThrow().print().contains("@llvm.fmuladd.f32("), "clang's multiply-add");
          // (x86-64-v2 has no FMA either: the fmuladd stays, LLVM does not fuse it there)
          if (cpu.equals("x86-64-v2")) assertTrue(packet.contains("@llvm.fmuladd."), packet);
          else assertFalse(packet.contains("@llvm.fmuladd.") || packet.contains("@llvm.fma."), packet);
        } else {
          String ic = remarks.stream().filter(x -> x.contains("interleave count") && x.contains("recurrence latency")).findFirst()
              .orElseThrow(() -> new AssertionError(k[0] + ": " + remarks));
          assertTrue(ic.contains("interleave count " + fnvIc + " ("), ic);
          String table = "the interleave rule's latency table: " + family;
          assertTrue(remarks.stream().anyMatch(x -> x.startsWith(table) && x.endsWith(", for CPU '" + cpu + "'")),
              table + " ... for CPU '" + cpu + "' in " + remarks);
        }
      }
      m.write(dir.resolve("kernel.packet.bc"));
    }
    Files.writeString(dir.resolve("drivers.h"), ArrayDriver.header(drivers, "drivers.h", null));
    ArrayDriverCallerTest.writeCaller(dir, "options_target_caller.c");
    // no -mcpu: each function is compiled for its own target-cpu / target-features
    ProcessResult llc = clang.run(List.of("llc", "-O2", "-filetype=obj", "-relocation-model=pic",
        dir.resolve("kernel.packet.bc").toString(), "-o", dir.resolve("kernel.o").toString()), dir);
    assertEquals(0, llc.exitCode(), llc.stderr());
    for (String exe : Toolchains.gccAndClangCallers(clang, dir, "caller.c", List.of("-std=c11", "-Werror", "-DW=" + w), List.of("kernel.o"))) {
      ProcessResult run = clang.run(List.of(dir.resolve(exe).toString()), dir);
      String out = run.stdoutText();
      assertEquals(0, run.exitCode(), exe + " W=" + w + " " + cpu + ": elements differ from the scalar functions (exit "
          + run.exitCode() + "; 139 is a fault):\n" + out + run.stderr());
      assertTrue(out.contains("W=" + w + ": " + 2 * 2 * (4 * w + 2 + 2) + " driver calls checked, 0 differences"), out);
    }
  }
}
