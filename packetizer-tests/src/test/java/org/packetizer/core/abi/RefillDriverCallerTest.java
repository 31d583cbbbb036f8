package org.packetizer.core.abi;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.params.provider.CsvSource;
import org.packetizer.core.Packetizer;
import org.packetizer.core.api.PacketizationResult;
import org.packetizer.core.api.PacketizerOptions;
import org.packetizer.core.api.Refill;
import org.packetizer.core.driver.ArrayDriver;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.toolchain.BundledClang;
import org.packetizer.core.toolchain.Manifest;
import org.packetizer.core.toolchain.ProcessResult;

/**
 * The foreign path of lane refill (issue 17 §2): kernels compiled by the bundled clang with plain
 * {@code -O2} ({@code driver/refill_kernels.c}: several exits, nested loops, a loop in a divergent
 * branch, a bool result, a 64-bit loop) and the bundled escape-time kernels (mandelbrot, julia, the
 * sphere tracer with its early return) get refill drivers (and mandelbrot an adaptive
 * {@code --refill=auto} one) at width W, are emitted to objects by the bundled {@code llc} and linked
 * with {@code driver/refill_caller.c} — its own translation unit, including only the generated header
 * — compiled by the bundled clang and by GCC. Every element of every n from 0 to 3W+1 (and two n
 * across the adaptive driver's chunks) is compared with the scalar function, random and coherent
 * inputs, guard bytes in front of every output, a PROT_NONE page after every array.
 */
class RefillDriverCallerTest {
  @TempDir Path dir;

  static final List<String[]> KERNELS = List.of(new String[] {"collatz", "v"}, new String[] {"multi_exit", "vu"}, new String[] {"exit_values", "vu"},
      new String[] {"nested", "vu"}, new String[] {"guarded", "v"}, new String[] {"converges", "v"}, new String[] {"rows", "vu"},
      new String[] {"gcd", "vv"});

  /**
   * {@code ic}: the refill drivers' interleave count (0: the rule's; 2: two independent refill states per
   * step, then n runs from 0 to 3·2W+1); {@code target}: the kernels compiled for AVX-512 (rounds by
   * a register vpexpand, refill blocks), for AVX2 ({@code haswell}: rounds by masked loads and a vpermd
   * from the rank table, refill blocks, branch-free result stores; mandelbrot's adaptive driver for AVX2)
   * or for baseline x86-64 (empty: scalar moves and the batch rule); {@code skylake} and {@code znver2}: AVX2 as
   * haswell, the hot loop's active mask as sign-extended lanes on Intel ({@code haswell}, {@code skylake}) and the i1
   * packet on AMD ({@code znver2}; {@code RefillDriver.wideMask}'s default, which the remarks must name); on Intel (AVX2,
   * and AVX-512 since the twenty-second round) also the results of collatz, mandelbrot and julia kept in their loop
   * counters ({@code RefillDriver.counterResult}'s default, named by the remarks exactly there).
   */
  @ParameterizedTest(name = "W={0} IC={1} target={2}")
  @CsvSource({"4,0,''", "8,0,''", "16,0,''", "4,2,''", "8,2,''", "16,2,''", "8,2,avx512", "16,2,avx512",
      "4,0,haswell", "8,0,haswell", "16,0,haswell", "8,2,haswell", "16,2,haswell", "8,0,skylake", "16,2,skylake", "8,0,znver2",
      "16,2,znver2", "16,4,haswell", "16,0,skylake"})
  void separatelyCompiledCallersMatchTheScalarFunction(int w, int ic, String target) throws Exception {
    callersMatch(w, ic, target);
  }

  /**
   * The 32-bit element indices ({@code RefillDriver.index32}) across chunk boundaries from C: the drivers built with
   * chunks of {@code chunk} elements ({@code packetizer.refill.index32Chunk}), so that the caller's n (0 to 3·IC·W+1,
   * each array before a PROT_NONE page) cross several chunks, each drained and restarted with its results stored
   * relative to its start; AVX-512 (vpexpand rounds), AVX2 (vpermd rounds) and baseline x86-64 (scalar moves).
   */
  @ParameterizedTest(name = "W={0} IC={1} target={2} chunk={3}")
  @CsvSource({"16,2,avx512,7", "8,0,avx512,3", "16,0,haswell,5", "8,2,'',11"})
  void thirtyTwoBitIndicesAcrossChunksFromC(int w, int ic, String target, int chunk) throws Exception {
    System.setProperty("packetizer.refill.index32Chunk", String.valueOf(chunk));
    try {
      callersMatch(w, ic, target);
    } finally {
      System.clearProperty("packetizer.refill.index32Chunk");
    }
  }

  static final String WIDE_MASK = "the lanes' active mask carried through the iterations as sign-extended";
  /** The remark of RefillDriver.counterResult (Intel by default): the result kept in the loop's counter. */
  static final String COUNTER = "the result is the loop's counter as a lane leaves it";

