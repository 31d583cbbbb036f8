package org.packetizer.core.cross;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.packetizer.core.check.CrossTarget;
import org.packetizer.core.toolchain.BundledClang;

/**
 * What the cross-target tests share: the loud skip when a target's tools are missing, and the build and
 * run of ACLE SVE C callers at three vector lengths.
 */
final class CrossTests {
  private CrossTests() {}

  /**
   * {@code t} when its emulator, cross compiler and C library are here; otherwise the test is aborted
   * (skipped) with a message on standard error naming the target and what is missing.
   */
  static CrossTarget require(CrossTarget t) {
    t.missing().ifPresent(m -> {
      String msg = "SKIPPED LOUDLY: cannot run " + t.name() + " code here, missing " + m
          + " (bin/install-test-deps.sh installs it as root)";
      System.err.println(msg);
      Assumptions.abort(msg);
    });
    return t;
  }

  /**
   * The foreign path for SVE code: {@code ref} (the scalar reference, built by the bundled clang at -O0
   * with {@code refFlags}) and {@code caller} (an ACLE SVE caller in its own file) are written to
   * {@code dir}; the caller is built once by the bundled clang and once by {@code sve}'s GCC, each linked
   * with the reference and {@code packetObj}, and both run at SVE 128, 256 and 512 bits.
   */
  static void acleCallersAtSveLengths(BundledClang clang, CrossTarget sve, Path dir, Path packetObj, String ref, String caller,
      List<String> refFlags) throws IOException, InterruptedException {
    Files.writeString(dir.resolve("ref.c"), ref);
    Files.writeString(dir.resolve("caller.c"), caller);
    List<String> refCmd = new ArrayList<>(List.of("clang", "--target=aarch64-linux-gnu", "-O0"));
    refCmd.addAll(refFlags);
    refCmd.addAll(List.of("-c", "ref.c", "-o", "ref.o"));
    AArch64VectorAbiTest.run(clang, dir, refCmd);
    AArch64VectorAbiTest.run(clang, dir, List.of("clang", "--target=aarch64-linux-gnu", "-march=armv8-a+sve", "-O2", "-c",
        "caller.c", "-o", "clang_caller.o"));
    AArch64VectorAbiTest.run(clang, dir, List.of(sve.gcc(), "-march=armv8-a+sve", "-O2", "-c", "caller.c", "-o", "gcc_caller.o"));
    for (String c : List.of("clang_caller", "gcc_caller")) {
      AArch64VectorAbiTest.run(clang, dir, List.of(sve.gcc(), "-o", c, c + ".o", "ref.o", packetObj.toString(), "-lm"));
      atSveLengths(sve, dir.resolve(c));
    }
  }

  /**
   * Runs {@code exe} under qemu-aarch64 at SVE 128, 256 and 512 bits: each run must exit 0 and print
   * {@code OK <lanes> lanes} with the run's number of 32-bit lanes.
   */
  static void atSveLengths(CrossTarget sve, Path exe) throws IOException, InterruptedException {
    for (int bits : new int[] {128, 256, 512}) {
      ProcessBuilder pb = new ProcessBuilder(sve.qemuPath().toString(), "-cpu", "max,sve" + bits + "=on", exe.toString())
          .redirectErrorStream(true);
      pb.environment().put("QEMU_LD_PREFIX", sve.sysroot().toString());
      Process p = pb.start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      String what = exe.getFileName() + " under " + sve.qemuDescription() + " at SVE " + bits;
      assertEquals(0, p.waitFor(), () -> what + ":\n" + out);
      assertTrue(out.contains("OK " + bits / 32 + " lanes"), () -> what + ": " + out);
    }
  }
}
