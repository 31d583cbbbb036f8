package org.packetizer.core.abi;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.packetizer.core.api.PacketizationResult;
import org.packetizer.core.Packetizer;
import org.packetizer.core.api.PacketizerOptions;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.toolchain.BundledClang;
import org.packetizer.core.toolchain.ProcessResult;

/**
 * GCC as the caller of our vector-function-ABI variants: {@code omp_kernels.c} (declare simd with
 * uniform, linear, inbranch/notinbranch and simdlen) is compiled by the bundled clang for AVX-512 and
 * every declared variant is packetized ({@link Packetizer#runDeclaredVariants}: ISAs b, c, d and e)
 * and emitted to an object by the bundled {@code llc}; {@code omp_caller.c}, loops under
 * {@code #pragma omp simd} in their own file, is compiled by Debian's GCC with
 * {@code -O3 -fopenmp-simd -march=<isa>}. The test checks (objdump) that GCC's code calls the
 * {@code _ZGV<isa>} symbols of that ISA (GCC 12 calls the unmasked ones; the masked ABI forms are
 * called from C in {@link CCallerAbiTest}), and runs the program, which compares every element with the
 * scalar functions. Before the fix the masked variants read GCC's mask vector (or AVX-512 bit mask)
 * as {@code <W x i1>}, b variants of AVX-512 code took ymm registers, and results wider than one
 * register came back in registers instead of memory.
 */
class GccOmpSimdCallerTest {
  @TempDir static Path dir;