  private void callersMatch(int w, int ic, String target) throws Exception {
    BundledClang clang = BundledClang.locate();
    boolean compact = target.equals("avx512");
    // AVX2 targets (the vpermd rounds): haswell and skylake (Intel: wide masks), znver2 (AMD: the i1 mask)
    boolean haswell = target.equals("haswell") || target.equals("skylake") || target.equals("znver2");
    String cpu = haswell ? target : null;
    Assumptions.assumeTrue(!haswell || Toolchains.hostHas("avx2"), "SKIPPED (LOUD): the host has no AVX2; the AVX2 vpermd"
        + " refill driver was not run from C");
    boolean avx512 = !haswell && Toolchains.hostHas("avx512f") && Toolchains.hostHas("avx512vl");
    if (!avx512 && !haswell) {
      System.err.println("SKIPPED (LOUD): the host has no AVX-512; RefillDriverCallerTest's --refill=auto driver is the plain one"
          + " (the adaptive driver did not run)");
    }
    Assumptions.assumeTrue(!compact || avx512, "SKIPPED (LOUD): the host has no AVX-512; the compacting interleaved refill"
        + " driver was not run from C");
    Files.writeString(dir.resolve("refill_kernels.c"), ArrayDriverCallerTest.resource("refill_kernels.c"));
    clang.compileToBitcode(dir, Path.of("refill_kernels.c"), Path.of("kernels.bc"),
        compact ? List.of("-O2", "-march=skylake-avx512") : haswell ? List.of("-O2", "-march=" + cpu) : List.of("-O2"));
    List<PacketizationResult.DriverInfo> drivers = new ArrayList<>();
    String sets = ic + " independent sets of " + w + " lanes";
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.load(dir.resolve("kernels.bc"))) {
      for (String[] k : KERNELS) {
        List<String> remarks = new ArrayList<>();
        PacketizationResult r = new Packetizer(PacketizerOptions.builder().width(w).params(k[1]).verifyEachPhase(true)
            .arrayDriver(true).refill(Refill.ON).interleave(ic).remarks(x -> remarks.add(x.message())).build())
            .run(m, k[0], k[0] + "_simd" + w);
        assertTrue(remarks.stream().anyMatch(x -> x.startsWith("lane refill (--refill) at")), k[0] + ": " + remarks);
        if (ic > 1) assertTrue(remarks.stream().anyMatch(x -> x.contains(sets)), k[0] + ": " + remarks);
        if (compact) assertTrue(remarks.stream().anyMatch(x -> x.contains("(AVX-512 vpexpand")), k[0] + ": " + remarks);
        if (haswell) {
          assertTrue(remarks.stream().anyMatch(x -> x.contains("a 256-entry table of vpermd indices")
              && x.contains("a refill round every k iterations")), k[0] + ": " + remarks);
        }
        if (haswell || compact) {
          assertEquals(haswell && !cpu.equals("znver2"), remarks.stream().anyMatch(x -> x.contains(WIDE_MASK)), k[0] + ": " + remarks);
          // the result kept in the loop's counter on Intel, AVX2 and (since the twenty-second round) AVX-512: collatz
          // returns its step count
          assertEquals((compact || !cpu.equals("znver2")) && k[0].equals("collatz"), remarks.stream().anyMatch(x -> x.contains(COUNTER)),
              k[0] + ": " + remarks);
        }
        drivers.add(r.driver().orElseThrow());
      }
      m.write(dir.resolve("kernels.packet.bc"));
    }
    Manifest mf = Manifest.load();
    List<String> objects = new ArrayList<>(List.of("kernels"));
    for (String[] k : List.of(new String[] {"mandelbrot", "vvu"}, new String[] {"julia", "vvuuu"},
        new String[] {"march", "vvvvvv"})) {
      Manifest.Entry e = mf.require(k[0]);
      try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.load(mf.bitcode(e), e.bitcode())) {
        if (haswell) {
          m.function(k[0]).orElseThrow().setStringAttribute("target-cpu", cpu);
          m.function(k[0]).orElseThrow().setStringAttribute("target-features", "+avx2,+avx,+fma,+sse4.2,+popcnt,+bmi,+bmi2");
        } else if ((k[0].equals("mandelbrot") && avx512) || compact) {
          // --refill=auto builds its adaptive driver for AVX2 and AVX-512 targets only (the bitcode is for baseline x86-64)
          m.function(k[0]).orElseThrow().setStringAttribute("target-cpu", "skylake-avx512");
          m.function(k[0]).orElseThrow().setStringAttribute("target-features",
              "+avx512f,+avx512vl,+avx512bw,+avx512dq,+avx2,+avx,+fma,+sse4.2");
        }
        List<String> rr = new ArrayList<>();
        drivers.add(new Packetizer(PacketizerOptions.builder().width(w).params(k[1]).verifyEachPhase(true).arrayDriver(true)
            .refill(Refill.ON).interleave(ic).remarks(x -> rr.add(x.message())).build()).run(m, k[0], k[0] + "_simd" + w)
            .driver().orElseThrow());
        if (ic > 1) assertTrue(rr.stream().anyMatch(x -> x.contains(sets)), k[0] + ": " + rr);
        if (haswell) assertEquals(!cpu.equals("znver2"), rr.stream().anyMatch(x -> x.contains(WIDE_MASK)), k[0] + ": " + rr);
        // mandelbrot and julia return their iteration count (the counter), march a distance
        if (haswell || compact) {
          assertEquals((compact || !cpu.equals("znver2")) && !k[0].equals("march"), rr.stream().anyMatch(x -> x.contains(COUNTER)),
              k[0] + ": " + rr);
        }
        if (k[0].equals("mandelbrot")) {
          List<String> remarks = new ArrayList<>();
          // with IC 2: the opt-in occupancy gate (the plain epochs in parts, each ending with the lock-step probe), with
          // epochs of 200 packets, so that the caller's n cross several epochs, parts and probes
          boolean gate = ic == 2;
          if (gate) {
            System.setProperty("packetizer.refill.autoProbe", "true");
            System.setProperty("packetizer.refill.autoEpoch", "200");
          }
          try {
            drivers.add(new Packetizer(PacketizerOptions.builder().width(w).params(k[1]).verifyEachPhase(true).arrayDriver("*_auto")
                .refill(Refill.AUTO).remarks(x -> remarks.add(x.message())).build()).run(m, k[0], k[0] + "_auto_simd" + w)
                .driver().orElseThrow());
          } finally {
            System.clearProperty("packetizer.refill.autoProbe");
            System.clearProperty("packetizer.refill.autoEpoch");
          }
          assertEquals(avx512 || haswell, remarks.stream().anyMatch(x -> x.contains("--refill=auto: the driver runs epochs")),
              remarks.toString());
          assertEquals(gate && (avx512 || haswell), remarks.stream().anyMatch(x -> x.contains("occupancy gate: an epoch of the plain body")),
              remarks.toString());
        }
        m.write(dir.resolve(k[0] + ".packet.bc"));
      }
      objects.add(k[0]);
    }
    String header = ArrayDriver.header(drivers, "drivers.h", null);
    assertFalse(header.contains("__m") || header.contains("vector_size"), "no vector types in the header");
    Files.writeString(dir.resolve("drivers.h"), header);
    List<Path> inputs = new ArrayList<>(List.of(dir.resolve("caller.c")));
    List<String> objectFiles = new ArrayList<>();
    for (String bc : objects) {
      ProcessResult llc = clang.run(List.of("llc", "-O2", "-filetype=obj", "-relocation-model=pic",
          dir.resolve(bc + ".packet.bc").toString(), "-o", dir.resolve(bc + ".o").toString()), dir);
      assertEquals(0, llc.exitCode(), llc.stderr());
      inputs.add(dir.resolve(bc + ".o"));
      objectFiles.add(bc + ".o");
    }
    ArrayDriverCallerTest.writeCaller(dir, "refill_caller.c");
    // the caller's W sets the element counts it checks: n from 0 to 3·W+1, here one driver step (IC·W elements)
    int step = Math.max(1, ic) * w;
    clang.linkExecutable(inputs, dir.resolve("caller.clang"), List.of("-O1", "-std=c11", "-DW=" + step, "-Wall", "-Werror"));
    List<String> executables = new ArrayList<>(List.of("caller.clang"));
    if (Toolchains.gccCaller("RefillDriverCallerTest")) {
      List<String> cmd = new ArrayList<>(List.of(Toolchains.gcc().get(), "-O2", "-std=c11", "-Wall", "-Werror", "-DW=" + step,
          "caller.c"));
      cmd.addAll(objectFiles);
      cmd.addAll(List.of("-o", "caller.gcc"));
      ProcessResult gcc = clang.run(cmd, dir);
      assertEquals(0, gcc.exitCode(), gcc.stderr());
      executables.add("caller.gcc");
    }
    int perN = KERNELS.size() + 4; // mandelbrot twice (refill, auto), julia, march
    int runs = 2 * (3 * step + 2 + 2);
    for (String exe : executables) {
      ProcessResult r = clang.run(List.of(dir.resolve(exe).toString()), dir);
      String out = r.stdoutText();
      assertEquals(0, r.exitCode(), exe + " W=" + w + ": elements differ from the scalar function (exit " + r.exitCode()
          + "; 139 is a fault: an access outside the arrays):\n" + out + r.stderr());
      assertTrue(out.contains("W=" + step + ": " + runs * perN + " driver calls checked, 0 differences"), out);
    }
  }
}
