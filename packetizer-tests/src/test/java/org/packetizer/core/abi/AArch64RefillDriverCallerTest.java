package org.packetizer.core.abi;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.packetizer.core.Packetizer;
import org.packetizer.core.api.PacketizationResult;
import org.packetizer.core.api.PacketizerOptions;
import org.packetizer.core.api.Refill;
import org.packetizer.core.check.CrossTarget;
import org.packetizer.core.driver.ArrayDriver;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.ir.TargetMachine;
import org.packetizer.core.jit.TargetObject;
import org.packetizer.core.toolchain.BundledClang;
import org.packetizer.core.toolchain.Manifest;
import org.packetizer.core.toolchain.ProcessResult;

/**
 * Lane refill (issue 17 §2) on AArch64, run under qemu-aarch64: the kernels of
 * {@code driver/refill_kernels.c} compiled by the bundled clang for {@code aarch64-linux-gnu} at
 * {@code -O2}, and the bundled escape-time kernels (mandelbrot, julia, the sphere tracer) made AArch64
 * modules, get refill drivers at W = 4, 8, 16 (NEON: no gathers, no scatters, no compress: elements
 * move one by one through stack buffers) and at W = 16 for SVE used at 512 bits (compaction by SVE
 * {@code compact}, checked in the disassembly); and on RISC-V V of a known length (VLEN 256,
 * {@code -mrvv-vector-bits=256}) at W = 8 and 16 (compaction by {@code vcompress.vm}, checked in the disassembly; with
 * {@code -Dpacketizer.refill.rvvCompress=false} at W = 8 the scalar moves), run under qemu-riscv64; emitted by LLVM's
 * AArch64 back end and linked with {@code driver/refill_caller.c} — its own translation unit, only the
 * generated header — compiled by the bundled clang and by Debian's {@code aarch64-linux-gnu-gcc}. Every
 * element of every n from 0 to 3W+1 compared with the scalar function, random and coherent inputs,
 * guard bytes before every output, a PROT_NONE page after every array. {@code --refill=auto} keeps the
 * plain driver on AArch64 (not measured there) and says so.
 */
class AArch64RefillDriverCallerTest {
  @TempDir Path dir;

  static Stream<Arguments> cases() {
    return Stream.of(Arguments.of("neon", 4), Arguments.of("neon", 8), Arguments.of("neon", 16), Arguments.of("sve512", 16),
        Arguments.of("rvv256", 8), Arguments.of("rvv256", 16), Arguments.of("rvv256-moves", 8),
        // the 32-bit element indices across chunk boundaries (packetizer.refill.index32Chunk): NEON's scalar moves, SVE's
        // and RVV's compaction (the indices compacted with the state)
        Arguments.of("neon-chunk5", 16), Arguments.of("sve512-chunk7", 16), Arguments.of("rvv256-chunk3", 8));
  }

  @ParameterizedTest(name = "{0} W={1}")
  @MethodSource("cases")
  void refillDriversMatchTheScalarFunctionUnderQemu(String targetName, int w) throws Exception {
    CrossTarget t = targetName.startsWith("neon") ? CrossTarget.neon() : targetName.startsWith("rvv256") ? CrossTarget.rvv(256)
        : CrossTarget.sve(512);
    boolean rvv = targetName.startsWith("rvv");
    // fixed-length RVV compacts by vcompress.vm; -Dpacketizer.refill.rvvCompress=false keeps the scalar moves (measured side by side)
    boolean moves = targetName.endsWith("-moves");
    if (moves) System.setProperty("packetizer.refill.rvvCompress", "false");
    int chunk = targetName.contains("-chunk") ? Integer.parseInt(targetName.substring(targetName.indexOf("-chunk") + 6)) : 0;
    if (chunk > 0) System.setProperty("packetizer.refill.index32Chunk", String.valueOf(chunk));
    try {
      check(t, w, rvv, moves);
    } finally {
      if (moves) System.clearProperty("packetizer.refill.rvvCompress");
      System.clearProperty("packetizer.refill.index32Chunk");
    }
  }

