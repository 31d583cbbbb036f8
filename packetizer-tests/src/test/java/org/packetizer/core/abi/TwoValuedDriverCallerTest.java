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
 * The dynamic variants' two-valued variant through array drivers (issue 16, seventeenth round): two
 * height-map kernels over a magnified texture ({@code driver/heightmap_kernels.c}: five texels at
 * constant offsets from {@code img + (int)v*64 + (int)u}) compiled by the bundled clang at plain
 * {@code -O1} / {@code -O2}, packetized with array drivers ({@code uvv}), emitted by the bundled
 * {@code llc} and called from a C program in its own translation unit ({@code driver/heightmap_caller.c})
 * compiled by the bundled clang and by GCC: pixel rows magnified so that packets hold one texel, straddle
 * two or hold three or more, two texels alternating or in blocks, random texels; every n from 0 to 3W+1
 * (the masked tail) and long rows; every element compared bit for bit with the scalar function; the
 * texture and the inputs end at a PROT_NONE page. The knob {@code -Dpacketizer.dynamicVariants.twoValued}:
 * {@code auto} (AVX-512: on), {@code true} at W8 on AVX2 (the pointers' test, and with
 * {@code offsets=true} the offsets'), {@code false} (the variant absent, the remark says so).
 */
class TwoValuedDriverCallerTest {
  @TempDir Path dir;

  @ParameterizedTest(name = "W={0} {1} {2} twoValued={3} offsets={4}")
  @CsvSource({"8, haswell, -O2, true, auto", "8, haswell, -O1, true, true", "16, skylake-avx512, -O2, auto, auto",
      "16, znver4, -O1, auto, auto", "16, skylake-avx512, -O2, false, auto"})
  void separatelyCompiledCallersMatchTheScalarFunction(int w, String cpu, String opt, String two, String offsets) throws Exception {
    boolean avx512 = cpu.contains("avx512") || cpu.equals("znver4");
    if (avx512) Assumptions.assumeTrue(AosDriverCallerTest.hostHas("+avx512f"), "SKIPPED (LOUD): the host has no AVX-512; the AVX-512 drivers did not run");
    else Assumptions.assumeTrue(AosDriverCallerTest.hostHas("+avx2"), "SKIPPED (LOUD): the host has no AVX2; the AVX2 drivers did not run");
    List<String> remarks = new ArrayList<>();
    List<String> outputs = runDrivers(dir, w, cpu, opt, "heightmap_kernels.c", "heightmap_caller.c", List.of("hlight", "hshade"),
        new String[] {"packetizer.dynamicVariants.twoValued", two, "packetizer.dynamicVariants.offsets", offsets}, remarks);
    // the variant is there (both kernels' groups of five loads, in the packet function and its masked twin), or not
    long withTwo = remarks.stream().filter(x -> x.contains("dynamic variants for the 5 loads") && x.contains("two values (each active lane")).count();
    long groups = remarks.stream().filter(x -> x.contains("dynamic variants for the 5 loads")).count();
    assertTrue(groups >= 2, () -> String.join("\n", remarks));
    assertEquals(two.equals("false") ? 0 : groups, withTwo, () -> String.join("\n", remarks));
    for (String out : outputs) assertTrue(out.contains("W=" + w + ": " + 7 * 3 * 2 * (3 * w + 3) + " driver calls checked, 0 differences"), out);
  }

  /**
   * Compiles the kernels resource {@code kernels} (driver/) by the bundled clang at {@code opt}, packetizes each of
   * {@code fns} with an array driver ({@code uvv}) at width w for cpu under the knobs ({@code knobs}: property, value
   * pairs, restored afterwards), emits it by llc, links the caller resource (driver/, {@code -DW=w}) by the bundled clang
   * and by GCC (where installed; a loud skip otherwise), runs each and returns their standard outputs (each exited 0:
   * no element differed from the scalar function, no fault). The packetizer's remarks go to {@code remarks}.
   */
  static List<String> runDrivers(Path dir, int w, String cpu, String opt, String kernels, String caller, List<String> fns, String[] knobs,
      List<String> remarks) throws Exception {
    BundledClang clang = BundledClang.locate();
    Files.writeString(dir.resolve(kernels), ArrayDriverCallerTest.resource(kernels));
    clang.compileToBitcode(dir, Path.of(kernels), Path.of("kernels.bc"), List.of(opt));
    List<PacketizationResult.DriverInfo> drivers = new ArrayList<>();
    String[] before = new String[knobs.length / 2];
    for (int i = 0; i < before.length; i++) {
      before[i] = System.getProperty(knobs[2 * i]);
      System.setProperty(knobs[2 * i], knobs[2 * i + 1]);
    }
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.load(dir.resolve("kernels.bc"))) {
      for (String fn : fns) {
        PacketizationResult r = new Packetizer(PacketizerOptions.builder().width(w).params("uvv").verifyEachPhase(true).targetCpu(cpu)
            .arrayDriver(true).remarks(x -> remarks.add(x.message())).build()).run(m, fn, fn + "_simd" + w);
        drivers.add(r.driver().orElseThrow());
      }
      m.write(dir.resolve("kernels.packet.bc"));
    } finally {
      for (int i = 0; i < before.length; i++) {
        if (before[i] == null) System.clearProperty(knobs[2 * i]);
        else System.setProperty(knobs[2 * i], before[i]);
      }
    }
    Files.writeString(dir.resolve("drivers.h"), ArrayDriver.header(drivers, "drivers.h", null));
    ProcessResult llc = clang.run(List.of("llc", "-O2", "-mcpu=" + cpu, "-filetype=obj", "-relocation-model=pic",
        dir.resolve("kernels.packet.bc").toString(), "-o", dir.resolve("kernels.o").toString()), dir);
    assertEquals(0, llc.exitCode(), llc.stderr());
    ArrayDriverCallerTest.writeCaller(dir, caller);
    clang.linkExecutable(List.of(dir.resolve("caller.c"), dir.resolve("kernels.o")), dir.resolve("caller.clang"),
        List.of("-O1", "-std=c11", "-DW=" + w, "-Wall", "-Werror", "-lm"));
    List<String> executables = new ArrayList<>(List.of("caller.clang"));
    if (Toolchains.gccCaller(caller)) {
      ProcessResult gcc = clang.run(List.of(Toolchains.gcc().get(), "-O2", "-std=c11", "-Wall", "-Werror", "-DW=" + w,
          "caller.c", "kernels.o", "-lm", "-o", "caller.gcc"), dir);
      assertEquals(0, gcc.exitCode(), gcc.stderr());
      executables.add("caller.gcc");
    }
    List<String> outputs = new ArrayList<>();
    for (String exe : executables) {
      ProcessResult r = clang.run(List.of(dir.resolve(exe).toString()), dir);
      String out = r.stdoutText();
      assertEquals(0, r.exitCode(), exe + " W=" + w + " " + cpu + ": elements differ from the scalar function (exit " + r.exitCode()
          + "; 139 is a fault: an access past the texture or an input):\n" + out + r.stderr());
      outputs.add(out);
    }
    return outputs;
  }
}
