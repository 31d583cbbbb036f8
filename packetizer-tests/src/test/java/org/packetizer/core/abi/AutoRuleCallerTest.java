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
import org.packetizer.core.driver.RefillDriver;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.toolchain.BundledClang;
import org.packetizer.core.toolchain.ProcessResult;

/**
 * The foreign path of the {@code --refill=auto} rule that weighs the divergent loop by an estimated trip count
 * ({@link RefillDriver#AUTO_TRIP_ESTIMATE}; issue 17, seventeenth round): {@code driver/auto_rule_kernels.c}, compiled by
 * the bundled clang at plain {@code -O2} for AVX-512 or AVX2, holds two kernels whose while loop (a data-dependent trip
 * count: a byte range's length, Newton steps until the step is small) is 22 % and 31 % of the instructions — refused by
 * the sixteenth round's static rule ({@code autoTripEstimate=1}, checked here on the same bitcode) and given the adaptive
 * driver by the weighted one. The drivers, with short epochs so that the larger inputs run many paired trials (both
 * bodies on the same elements), are emitted to an object by the bundled {@code llc} and linked with {@code
 * driver/auto_rule_caller.c} (its own translation unit, the generated header only) compiled by the bundled clang and by
 * GCC; it compares every element of every n from 0 to 4W+1 and of several n across epochs with the scalar function, on
 * random and coherent inputs, every array (the byte table too) before a PROT_NONE page, guard bytes before each output.
 */
class AutoRuleCallerTest {
  @TempDir Path dir;

  static final int EPOCH = 160;

  @ParameterizedTest(name = "W={0} target={1}")
  @CsvSource({"8,avx512", "16,avx512", "8,haswell", "16,haswell"})
  void shortLoopsGetTheAdaptiveDriverAndMatchTheScalarFunctionFromC(int w, String target) throws Exception {
    boolean avx512 = target.equals("avx512");
    Assumptions.assumeTrue(avx512 ? Toolchains.hostHas("avx512f") && Toolchains.hostHas("avx512vl") : Toolchains.hostHas("avx2"),
        "SKIPPED (LOUD): the host has no " + (avx512 ? "AVX-512" : "AVX2") + "; the weighted --refill=auto rule was not run from C");
    BundledClang clang = BundledClang.locate();
    Files.writeString(dir.resolve("auto_rule_kernels.c"), ArrayDriverCallerTest.resource("auto_rule_kernels.c"));
    clang.compileToBitcode(dir, Path.of("auto_rule_kernels.c"), Path.of("kernels.bc"),
        List.of("-O2", avx512 ? "-march=skylake-avx512" : "-march=haswell"));
    String[][] kernels = {{"tail_hash", "uvvu"}, {"newton_poly", "vv"}};
    // the sixteenth round's rule (the static share alone) refuses both loops
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.load(dir.resolve("kernels.bc"))) {
      System.setProperty("packetizer.refill.autoTripEstimate", "1");
      try {
        for (String[] k : kernels) {
          List<String> remarks = new ArrayList<>();
          new Packetizer(PacketizerOptions.builder().width(w).params(k[1]).arrayDriver("*_auto").refill(Refill.AUTO)
              .remarks(x -> remarks.add(x.message())).build()).run(m, k[0], k[0] + "_simd" + w);
          assertTrue(remarks.stream().anyMatch(x -> x.startsWith("lane refill not chosen (--refill=auto)")
              && x.contains("trip count differs between lanes") && x.contains("at least 50% of the instructions, on a target")),
              k[0] + ": " + remarks);
        }
      } finally {
        System.clearProperty("packetizer.refill.autoTripEstimate");
      }
    }
    List<PacketizationResult.DriverInfo> drivers = new ArrayList<>();
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.load(dir.resolve("kernels.bc"))) {
      System.setProperty("packetizer.refill.autoEpoch", String.valueOf(EPOCH));
      try {
        for (String[] k : kernels) {
          List<String> remarks = new ArrayList<>();
          drivers.add(new Packetizer(PacketizerOptions.builder().width(w).params(k[1]).verifyEachPhase(true).arrayDriver("*_auto")
              .refill(Refill.AUTO).remarks(x -> remarks.add(x.message())).build()).run(m, k[0], k[0] + "_simd" + w).driver().orElseThrow());
          assertTrue(remarks.stream().anyMatch(x -> x.startsWith("lane refill (--refill=auto) at the loop")
              && x.contains("% weighted by an estimated " + RefillDriver.AUTO_TRIP_ESTIMATE + " iterations)")), k[0] + ": " + remarks);
          assertTrue(remarks.stream().anyMatch(x -> x.contains("--refill=auto: the driver runs epochs of " + EPOCH + "·W")
              && x.contains(avx512 ? "a paired trial" : "a trial of three timed chunks")), k[0] + ": " + remarks);
        }
      } finally {
        System.clearProperty("packetizer.refill.autoEpoch");
      }
      m.write(dir.resolve("kernels.packet.bc"));
    }
    Files.writeString(dir.resolve("drivers.h"), ArrayDriver.header(drivers, "drivers.h", null));
    ArrayDriverCallerTest.writeCaller(dir, "auto_rule_caller.c");
    ProcessResult llc = clang.run(List.of("llc", "-O2", "-filetype=obj", "-relocation-model=pic",
        dir.resolve("kernels.packet.bc").toString(), "-o", dir.resolve("kernels.o").toString()), dir);
    assertEquals(0, llc.exitCode(), llc.stderr());
    List<String> defs = List.of("-DW=" + w, "-DE=" + EPOCH * w);
    List<String> flags = new ArrayList<>(List.of("-O1", "-std=c11", "-Wall", "-Werror"));
    flags.addAll(defs);
    clang.linkExecutable(List.of(dir.resolve("caller.c"), dir.resolve("kernels.o")), dir.resolve("caller.clang"), flags);
    List<String> executables = new ArrayList<>(List.of("caller.clang"));
    if (Toolchains.gccCaller("AutoRuleCallerTest")) {
      List<String> cmd = new ArrayList<>(List.of(Toolchains.gcc().get(), "-O2", "-std=c11", "-Wall", "-Werror"));
      cmd.addAll(defs);
      cmd.addAll(List.of("caller.c", "kernels.o", "-o", "caller.gcc"));
      ProcessResult gcc = clang.run(cmd, dir);
      assertEquals(0, gcc.exitCode(), gcc.stderr());
      executables.add("caller.gcc");
    }
    for (String exe : executables) {
      ProcessResult r = clang.run(List.of(dir.resolve(exe).toString()), dir);
      String out = r.stdoutText();
      assertEquals(0, r.exitCode(), exe + " W=" + w + ": elements differ from the scalar function (exit " + r.exitCode()
          + "; 139 is a fault: an access outside the arrays):\n" + out + r.stderr());
      assertTrue(out.contains("W=" + w + " E=" + EPOCH * w + ": ") && out.contains("driver calls checked, 0 differences"), out);
    }
  }
}
