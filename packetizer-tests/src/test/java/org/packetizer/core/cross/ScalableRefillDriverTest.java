package org.packetizer.core.cross;

import static org.junit.jupiter.api.Assertions.*;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.packetizer.core.Packetizer;
import org.packetizer.core.api.PacketizationResult;
import org.packetizer.core.api.PacketizerOptions;
import org.packetizer.core.api.Refill;
import org.packetizer.core.api.TargetSpec;
import org.packetizer.core.check.CrossTarget;
import org.packetizer.core.driver.ArrayDriver;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.ir.TargetMachine;
import org.packetizer.core.jit.TargetObject;
import org.packetizer.core.toolchain.BundledClang;
import org.packetizer.core.toolchain.ProcessResult;

/**
 * Lane refill for scalable packets ({@code --scalable --array-driver --refill}, issue 17). On RISC-V V the same
 * check runs with the kernels compiled for rv64gcv (no -mrvv-vector-bits), W = 2, 4 and 8, at VLEN 128, 256 and
 * 512 (below). On SVE: the kernels of
 * {@code driver/scalable_refill_kernels.c} compiled by the bundled clang at -O2 for armv8-a+sve (no
 * -msve-vector-bits: the vector length is known only at run time) get scalable refill drivers at W = 4 (all; escape also with the batch
 * rule) and W = 2 (escape, collatz); emitted by LLVM's AArch64 back end (compact, splice, cntp, whilelo and a scatter in
 * the object), linked with {@code driver/scalable_refill_caller.c} — its own translation unit, only the generated
 * header — compiled by the bundled clang and by {@code aarch64-linux-gnu-gcc}, and each binary run under qemu at SVE
 * 128, 512 and 2048 bits (one binary, the length chosen by {@code -cpu max,sve-default-vector-length=BYTES} — {@code max,sve2048=on}
 * alone runs at 512 bits, qemu's default length — and checked by the caller's report of {@code PR_SVE_GET_VL}). Every element of every n from 0 to 193 and of 1000 and 4099, random and coherent
 * inputs, compared byte for byte with the scalar function; guard bytes before every output, a PROT_NONE page
 * after every array.
 */
class ScalableRefillDriverTest {
  @TempDir Path dir;

  static final List<String[]> KERNELS = List.of(new String[] {"escape", "vvu"}, new String[] {"collatz", "v"},
      new String[] {"multi_exit", "vu"}, new String[] {"guarded", "v"}, new String[] {"damp", "vu"}, new String[] {"gcd", "vv"},
      new String[] {"nested", "vu"}, new String[] {"trail", "vuv"}, new String[] {"narrow", "v"}, new String[] {"walk", "v"});

  /** The kernels also built at W = 8 on RISC-V V (the 64-bit index and state as register groups of 8). */
  static final List<String[]> W8_KERNELS = List.of(new String[] {"escape", "vvu"}, new String[] {"collatz", "v"},
      new String[] {"guarded", "v"});

  /** What a run of the caller prints per vector length, by {@code (bits, driver calls)}. */
  private interface Report {
    String line(int bits, int calls);
  }

  @Test
  void scalableRefillDriversMatchTheScalarFunctionAtSeveralVectorLengths() throws Exception {
    CrossTarget t = CrossTests.require(CrossTarget.sve(512));
    check(t, new TargetSpec("aarch64-linux-gnu", "", "+neon,+sve", 0), List.of("--target=aarch64-linux-gnu", "-march=armv8-a+sve"),
        "SVE compact", false, List.of("compact\tz", "splice\tz", "cntp\tx", "whilelo\tp", "st1w\t{ z", "st1d\t{ z", "ld1w\t{ z"),
        List.of("--mattr=+sve"), List.of(128, 512, 2048), bits -> "max,sve-default-vector-length=" + bits / 8,
        (bits, calls) -> "SVE " + bits + " bits: " + calls + " driver calls checked, 0 differences");
  }

  /**
   * RISC-V V: the same kernels compiled by the bundled clang -O2 for rv64gcv without -mrvv-vector-bits, drivers at
   * W = 2, 4 and 8 whose rounds are vcpop, vcompress (one per value, a 64-bit one a register group), loads under a
   * mask and an indexed store; the caller built by clang and by riscv64-linux-gnu-gcc, one binary per caller run at
   * VLEN 128, 256 and 512 (the caller reads vlenb).
   */
  @Test
  void riscvVectorRefillDriversMatchTheScalarFunctionAtSeveralVectorLengths() throws Exception {
    CrossTarget t = CrossTests.require(CrossTarget.rvv(256));
    check(t, new TargetSpec("riscv64-linux-gnu", "", "+v", 0), List.of("--target=riscv64-linux-gnu", "-march=rv64gcv", "-mabi=lp64d"),
        "RVV vcompress", true, List.of("vcompress.vm\tv", "vcpop.m\t", "vle32.v\tv", "vle64.v\tv", "vsoxei64.v\tv", "v0.t"),
        List.of(), List.of(128, 256, 512), bits -> "rv64,v=true,vlen=" + bits,
        (bits, calls) -> "VLEN " + bits + " bits: " + calls + " driver calls checked, 0 differences");
  }

