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
import org.packetizer.core.api.PacketizerOptions;
import org.packetizer.core.api.Refill;
import org.packetizer.core.driver.ArrayDriver;
import org.packetizer.core.driver.RefillDriver;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.toolchain.BundledClang;
import org.packetizer.core.toolchain.Manifest;
import org.packetizer.core.toolchain.ProcessResult;

/**
 * The foreign path of the {@code --refill=auto} driver's decisions on a scripted clock (issue 17, seventeenth round): the
 * bundled mandelbrot, retargeted to AVX-512 (paired trials) or AVX2 (the trial of three chunks), W 8 and 16, gets an
 * adaptive driver with epochs of 160 packets built with {@code -Dpacketizer.refill.autoClockScript=2} (no cycle counter:
 * the costs come from {@code mandelbrot_auto.clock}, {@link RefillDriver#adaptiveClockScript}), emitted to an object by the
 * bundled {@code llc} and linked with {@code driver/auto_refill_script_caller.c} (its own translation unit, the generated
 * header only) compiled by the bundled clang and by GCC. The caller writes the script, checks every element of every call
 * against the scalar function (arrays ending at PROT_NONE pages, guard bytes before the output) and reads the decisions
 * from the state: after a disturbed first trial the driver is on refill within 3 epochs (the confirming trial,
 * {@link RefillDriver#adaptiveConfirmFirst}); where the plain body really wins, the levels after the trials are 0,
 * {@link RefillDriver#PLAIN_LEAP} and twice that. No timing of the host is asserted.
 */
class AutoRefillScriptCallerTest {
  @TempDir Path dir;

  @ParameterizedTest(name = "W={0} target={1}")
  @CsvSource({"8,avx512", "16,avx512", "8,haswell", "16,haswell"})
  void separatelyCompiledCallersScriptTheClock(int w, String target) throws Exception {
    boolean avx512 = target.equals("avx512");
    Assumptions.assumeTrue(avx512 ? Toolchains.hostHas("avx512f") && Toolchains.hostHas("avx512vl") : Toolchains.hostHas("avx2"),
        "SKIPPED (LOUD): the host has no " + (avx512 ? "AVX-512" : "AVX2") + "; the scripted --refill=auto driver was not run from C");
    BundledClang clang = BundledClang.locate();
    Manifest mf = Manifest.load();
    Manifest.Entry e = mf.require("mandelbrot");
    List<String> remarks = new ArrayList<>();
    String header;
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.load(mf.bitcode(e), e.bitcode())) {
      m.function("mandelbrot").orElseThrow().setStringAttribute("target-cpu", avx512 ? "skylake-avx512" : "haswell");
      m.function("mandelbrot").orElseThrow().setStringAttribute("target-features", avx512
          ? "+avx512f,+avx512vl,+avx512bw,+avx512dq,+avx2,+avx,+fma,+sse4.2" : "+avx2,+avx,+fma,+sse4.2,+popcnt,+bmi,+bmi2");
      System.setProperty("packetizer.refill.autoEpoch", "160");
      System.setProperty("packetizer.refill.autoClockScript", "2");
      try {
        header = ArrayDriver.header(List.of(new Packetizer(PacketizerOptions.builder().width(w).params("vvu").verifyEachPhase(true)
            .arrayDriver("*_auto").refill(Refill.AUTO).remarks(x -> remarks.add(x.message())).build())
            .run(m, "mandelbrot", "mandelbrot_simd" + w).driver().orElseThrow()), "drivers.h", null);
      } finally {
        System.clearProperty("packetizer.refill.autoEpoch");
        System.clearProperty("packetizer.refill.autoClockScript");
      }
      assertTrue(m.global("mandelbrot_auto" + RefillDriver.CLOCK_SUFFIX).isPresent(), "the script's global");
      m.write(dir.resolve("mandelbrot.packet.bc"));
    }
    assertTrue(remarks.stream().anyMatch(x -> x.contains("--refill=auto: the driver runs epochs of 160·W")
        && x.contains(avx512 ? "a paired trial" : "a trial of three timed chunks")
        && x.contains("a fresh state's first trial that keeps the plain body is confirmed by a second one")), remarks.toString());
    Files.writeString(dir.resolve("drivers.h"), header);
    ArrayDriverCallerTest.writeCaller(dir, "auto_refill_script_caller.c");
    ProcessResult llc = clang.run(List.of("llc", "-O2", "-filetype=obj", "-relocation-model=pic",
        dir.resolve("mandelbrot.packet.bc").toString(), "-o", dir.resolve("mandelbrot.o").toString()), dir);
    assertEquals(0, llc.exitCode(), llc.stderr());
    List<String> defs = List.of("-DW=" + w, "-DE=" + 160 * w, "-DLEAP=" + RefillDriver.PLAIN_LEAP,
        "-DMAXLEVEL=" + RefillDriver.ADAPTIVE_MAX_LEVEL);
    List<String> flags = new ArrayList<>(List.of("-O1", "-std=c11", "-Wall", "-Werror"));
    flags.addAll(defs);
    clang.linkExecutable(List.of(dir.resolve("caller.c"), dir.resolve("mandelbrot.o")), dir.resolve("caller.clang"), flags);
    List<String> executables = new ArrayList<>(List.of("caller.clang"));
    if (Toolchains.gcc().isPresent()) {
      List<String> cmd = new ArrayList<>(List.of(Toolchains.gcc().get(), "-O2", "-std=c11", "-Wall", "-Werror"));
      cmd.addAll(defs);
      cmd.addAll(List.of("caller.c", "mandelbrot.o", "-o", "caller.gcc"));
      ProcessResult gcc = clang.run(cmd, dir);
      assertEquals(0, gcc.exitCode(), gcc.stderr());
      executables.add("caller.gcc");
    } else {
      System.err.println("SKIPPED (LOUD): gcc is not installed; the GCC-compiled caller of AutoRefillScriptCallerTest did not run"
          + " (bin/install-test-deps.sh installs it)");
    }
    for (String exe : executables) {
      ProcessResult r = clang.run(List.of(dir.resolve(exe).toString()), dir);
      String out = r.stdoutText();
      System.out.println("AutoRefillScriptCallerTest " + exe + " W=" + w + " " + target + ":\n" + out);
      assertEquals(0, r.exitCode(), exe + " W=" + w + ": elements differ from the scalar function or the decisions are wrong (exit "
          + r.exitCode() + "; 139 is a fault: an access outside the arrays):\n" + out + r.stderr());
      assertTrue(out.contains("W=" + w + " E=" + 160 * w + ": ") && out.contains("driver calls checked, 0 differences"), out);
      assertTrue(out.contains("stuck on plain: refill from element ") && out.contains("plain wins: refill from element -1"), out);
    }
  }
}
