package org.packetizer.core.abi;

import static org.junit.jupiter.api.Assertions.*;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.packetizer.core.Packetizer;
import org.packetizer.core.api.PacketizationResult;
import org.packetizer.core.api.PacketizerOptions;
import org.packetizer.core.driver.ArrayDriver;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.toolchain.BundledClang;
import org.packetizer.core.toolchain.Manifest;
import org.packetizer.core.toolchain.ProcessResult;

/**
 * The foreign path of array drivers (issue 17 §1): kernels compiled by the bundled clang with plain
 * {@code -O2} ({@code driver/driver_kernels.c}) and the bundled mandelbrot bitcode are packetized at
 * width W with array drivers, emitted to objects by the bundled {@code llc}, and linked with a C
 * program in its own translation unit ({@code driver/driver_caller.c}) that uses only the generated
 * header — compiled by the bundled clang and by GCC. For every n from 0 to 3W+1 it compares every
 * element with the scalar function called once per element, with guard bytes in front of every
 * output and a PROT_NONE page right after every array (a tail read or write outside the n
 * elements faults). Covers int32, int64, float, double and bool element types, uniform and linear
 * parameters, a void function storing through a uniform pointer, straight-line code, a divergent
 * loop (collatz, mandelbrot), and the in-place call (output identical to an input).
 */
class ArrayDriverCallerTest {
  @TempDir Path dir;

  /** Scalar function, parameter letters. */
  static final List<String[]> KERNELS = List.of(new String[] {"saxpy", "vvu"}, new String[] {"ramp", "vl2"},
      new String[] {"clampi", "vuu"}, new String[] {"positive", "v"}, new String[] {"sq_to", "ulv"},
      new String[] {"collatz", "v"});

  @ParameterizedTest(name = "W={0}")
  @ValueSource(ints = {4, 8, 16})
  void separatelyCompiledCallersMatchTheScalarFunctionForEveryN(int w) throws Exception {
    check(w, 0); // the automatic interleave count
  }

  /**
   * Interleaved drivers (issue 16): {@code interleave(2)} forces two independent W-lane chains per
   * step (a 2W-lane packet function for W-lane registers); the C callers then check every n from 0 to
   * 3·2W+1, so that full double steps, masked tails of 1 to 2W-1 elements and n = 0 all run.
   */
  @ParameterizedTest(name = "W={0} x2")
  @ValueSource(ints = {4, 8, 16})
  void interleavedDriversMatchTheScalarFunctionForEveryN(int w) throws Exception {
    check(w, 2);
  }

  private void check(int w, int ic) throws Exception {
    BundledClang clang = BundledClang.locate();
    Files.writeString(dir.resolve("driver_kernels.c"), resource("driver_kernels.c"));
    clang.compileToBitcode(dir, Path.of("driver_kernels.c"), Path.of("kernels.bc"), List.of("-O2"));
    List<PacketizationResult.DriverInfo> drivers = new ArrayList<>();
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.load(dir.resolve("kernels.bc"))) {
      for (String[] k : KERNELS) {
        PacketizationResult r = new Packetizer(PacketizerOptions.builder().width(w).params(k[1]).verifyEachPhase(true)
            .arrayDriver(true).interleave(ic).build()).run(m, k[0], k[0] + "_simd" + w);
        assertEquals(k[0] + "_map", r.driverFunction().orElseThrow());
        drivers.add(r.driver().orElseThrow());
      }
      m.write(dir.resolve("kernels.packet.bc"));
    }
    Manifest mf = Manifest.load();
    Manifest.Entry e = mf.require("mandelbrot");
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.load(mf.bitcode(e), e.bitcode())) {
      PacketizationResult r = new Packetizer(PacketizerOptions.builder().width(w).params("vvu").verifyEachPhase(true)
          .arrayDriver(true).interleave(ic).build()).run(m, "mandelbrot", "mandelbrot_simd" + w);
      drivers.add(r.driver().orElseThrow());
      if (ic == 2) assertEquals("mandelbrot_simd" + w + ".x2.masked", r.driver().orElseThrow().maskedFunction());
      m.write(dir.resolve("mandel.packet.bc"));
    }
    String header = ArrayDriver.header(drivers, "drivers.h", null);
    assertFalse(header.contains("__m") || header.contains("vector_size"), "no vector types in the header");
    Files.writeString(dir.resolve("drivers.h"), header);
    for (String bc : List.of("kernels", "mandel")) {
      ProcessResult llc = clang.run(List.of("llc", "-O2", "-filetype=obj", "-relocation-model=pic",
          dir.resolve(bc + ".packet.bc").toString(), "-o", dir.resolve(bc + ".o").toString()), dir);
      assertEquals(0, llc.exitCode(), llc.stderr());
    }
    writeCaller(dir, "driver_caller.c");
    List<Path> objects = List.of(dir.resolve("kernels.o"), dir.resolve("mandel.o"));
    List<Path> inputs = new ArrayList<>(List.of(dir.resolve("caller.c")));
    inputs.addAll(objects);
    // the caller's W is the elements per driver step: it checks every n from 0 to 3·IC·W+1
    int step = Math.max(1, ic) * w;
    clang.linkExecutable(inputs, dir.resolve("caller.clang"), List.of("-O1", "-std=c11", "-DW=" + step, "-Wall", "-Werror"));
    List<String> executables = new ArrayList<>(List.of("caller.clang"));
    if (Toolchains.gccCaller("ArrayDriverCallerTest")) {
      ProcessResult gcc = clang.run(List.of(Toolchains.gcc().get(), "-O2", "-std=c11", "-Wall", "-Werror", "-DW=" + step,
          "caller.c", "kernels.o", "mandel.o", "-o", "caller.gcc"), dir);
      assertEquals(0, gcc.exitCode(), gcc.stderr());
      executables.add("caller.gcc");
    }
    int perN = KERNELS.size() + 2; // saxpy twice (in place), mandelbrot
    for (String exe : executables) {
      ProcessResult r = clang.run(List.of(dir.resolve(exe).toString()), dir);
      String out = r.stdoutText();
      assertEquals(0, r.exitCode(), exe + " W=" + w + " x" + ic + ": elements differ from the scalar function (exit " + r.exitCode()
          + "; 139 is a fault: an access outside the arrays):\n" + out + r.stderr());
      assertTrue(out.contains("W=" + step + ": " + (3 * step + 2) * perN + " driver calls checked, 0 differences"), out);
    }
  }

  /**
   * The caller {@code name} as {@code dir/caller.c}, with the headers the callers include beside it (the guard-page
   * allocator, the callers' shared support): a quoted include is found next to the source by every compiler, native and
   * cross, without an include option.
   */
  static void writeCaller(Path dir, String name) throws IOException {
    Files.writeString(dir.resolve("caller.c"), resource(name));
    for (String h : CALLER_HEADERS) Files.writeString(dir.resolve(h), resource(h));
  }

  /** The headers of {@code driver/} the C callers include. */
  static final java.util.List<String> CALLER_HEADERS = java.util.List.of("guard_pages.h", "caller_support.h");

  static String resource(String name) {
    try (InputStream in = ArrayDriverCallerTest.class.getResourceAsStream("/driver/" + name)) {
      if (in == null) throw new IllegalArgumentException("no test resource driver/" + name);
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