  /**
   * Fixed-length RISC-V V ({@code --vector-bits}, clang's {@code -mrvv-vector-bits}): the same kernels and caller, the
   * kernels compiled for each VLEN of 128, 256 and 512 in turn and run at that VLEN; the fixed-width refill driver at
   * W = 8 (the {@code _map} drivers), 4 ({@code _w2}) and 16 ({@code _w8}: the 64-bit index a register group of 8 at
   * VLEN 128) compacts by one vcompress.vm per value (bytes, shorts and {@code _Bool} at their own width, pointers as
   * 64-bit integers) instead of scalar moves; loads under a mask, results by an indexed store.
   */
  @Test
  void fixedLengthRiscvVectorRefillDriversCompactByVcompress() throws Exception {
    CrossTarget t = CrossTests.require(CrossTarget.rvv(256));
    for (int bits : List.of(128, 256, 512)) {
      check(t, new TargetSpec("riscv64-linux-gnu", "", "+v", bits), List.of("--target=riscv64-linux-gnu", "-march=rv64gcv",
          "-mabi=lp64d", "-mrvv-vector-bits=" + bits), "RISC-V V vcompress.vm, one per value over its register group, up to "
          + 8 * bits + " bits", true, List.of("vcompress.vm\tv", "vle32.v\tv", "vle64.v\tv", "vsoxei64.v\tv", "v0.t"),
          List.of(), List.of(bits), b -> "rv64,v=true,vlen=" + b,
          (b, calls) -> "VLEN " + b + " bits: " + calls + " driver calls checked, 0 differences", bits);
    }
  }

  private void check(CrossTarget t, TargetSpec spec, List<String> clangTarget, String compaction, boolean w8, List<String> insns,
      List<String> objdumpFlags, List<Integer> lengths, java.util.function.IntFunction<String> cpu, Report report) throws Exception {
    check(t, spec, clangTarget, compaction, w8, insns, objdumpFlags, lengths, cpu, report, 0);
  }

