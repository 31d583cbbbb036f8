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
 * The foreign path of the result kept in the loop's counter (issue 17, twenty-third round: {@code
 * RefillSplit.resultSteps}): the kernels of {@code driver/counter_kernels.c} compiled by the bundled clang with plain
 * {@code -O2} for the target — a 32-bit counter returned as a 64-bit result (clang's {@code zext nneg} of the exit's phi,
 * and {@code zext} of an unsigned counter), a 64-bit counter whose count exit compares it with the sign-extended 32-bit
 * limit (and which the preparation reaches through a dedicated exit block), {@code 2 * i + 1}, {@code limit - i}, and
 * {@code count_trunc} (a wider counter, the twenty-second round's) — get refill drivers at width W whose remarks must name
 * the counter (and the steps computed from it where there are any), are emitted to objects by the bundled {@code llc} and
 * linked with {@code driver/counter_caller.c} (its own translation unit, including only the generated header) built by
 * GCC and by clang. Every element of every n from 0 to 3·IC·W+1, 97 and 40·IC·W+3 is compared with the scalar function,
 * random and coherent inputs, two limits, guard bytes in front of every output, a PROT_NONE page after every array.
 * Targets: Intel AVX2 ({@code haswell}, {@code skylake}: the counter by default), AVX-512 ({@code avx512}: skylake-avx512)
 * and baseline x86-64 ({@code ''}, the counter by {@code -Dpacketizer.refill.counterResult=true}: scalar moves).
 */
class RefillCounterCallerTest {
  @TempDir Path dir;

  static final List<String> KERNELS = List.of("count_sext", "count_zext", "count_limit64", "count_affine", "count_left",
      "count_trunc");
  static final String COUNTER = "the result is the loop's counter as a lane leaves it";
  static final String COMPUTED = ", the result computed from it: ";

  @ParameterizedTest(name = "W={0} IC={1} target={2}")
  @CsvSource({"8,0,haswell", "16,0,haswell", "8,2,skylake", "16,2,avx512", "8,0,avx512", "8,0,''", "16,2,''"})
  void countersFromSeparatelyCompiledCallers(int w, int ic, String target) throws Exception {
    Toolchains.requireGcc("RefillCounterCallerTest");
    boolean avx2 = target.equals("haswell") || target.equals("skylake");
    boolean avx512 = target.equals("avx512");
    Assumptions.assumeTrue(!avx2 || Toolchains.hostHas("avx2"), "SKIPPED (LOUD): the host has no AVX2; the AVX2 refill"
        + " drivers of RefillCounterCallerTest did not run");
    Assumptions.assumeTrue(!avx512 || Toolchains.hostHas("avx512f") && Toolchains.hostHas("avx512vl"), "SKIPPED (LOUD): the"
        + " host has no AVX-512; the AVX-512 refill drivers of RefillCounterCallerTest did not run");
    BundledClang clang = BundledClang.locate();
    Files.writeString(dir.resolve("counter_kernels.c"), ArrayDriverCallerTest.resource("counter_kernels.c"));
    clang.compileToBitcode(dir, Path.of("counter_kernels.c"), Path.of("kernels.bc"),
        avx512 ? List.of("-O2", "-march=skylake-avx512") : avx2 ? List.of("-O2", "-march=" + target) : List.of("-O2"));
    List<PacketizationResult.DriverInfo> drivers = new ArrayList<>();
    if (target.isEmpty()) System.setProperty("packetizer.refill.counterResult", "true");
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.load(dir.resolve("kernels.bc"))) {
      for (String k : KERNELS) {
        List<String> remarks = new ArrayList<>();
        PacketizationResult r = new Packetizer(PacketizerOptions.builder().width(w).params("vu").verifyEachPhase(true)
            .arrayDriver(true).refill(Refill.ON).interleave(ic).remarks(x -> remarks.add(x.message())).build())
            .run(m, k, k + "_simd" + w);
        assertTrue(remarks.stream().anyMatch(x -> x.startsWith("lane refill (--refill) at") && x.contains(COUNTER)), k + ": " + remarks);
        // the steps from the counter to the result: none where the result is the counter or its truncation
        boolean steps = !k.equals("count_limit64") && !k.equals("count_trunc");
        assertEquals(steps, remarks.stream().anyMatch(x -> x.contains(COMPUTED)), k + ": " + remarks);
        drivers.add(r.driver().orElseThrow());
      }
      m.write(dir.resolve("kernels.packet.bc"));
    } finally {
      System.clearProperty("packetizer.refill.counterResult");
    }
    String header = ArrayDriver.header(drivers, "drivers.h", null);
    assertFalse(header.contains("__m") || header.contains("vector_size"), "no vector types in the header");
    Files.writeString(dir.resolve("drivers.h"), header);
    ProcessResult llc = clang.run(List.of("llc", "-O2", "-filetype=obj", "-relocation-model=pic",
        dir.resolve("kernels.packet.bc").toString(), "-o", dir.resolve("kernels.o").toString()), dir);
    assertEquals(0, llc.exitCode(), llc.stderr());
    ArrayDriverCallerTest.writeCaller(dir, "counter_caller.c");
    int step = Math.max(1, ic) * w;
    List<String> executables = Toolchains.gccAndClangCallers(clang, dir, "caller.c", List.of("-std=c11", "-Werror",
        "-DW=" + step), List.of("kernels.o"));
    // per pass (random, coherent) and limit: n = 0..3·step+1, 97 and 40·step+3, six kernels
    int calls = 2 * 2 * (3 * step + 2 + 2) * KERNELS.size();
    for (String exe : executables) {
      ProcessResult r = clang.run(List.of(dir.resolve(exe).toString()), dir);
      String out = r.stdoutText();
      assertEquals(0, r.exitCode(), exe + " W=" + w + ": elements differ from the scalar function (exit " + r.exitCode()
          + "; 139 is a fault: an access outside the arrays):\n" + out + r.stderr());
      assertTrue(out.contains("W=" + step + ": " + calls + " driver calls checked, 0 differences"), out);
    }
  }
}