  private void check(CrossTarget t, int w, boolean rvv, boolean moves) throws Exception {
    t.missing().ifPresent(m -> {
      String msg = "SKIPPED LOUDLY: cannot run " + t.name() + " code here, missing " + m + " (bin/install-test-deps.sh installs it)";
      System.err.println(msg);
      Assumptions.abort(msg);
    });
    BundledClang clang = BundledClang.locate();
    Files.writeString(dir.resolve("refill_kernels.c"), ArrayDriverCallerTest.resource("refill_kernels.c"));
    List<String> flags = new ArrayList<>(t.clangTarget());
    flags.addAll(List.of("-O2", "-fno-math-errno"));
    if (t.spec().vectorBits() > 0) flags.add((rvv ? "-mrvv-vector-bits=" : "-msve-vector-bits=") + t.spec().vectorBits());
    if (rvv) flags.set(flags.indexOf("-march=rv64gc"), "-march=rv64gcv");
    if (t.spec().features().contains("+sve")) flags.set(flags.indexOf("-march=armv8-a"), "-march=armv8-a+sve");
    clang.compileToBitcode(dir, Path.of("refill_kernels.c"), Path.of("kernels.bc"), flags);
    List<PacketizationResult.DriverInfo> drivers = new ArrayList<>();
    List<String> objects = new ArrayList<>();
    try (TargetMachine tm = t.spec().targetMachine()) {
      try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.load(dir.resolve("kernels.bc"))) {
        assertTrue(m.targetTriple().startsWith(rvv ? "riscv64" : "aarch64"), m.targetTriple());
        for (String[] k : RefillKernels.C) {
          List<String> remarks = new ArrayList<>();
          PacketizationResult r = new Packetizer(PacketizerOptions.builder().width(w).params(k[1]).verifyEachPhase(true)
              .arrayDriver(true).refill(Refill.ON).remarks(x -> remarks.add(x.message())).build()).run(m, k[0], k[0] + "_simd" + w);
          String how = t.spec().features().contains("+sve") ? "compaction: the lanes still in the loop move to the front (SVE compact, 512-bit"
              : rvv && !moves ? "compaction: the lanes still in the loop move to the front (RISC-V V vcompress.vm" : "scalar moves";
          assertTrue(remarks.stream().anyMatch(x -> x.startsWith("lane refill (--refill) at") && x.contains(how)),
              k[0] + ": " + remarks);
          if (k[0].equals("gcd")) assertTrue(remarks.stream().anyMatch(x -> x.contains("iterations masked (it divides")), remarks.toString());
          drivers.add(r.driver().orElseThrow());
        }
        TargetObject.emitModule(m, tm, dir.resolve("kernels.o"));
        objects.add("kernels.o");
      }
      Manifest mf = Manifest.load();
      for (String[] k : List.of(new String[] {"mandelbrot", "vvu"}, new String[] {"julia", "vvuuu"},
          new String[] {"march", "vvvvvv"})) {
        Manifest.Entry e = mf.require(k[0]);
        try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.load(mf.bitcode(e), e.bitcode())) {
          t.spec().applyTo(m); // the bundled x86-64 bitcode made an AArch64 module (--target-triple)
          List<String> remarks = new ArrayList<>();
          drivers.add(new Packetizer(PacketizerOptions.builder().width(w).params(k[1]).verifyEachPhase(true).arrayDriver(true)
              .refill(Refill.ON).remarks(x -> remarks.add(x.message())).build()).run(m, k[0], k[0] + "_simd" + w).driver().orElseThrow());
          assertTrue(remarks.stream().anyMatch(x -> x.startsWith("lane refill (--refill) at") && x.contains("iterations unmasked")
              && x.contains(t.spec().features().contains("+sve") ? "(SVE compact, 512-bit vectors)"
              : rvv && !moves ? "(RISC-V V vcompress.vm, one per value" : "scalar moves")), k[0] + ": " + remarks);
          if (k[0].equals("mandelbrot")) {
            List<String> auto = new ArrayList<>();
            drivers.add(new Packetizer(PacketizerOptions.builder().width(w).params(k[1]).verifyEachPhase(true).arrayDriver("*_auto")
                .refill(Refill.AUTO).remarks(x -> auto.add(x.message())).build()).run(m, k[0], k[0] + "_auto_simd" + w)
                .driver().orElseThrow());
            assertTrue(auto.stream().anyMatch(x -> x.startsWith("lane refill not chosen (--refill=auto)")
                && x.contains("neither AVX-512 nor AVX2")), auto.toString());
          }
          TargetObject.emitModule(m, tm, dir.resolve(k[0] + ".o"));
          objects.add(k[0] + ".o");
        }
      }
    }
    if (t.spec().features().contains("+sve")) {
      // the compaction is SVE's own instruction, in the refill driver as emitted by LLVM's AArch64 back end
      ProcessResult dis = clang.run(List.of("llvm-objdump", "-d", "--mattr=+sve", "mandelbrot.o"), dir);
      assertEquals(0, dis.exitCode(), dis.stderr());
      String asm = dis.stdoutText();
      assertTrue(asm.contains("compact\tz"), "no SVE compact in mandelbrot.o:\n" + asm);
      assertTrue(asm.contains("st1w\t{ z"), "no SVE scatter of the results in mandelbrot.o:\n" + asm);
    }
    if (rvv) {
      // fixed-length RVV: the compaction is vcompress.vm, the results go out by an indexed store (none with the knob off)
      ProcessResult dis = clang.run(List.of("llvm-objdump", "-d", "mandelbrot.o"), dir);
      assertEquals(0, dis.exitCode(), dis.stderr());
      String asm = dis.stdoutText();
      assertEquals(!moves, asm.contains("vcompress.vm\tv"), "vcompress in mandelbrot.o:\n" + asm);
      assertEquals(!moves, asm.contains("vsoxei64.v\tv"), "indexed store in mandelbrot.o:\n" + asm);
    }
    String header = ArrayDriver.header(drivers, "drivers.h", null);
    assertFalse(header.contains("vector_size") || header.contains("__m"), "no vector types in the header");
    Files.writeString(dir.resolve("drivers.h"), header);
    ArrayDriverCallerTest.writeCaller(dir, "refill_caller.c");
    List<String> clangCompile = new ArrayList<>(List.of("clang"));
    clangCompile.addAll(t.clangTarget());
    clangCompile.addAll(List.of("-O1", "-std=c11", "-Wall", "-Werror", "-DW=" + w, "-c", "caller.c", "-o", "caller.clang.o"));
    run(clang, clangCompile);
    List<String> link = new ArrayList<>(List.of(t.gcc(), "-o", "caller.clang", "caller.clang.o"));
    link.addAll(objects);
    link.add("-lm");
    run(clang, link);
    List<String> gcc = new ArrayList<>(List.of(t.gcc(), "-O2", "-std=c11", "-Wall", "-Werror", "-DW=" + w, "caller.c"));
    gcc.addAll(objects);
    gcc.addAll(List.of("-lm", "-o", "caller.gcc"));
    run(clang, gcc);
    int perN = RefillKernels.C.size() + 4; // mandelbrot twice (refill, auto), julia, march
    int runs = 2 * (3 * w + 2 + 2);
    for (String exe : List.of("caller.clang", "caller.gcc")) {
      ProcessBuilder pb = new ProcessBuilder(t.qemuPath().toString(), "-cpu", t.qemuCpu(), dir.resolve(exe).toString()).redirectErrorStream(true);
      pb.environment().put("QEMU_LD_PREFIX", t.sysroot().toString());
      pb.directory(dir.toFile());
      Process p = pb.start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      int code = p.waitFor();
      assertEquals(0, code, () -> exe + " under " + t + ": elements differ from the scalar function (exit " + code
          + "; 139 is a fault: an access outside the arrays):\n" + out);
      assertTrue(out.contains("W=" + w + ": " + runs * perN + " driver calls checked, 0 differences"), out);
    }
  }

  private void run(BundledClang clang, List<String> cmd) {
    ProcessResult r = clang.run(new ArrayList<>(cmd), dir);
    assertEquals(0, r.exitCode(), () -> String.join(" ", cmd) + ":\n" + r.stderr());
  }

  /** The kernels of refill_kernels.c the caller checks, with their parameter kinds. */
  static final class RefillKernels {
    static final List<String[]> C = RefillDriverCallerTest.KERNELS;
  }
}
