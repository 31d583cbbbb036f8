package org.packetizer.core.abi;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
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
import org.packetizer.core.jit.Jit;
import org.packetizer.core.toolchain.BundledClang;
import org.packetizer.core.toolchain.ProcessResult;

/**
 * Array drivers over arrays of structs (issues 16/17, sixteenth round): kernels reading several fields
 * of one struct per element ({@code driver/aos_kernels.c}: a 56-byte struct read in twelve fields plus
 * two under branches, a 24-byte struct read and written whole, 32 bytes of floats, 20 bytes of ints)
 * compiled by the bundled clang with plain {@code -O2} (the SLP vectorizer on), packetized with linear
 * struct pointers ({@code lN}) and array drivers for the CPU, emitted by the bundled {@code llc} for
 * it, and called from a C program in its own translation unit ({@code driver/aos_caller.c}) compiled by
 * the bundled clang and by GCC. For every n from 0 to 3·IC·W+1 every element and every byte written is
 * compared with the scalar function's, every struct array ends directly at a PROT_NONE page (the full
 * packets' rows and the masked tail must not read past the last struct) and the outputs have guard
 * bytes in front. The test also checks which groups the target's rule loads as rows and transposes
 * ({@code MemoryWidener.rowTranspose}): AVX from a stride of 4 floats, AVX-512 from 7, never at W4.
 */
class AosDriverCallerTest {
  @TempDir Path dir;

  /** Scalar function, parameter letters, stride in 32-bit elements of its struct. */
  static final List<Object[]> KERNELS = List.of(new Object[] {"hit_shade", "l56l12", 14}, new Object[] {"particle_step", "l24uu", 6},
      new Object[] {"sum8", "l32", 8}, new Object[] {"mix5", "l20", 5});

  /** The knob {@code packetizer.memory.rowTranspose}: auto (the rule) or on (rows wherever the group has 4+ columns: W4 too). */
  @ParameterizedTest(name = "W={0} {1} x{2} rows {3}")
  @CsvSource({"4, haswell, 1, auto", "4, haswell, 1, on", "8, haswell, 1, auto", "8, haswell, 2, auto", "16, haswell, 1, auto",
      "16, skylake-avx512, 1, auto", "16, skylake-avx512, 2, auto"})
  void separatelyCompiledCallersMatchTheScalarFunctionForEveryN(int w, String cpu, int ic, String knob) throws Exception {
    String before = System.getProperty(KNOB);
    System.setProperty(KNOB, knob);
    try {
      check(w, cpu, ic, knob.equals("on"));
    } finally {
      if (before == null) System.clearProperty(KNOB);
      else System.setProperty(KNOB, before);
    }
  }

  static final String KNOB = "packetizer.memory.rowTranspose";

  private void check(int w, String cpu, int ic, boolean forced) throws Exception {
    boolean avx512 = cpu.contains("avx512");
    if (avx512) Assumptions.assumeTrue(hostHas("+avx512f"), "SKIPPED (LOUD): the host has no AVX-512; the AVX-512 AoS drivers did not run");
    else Assumptions.assumeTrue(hostHas("+avx2"), "SKIPPED (LOUD): the host has no AVX2; the AVX2 AoS drivers did not run");
    BundledClang clang = BundledClang.locate();
    Files.writeString(dir.resolve("aos_kernels.c"), ArrayDriverCallerTest.resource("aos_kernels.c"));
    clang.compileToBitcode(dir, Path.of("aos_kernels.c"), Path.of("kernels.bc"), List.of("-O2"));
    List<PacketizationResult.DriverInfo> drivers = new ArrayList<>();
    Map<String, Integer> rowGroups = new TreeMap<>();
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.load(dir.resolve("kernels.bc"))) {
      for (Object[] k : KERNELS) {
        String fn = (String) k[0];
        rowGroups.put(fn, 0);
        PacketizationResult r = new Packetizer(PacketizerOptions.builder().width(w).params((String) k[1]).verifyEachPhase(true)
            .targetCpu(cpu).arrayDriver(true).interleave(ic)
            .remarks(x -> { if (x.message().contains("became rows of 4 elements per lane")) rowGroups.merge(fn, 1, Integer::sum); })
            .build()).run(m, fn, fn + "_simd" + w);
        drivers.add(r.driver().orElseThrow());
      }
      m.write(dir.resolve("kernels.packet.bc"));
    }
    // the rule: x86 AVX at W8/16/32 from a stride of 4 floats, AVX-512 from 7; the packet function is IC·W wide
    for (Object[] k : KERNELS) {
      int stride = (Integer) k[2];
      boolean rows = forced || w * ic >= 8 && stride >= (avx512 ? 7 : 4);
      String fn = (String) k[0];
      // (the packet function and its masked twin for the tail: the rows only in the unmasked one)
      assertEquals(rows ? 1 : 0, rowGroups.get(fn), () -> fn + " W=" + w + " " + cpu + " x" + ic + ": row groups " + rowGroups);
    }
    Files.writeString(dir.resolve("drivers.h"), ArrayDriver.header(drivers, "drivers.h", null));
    ProcessResult llc = clang.run(List.of("llc", "-O2", "-mcpu=" + cpu, "-filetype=obj", "-relocation-model=pic",
        dir.resolve("kernels.packet.bc").toString(), "-o", dir.resolve("kernels.o").toString()), dir);
    assertEquals(0, llc.exitCode(), llc.stderr());
    ArrayDriverCallerTest.writeCaller(dir, "aos_caller.c");
    int step = ic * w;
    clang.linkExecutable(List.of(dir.resolve("caller.c"), dir.resolve("kernels.o")), dir.resolve("caller.clang"),
        List.of("-O1", "-std=c11", "-DW=" + step, "-Wall", "-Werror"));
    List<String> executables = new ArrayList<>(List.of("caller.clang"));
    if (Toolchains.gccCaller("AosDriverCallerTest")) {
      ProcessResult gcc = clang.run(List.of(Toolchains.gcc().get(), "-O2", "-std=c11", "-Wall", "-Werror", "-DW=" + step,
          "caller.c", "kernels.o", "-o", "caller.gcc"), dir);
      assertEquals(0, gcc.exitCode(), gcc.stderr());
      executables.add("caller.gcc");
    }
    for (String exe : executables) {
      ProcessResult r = clang.run(List.of(dir.resolve(exe).toString()), dir);
      String out = r.stdoutText();
      assertEquals(0, r.exitCode(), exe + " W=" + w + " " + cpu + " x" + ic + ": elements differ from the scalar function (exit " + r.exitCode()
          + "; 139 is a fault: an access past the last struct):\n" + out + r.stderr());
      assertTrue(out.contains("W=" + step + ": " + (3 * step + 2) * KERNELS.size() + " driver calls checked, 0 differences"), out);
    }
  }

  static boolean hostHas(String feature) {
    try (Jit jit = Jit.host()) {
      return jit.features().contains(feature);
    }
  }
}