  /** As above; {@code fixedBits} > 0: fixed-width drivers (W twice the scalable W) for code of that vector length. */
  private void check(CrossTarget t, TargetSpec spec, List<String> clangTarget, String compaction, boolean w8, List<String> insns,
      List<String> objdumpFlags, List<Integer> lengths, java.util.function.IntFunction<String> cpu, Report report, int fixedBits)
      throws Exception {
    boolean fixed = fixedBits > 0;
    int f = fixed ? 2 : 1;
    BundledClang clang = BundledClang.locate();
    Files.writeString(dir.resolve("kernels.c"), resource("scalable_refill_kernels.c"));
    List<String> flags = new ArrayList<>(clangTarget);
    flags.addAll(List.of("-O2", "-fno-math-errno"));
    clang.compileToBitcode(dir, Path.of("kernels.c"), Path.of("kernels.bc"), flags);
    List<PacketizationResult.DriverInfo> drivers = new ArrayList<>();
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.load(dir.resolve("kernels.bc"))) {
      spec.applyTo(m);
      for (String[] k : KERNELS) drivers.add(build(m, k[0], k[1], 4 * f, "*_map", compaction, k[0].equals("gcd") ? "iterations masked (it divides"
          : k[0].equals("escape") ? "iterations unmasked" : k[0].equals("trail") ? "iterations masked (it accesses memory" : "", fixed));
      for (String k : List.of("escape", "collatz")) {
        drivers.add(build(m, k, k.equals("escape") ? "vvu" : "v", 2 * f, "*_w2", compaction, "", fixed));
      }
      if (w8) for (String[] k : W8_KERNELS) drivers.add(build(m, k[0], k[1], 8 * f, "*_w8", compaction, "", fixed));
      // the batch rule instead of the counted blocks (--refill-batch 2: leave the iterations when 2·vscale lanes are free)
      List<String> remarks = new ArrayList<>();
      drivers.add(new Packetizer(PacketizerOptions.builder().width(4 * f).params("vvu").scalable(!fixed).arrayDriver("*_batch")
          .refill(Refill.ON).refillBatch(2 * f).remarks(x -> remarks.add(x.message())).build()).run(m, "escape", "escape_b4")
          .driver().orElseThrow());
      assertTrue(remarks.stream().anyMatch(x -> x.contains(fixed ? "a refill round when 4 of 8 lanes are free"
          : "a refill round when 2 of every 4 lanes are free") && x.contains(compaction)), remarks.toString());
      assertTrue(m.verify().isEmpty(), () -> m.verify().get());
      try (TargetMachine tm = spec.targetMachine()) {
        TargetObject.emitModule(m, tm, dir.resolve("kernels.o"));
      }
    }
    // the rounds are the target's own instructions, in the drivers as emitted by LLVM's back end
    List<String> objdump = new ArrayList<>(List.of("llvm-objdump", "-d"));
    objdump.addAll(objdumpFlags);
    objdump.add("kernels.o");
    ProcessResult dis = clang.run(objdump, dir);
    assertEquals(0, dis.exitCode(), dis.stderr());
    String asm = dis.stdoutText();
    for (String insn : insns) assertTrue(asm.contains(insn), "no " + insn + " in kernels.o");
    String header = ArrayDriver.header(drivers, "drivers.h", null);
    assertFalse(header.contains("svfloat") || header.contains("__SV") || header.contains("vector_size")
        || header.contains("vfloat") || header.contains("__rvv"), header);
    Files.writeString(dir.resolve("drivers.h"), header);
    Files.writeString(dir.resolve("caller.c"), resource("scalable_refill_caller.c"));
    // (the headers the caller includes, beside it: found by the cross compilers without an include option)
    for (String h : List.of("guard_pages.h", "caller_support.h")) Files.writeString(dir.resolve(h), resource(h));
    List<String> defs = w8 ? List.of("-DW8_DRIVERS") : List.of();
    List<String> clangCompile = new ArrayList<>(List.of("clang"));
    clangCompile.addAll(t.clangTarget());
    clangCompile.addAll(defs);
    clangCompile.addAll(List.of("-O1", "-std=c11", "-Wall", "-Werror", "-c", "caller.c", "-o", "caller.clang.o"));
    run(clang, clangCompile);
    run(clang, List.of(t.gcc(), "-o", "caller.clang", "caller.clang.o", "kernels.o", "-lm"));
    List<String> gccCompile = new ArrayList<>(List.of(t.gcc(), "-O2", "-std=c11", "-Wall", "-Werror"));
    gccCompile.addAll(defs);
    gccCompile.addAll(List.of("caller.c", "kernels.o", "-lm", "-o", "caller.gcc"));
    run(clang, gccCompile);
    int calls = 2 * (3 * 64 + 2 + 2) * (KERNELS.size() + 3 + (w8 ? W8_KERNELS.size() : 0));
    for (String exe : List.of("caller.clang", "caller.gcc")) {
      for (int bits : lengths) {
        ProcessBuilder pb = new ProcessBuilder(t.qemuPath().toString(), "-cpu", cpu.apply(bits), dir.resolve(exe).toString())
            .redirectErrorStream(true);
        pb.environment().put("QEMU_LD_PREFIX", t.sysroot().toString());
        pb.directory(dir.toFile());
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        int code = p.waitFor();
        assertEquals(0, code, () -> exe + " under " + t.qemuDescription() + " -cpu " + cpu.apply(bits) + ": elements differ from"
            + " the scalar function (exit " + code + "; 139 is a fault: an access outside the arrays):\n" + out);
        assertTrue(out.contains(report.line(bits, calls)), out);
      }
    }
  }

  private static PacketizationResult.DriverInfo build(LlvmModule m, String fn, String params, int w, String pattern,
      String compaction, String expected, boolean fixed) {
    List<String> remarks = new ArrayList<>();
    PacketizationResult r = new Packetizer(PacketizerOptions.builder().width(w).params(params).scalable(!fixed).verifyEachPhase(true)
        .arrayDriver(pattern).refill(Refill.ON).remarks(x -> remarks.add(x.message())).build()).run(m, fn, fn + "_vl" + w);
    assertTrue(remarks.stream().anyMatch(x -> x.startsWith("lane refill (--refill) at") && (fixed || x.contains("vscale x " + w + " lanes"))
        && x.contains(compaction) && x.contains(expected)), fn + ": " + remarks);
    return r.driver().orElseThrow();
  }

  static String resource(String name) {
    try (InputStream in = ScalableRefillDriverTest.class.getResourceAsStream("/driver/" + name)) {
      if (in == null) throw new IllegalArgumentException("no test resource driver/" + name);
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private void run(BundledClang clang, List<String> cmd) {
    ProcessResult r = clang.run(new ArrayList<>(cmd), dir);
    assertEquals(0, r.exitCode(), () -> String.join(" ", cmd) + ":\n" + r.stderr());
  }
}
