package org.packetizer.core.abi;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
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
 * The foreign path of the {@code --refill=auto} driver's back-off and its state between calls (issue 17): the bundled
 * mandelbrot, retargeted to AVX-512 or AVX2, gets an adaptive driver with the default trial (8, 128 and 8 packets
 * timed) and short epochs (160 packets), emitted to an object by the bundled {@code llc} and linked with {@code
 * driver/auto_refill_caller.c} (its own translation unit, the generated header only) compiled by the bundled clang and
 * by GCC. The caller checks every element of every call against the scalar function (n from 0 to 3W+1 and across
 * epochs, PROT_NONE pages after the arrays, guard bytes before the output) and reads the driver's decisions from its
 * state ({@code mandelbrot_auto.state}): the trials back off over many calls on random points, and an input that turns
 * random (from a fresh state or from "plain, fully backed off") ends with the refill body; mandelbrot writes no memory, so
 * a trial runs both bodies on the same elements (one trial decided in exactly 128·W elements), and a trial in which neither
 * body is cheaper by more than 1/32 settles on the plain one (sums preset in the state), and a trial that keeps the plain
 * body with refill dearer by more than 1/8 grows the back-off by {@link RefillDriver#PLAIN_LEAP} levels at once.
 */
class AutoRefillCallerTest {
  @TempDir Path dir;

  @ParameterizedTest(name = "W={0} target={1}")
  @CsvSource({"8,avx512", "16,avx512", "8,haswell", "16,haswell"})
  void separatelyCompiledCallersSeeTheBackOff(int w, String target) throws Exception {
    boolean avx512 = target.equals("avx512");
    Assumptions.assumeTrue(avx512 ? Toolchains.hostHas("avx512f") && Toolchains.hostHas("avx512vl") : Toolchains.hostHas("avx2"),
        "SKIPPED (LOUD): the host has no " + (avx512 ? "AVX-512" : "AVX2") + "; the --refill=auto driver's back-off was not run from C");
    BundledClang clang = BundledClang.locate();
    List<String> remarks = mandelbrotAutoDriver(dir, clang, w, avx512, Map.of(), m -> {});
    assertTrue(remarks.stream().anyMatch(x -> x.contains("--refill=auto: the driver runs epochs of 160·W")
        && x.contains("exponential back-off")), remarks.toString());
    // paired trials on AVX-512 (the AVX2 driver keeps the trial of three chunks; the caller's paired cases are left out)
    assertTrue(remarks.stream().anyMatch(x -> x.contains(avx512 ? "a paired trial: " + RefillDriver.ADAPTIVE_REFILL_PACKETS
        + "·W elements run by both bodies" : "a trial of three timed chunks")), remarks.toString());
    ArrayDriverCallerTest.writeCaller(dir, "auto_refill_caller.c");
    runCallers(dir, clang, w, List.of("-DW=" + w, "-DE=" + 160 * w, "-DT=" + RefillDriver.ADAPTIVE_REFILL_PACKETS * w,
        "-DSTATE_WORDS=" + RefillDriver.STATE_FIELDS,
        "-DPAIRED=" + (avx512 ? 1 : 0), "-DPLAIN_LEAP=" + RefillDriver.PLAIN_LEAP), "AutoRefillCallerTest");
  }

  /**
   * The bundled mandelbrot retargeted to AVX-512 ({@code avx512}) or AVX2, packetized at {@code w} with a {@code --refill=auto}
   * driver ({@code mandelbrot_auto}) and epochs of 160 packets under the system properties {@code knobs} (cleared after);
   * {@code check} sees the module before it is written; the header to {@code dir/drivers.h}, the module through the bundled
   * {@code llc} to {@code dir/mandelbrot.o}. Returns the remarks.
   */
  static List<String> mandelbrotAutoDriver(Path dir, BundledClang clang, int w, boolean avx512, Map<String, String> knobs,
      Consumer<LlvmModule> check) throws Exception {
    Manifest mf = Manifest.load();
    Manifest.Entry e = mf.require("mandelbrot");
    List<String> remarks = new ArrayList<>();
    String header;
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.load(mf.bitcode(e), e.bitcode())) {
      m.function("mandelbrot").orElseThrow().setStringAttribute("target-cpu", avx512 ? "skylake-avx512" : "haswell");
      m.function("mandelbrot").orElseThrow().setStringAttribute("target-features", avx512
          ? "+avx512f,+avx512vl,+avx512bw,+avx512dq,+avx2,+avx,+fma,+sse4.2" : "+avx2,+avx,+fma,+sse4.2,+popcnt,+bmi,+bmi2");
      System.setProperty("packetizer.refill.autoEpoch", "160");
      knobs.forEach(System::setProperty);
      try {
        header = ArrayDriver.header(List.of(new Packetizer(PacketizerOptions.builder().width(w).params("vvu").verifyEachPhase(true)
            .arrayDriver("*_auto").refill(Refill.AUTO).remarks(x -> remarks.add(x.message())).build())
            .run(m, "mandelbrot", "mandelbrot_simd" + w).driver().orElseThrow()), "drivers.h", null);
      } finally {
        System.clearProperty("packetizer.refill.autoEpoch");
        knobs.keySet().forEach(System::clearProperty);
      }
      check.accept(m);
      m.write(dir.resolve("mandelbrot.packet.bc"));
    }
    Files.writeString(dir.resolve("drivers.h"), header);
    ProcessResult llc = clang.run(List.of("llc", "-O2", "-filetype=obj", "-relocation-model=pic",
        dir.resolve("mandelbrot.packet.bc").toString(), "-o", dir.resolve("mandelbrot.o").toString()), dir);
    assertEquals(0, llc.exitCode(), llc.stderr());
    return remarks;
  }

  /**
   * {@code dir/caller.c} with {@code dir/mandelbrot.o}, compiled by the bundled clang ({@code -O1}) and by GCC ({@code -O2};
   * loudly skipped where GCC is missing), both {@code -std=c11 -Wall -Werror} and {@code defs}; each run must exit 0 and
   * report every element of every call equal to the scalar function. Returns each executable's output.
   */
  static List<String> runCallers(Path dir, BundledClang clang, int w, List<String> defs, String test) {
    List<String> flags = new ArrayList<>(List.of("-O1", "-std=c11", "-Wall", "-Werror"));
    flags.addAll(defs);
    clang.linkExecutable(List.of(dir.resolve("caller.c"), dir.resolve("mandelbrot.o")), dir.resolve("caller.clang"), flags);
    List<String> executables = new ArrayList<>(List.of("caller.clang"));
    if (Toolchains.gccCaller(test)) {
      List<String> cmd = new ArrayList<>(List.of(Toolchains.gcc().get(), "-O2", "-std=c11", "-Wall", "-Werror"));
      cmd.addAll(defs);
      cmd.addAll(List.of("caller.c", "mandelbrot.o", "-o", "caller.gcc"));
      ProcessResult gcc = clang.run(cmd, dir);
      assertEquals(0, gcc.exitCode(), gcc.stderr());
      executables.add("caller.gcc");
    }
    List<String> outs = new ArrayList<>();
    for (String exe : executables) {
      ProcessResult r = clang.run(List.of(dir.resolve(exe).toString()), dir);
      String out = r.stdoutText();
      System.out.println(test + " " + exe + " W=" + w + ":\n" + out);
      assertEquals(0, r.exitCode(), exe + " W=" + w + ": elements differ from the scalar function or the decisions are wrong (exit "
          + r.exitCode() + "; 139 is a fault: an access outside the arrays):\n" + out + r.stderr());
      assertTrue(out.contains("W=" + w + " E=" + 160 * w + ": ") && out.contains("driver calls checked, 0 differences"), out);
      outs.add(out);
    }
    return outs;
  }
}