  @BeforeAll
  static void packetizeTheDeclaredVariants() throws Exception {
    BundledClang clang = BundledClang.locate();
    for (String f : List.of("omp_kernels.h", "omp_kernels.c", "omp_caller.c")) {
      Files.writeString(dir.resolve(f), CCallerAbiTest.resource(f));
    }
    List<String> flags = new ArrayList<>(BundledClang.KERNEL_FLAGS);
    flags.addAll(List.of("-fopenmp-simd", "-march=x86-64-v4", "-I."));
    clang.compileToBitcode(dir, Path.of("omp_kernels.c"), Path.of("kernels.bc"), flags);
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.load(dir.resolve("kernels.bc"))) {
      Packetizer p = new Packetizer(PacketizerOptions.builder().verifyEachPhase(true).build());
      Set<String> made = new TreeSet<>();
      for (String fn : List.of("gf", "gi", "gd", "gs")) {
        for (PacketizationResult r : p.runDeclaredVariants(m, fn)) made.add(r.packetFunction());
      }
      for (char isa : "bcde".toCharArray()) {
        assertTrue(made.contains("_ZGV" + isa + "M16vul_gi"), made::toString);
        assertTrue(made.contains("_ZGV" + isa + "N16vul_gi"), made::toString);
      }
      assertTrue(made.containsAll(List.of("_ZGVbN4vv_gf", "_ZGVbM4vv_gf", "_ZGVcN8vv_gf", "_ZGVdM8vv_gf", "_ZGVeN16vv_gf",
          "_ZGVeM16vv_gf", "_ZGVbM2ulv_gd", "_ZGVdM4ulv_gd", "_ZGVeM8ulv_gd")), made::toString);
      // clang names the AVX (c) variant of an int function with 8 lanes, GCC (following the ABI: AVX has
      // no 256-bit integer instructions) calls one with 4: the name fixes width and shapes, so make it
      PacketizationResult c4 = new Packetizer(PacketizerOptions.builder().width(4).vectorAbi(true).build())
          .run(m, "gi", "_ZGVcN4vul_gi");
      assertEquals("_ZGVcN4vul_gi", c4.packetFunction());
      m.write(dir.resolve("packet.bc"));
    }
    ProcessResult llc = clang.run(List.of("llc", "-O2", "-filetype=obj", "-relocation-model=pic", "packet.bc", "-o",
        "packet.o"), dir);
    assertEquals(0, llc.exitCode(), llc.stderr());
  }

  @ParameterizedTest
  @CsvSource({"x86-64-v2, b, sse4_2", "sandybridge, c, avx", "x86-64-v3, d, avx2",
      "x86-64-v4 -mprefer-vector-width=512, e, avx512f"})
  void gccCallsOurVariantsAndGetsTheScalarResults(String march, char isa, String hostFlag) throws Exception {
    Toolchains.requireGcc("GCC's #pragma omp simd caller for " + march);
    BundledClang clang = BundledClang.locate();
    String exe = "caller_" + isa;
    List<String> cmd = new ArrayList<>(List.of(Toolchains.gcc().get(), "-O3", "-fopenmp-simd", "-I."));
    for (String f : march.split(" ")) cmd.add(f.startsWith("-") ? f : "-march=" + f);
    cmd.addAll(List.of("-c", "omp_caller.c", "-o", exe + ".o"));
    ProcessResult cc = clang.run(cmd, dir);
    assertEquals(0, cc.exitCode(), cc.stderr());
    // GCC's loops call the variants of this ISA (not the scalar functions)
    ProcessResult dump = clang.run(List.of("objdump", "-dr", exe + ".o"), dir);
    assertEquals(0, dump.exitCode(), dump.stderr());
    Set<String> called = new TreeSet<>();
    Matcher mt = Pattern.compile("(_ZGV[bcde][MN]\\w+)").matcher(dump.stdoutText());
    while (mt.find()) called.add(mt.group(1));
    // (GCC 12 does not if-convert calls into its masked clones: the conditional loops keep scalar calls)
    for (String variant : List.of(isa == 'e' ? "N16vul_gi" : isa == 'd' ? "N8vul_gi" : "N4vul_gi", isa == 'b' ? "N4vv_gf" : isa == 'e' ? "N16vv_gf" : "N8vv_gf")) {
      assertTrue(called.contains("_ZGV" + isa + variant), () -> "GCC (" + march + ") does not call _ZGV" + isa + variant
          + ": " + called);
    }
    ProcessResult link = clang.run(List.of(Toolchains.gcc().get(), exe + ".o", "packet.o", "-o", exe, "-lmvec", "-lm"), dir);
    assertEquals(0, link.exitCode(), link.stderr());
    if (!Toolchains.hostHas(hostFlag)) {
      System.err.println("SKIPPED (LOUD): this host has no " + hostFlag + "; GCC's " + march + " caller was built, not run");
      return;
    }
    ProcessResult run = clang.run(List.of(dir.resolve(exe).toString()), dir);
    assertEquals(0, run.exitCode(), () -> march + ": GCC's caller got other results than the scalar functions (exit "
        + run.exitCode() + "):\n" + run.stdoutText() + run.stderr());
    assertTrue(run.stdoutText().contains("0 elements differ"), run.stdoutText());
  }

  @Test
  void theMaskedAbiFormsTakeTheAbiMasks() throws Exception {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.load(dir.resolve("packet.bc"))) {
      // b/c/d: a vector of the characteristic type's width; e: one i32 per 512 bits of lanes
      assertEquals("<4 x i32>", m.function("_ZGVbM4vv_gf").orElseThrow().functionType().paramTypes().getLast().toString());
      assertEquals("<4 x i64>", m.function("_ZGVdM4ulv_gd").orElseThrow().functionType().paramTypes().getLast().toString());
      assertEquals("i32", m.function("_ZGVeM16vv_gf").orElseThrow().functionType().paramTypes().getLast().toString());
      assertEquals("<16 x i1>", m.function("_ZGVeM16vv_gf.ir").orElseThrow().functionType().paramTypes().getLast().toString());
      // b, 16 ints: four xmm registers, the result through memory
      assertTrue(m.function("_ZGVbN16vul_gi").orElseThrow().returnType().isVoid());
      String bFeatures = m.function("_ZGVbN16vul_gi").orElseThrow().stringAttribute("target-features").orElseThrow();
      assertTrue(bFeatures.contains("-avx") && !bFeatures.contains("+avx"), bFeatures);
      assertTrue(m.function("_ZGVeN16vv_gf").orElseThrow().stringAttribute("min-legal-vector-width").orElseThrow()
          .equals("512"));
      // vector math follows the variant's ISA, not the AVX-512 module's: b calls SSE's libmvec twice
      String b = m.function("_ZGVbN8v_gs.ir").orElseThrow().print();
      assertTrue(b.contains("@_ZGVbN4v_sinf(") && !b.contains("@_ZGVdN8v_sinf(") && !b.contains("@_ZGVeN"), b);
      assertTrue(m.function("_ZGVdN8v_gs").orElseThrow().print().contains("@_ZGVdN8v_sinf("));
      // the module's own functions got their features back
      assertTrue(m.function("gf").orElseThrow().stringAttribute("target-features").orElseThrow().contains("+avx512f"));
    }
  }
}
