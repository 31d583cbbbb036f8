package org.packetizer.core.check;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.packetizer.core.api.TargetSpec;
import org.packetizer.core.ir.TargetArch;

/**
 * A target that the host runs under qemu-user: what to compile for ({@link TargetSpec}), which qemu
 * and CPU model runs it, and the cross tool chain that links the launcher (Debian's
 * {@code gcc-aarch64-linux-gnu}/{@code libc6-dev-arm64-cross}, {@code gcc-riscv64-linux-gnu}/{@code
 * libc6-dev-riscv64-cross}, {@code qemu-user}; {@code bin/install-test-deps.sh} installs them).
 *
 * @param name     a short name for reports ({@code neon}, {@code sve512}, {@code rvv256})
 * @param spec     what the code is compiled for
 * @param qemu     the qemu-user program ({@code qemu-aarch64})
 * @param qemuCpu  its {@code -cpu} argument ({@code max,sve512=on}, {@code rv64,v=true,vlen=256})
 * @param sysroot  the cross C library's root ({@code QEMU_LD_PREFIX})
 * @param gcc      the cross GCC that links the launcher
 * @param clangTarget the bundled clang's flags compiling the launcher for the target
 */
public record CrossTarget(String name, TargetSpec spec, String qemu, String qemuCpu, Path sysroot, String gcc,
    List<String> clangTarget) {
  public CrossTarget {
    clangTarget = List.copyOf(clangTarget);
  }

  /** AArch64 with Advanced SIMD (NEON), 128-bit vectors. */
  public static CrossTarget neon() {
    return aarch64("neon", new TargetSpec("aarch64-unknown-linux-gnu", "", "+neon", 0), "max,sve=off");
  }

  /** AArch64 with SVE used at a fixed length of {@code bits} (clang's {@code -msve-vector-bits}), run with that vector length. */
  public static CrossTarget sve(int bits) {
    return aarch64("sve" + bits, new TargetSpec("aarch64-unknown-linux-gnu", "", "+neon,+sve", bits), "max,sve" + bits + "=on");
  }

  /** RISC-V 64 with the V extension at VLEN {@code bits} (used at that fixed length), run with that VLEN. */
  public static CrossTarget rvv(int bits) {
    return new CrossTarget("rvv" + bits, new TargetSpec("riscv64-unknown-linux-gnu", "", "+v,+zvl" + bits + "b", bits),
        "qemu-riscv64", "rv64,v=true,vlen=" + bits, Path.of("/usr/riscv64-linux-gnu"), "riscv64-linux-gnu-gcc",
        List.of("--target=riscv64-linux-gnu", "-march=rv64gc", "-mabi=lp64d"));
  }

  private static CrossTarget aarch64(String name, TargetSpec spec, String cpu) {
    return new CrossTarget(name, spec, "qemu-aarch64", cpu, Path.of("/usr/aarch64-linux-gnu"), "aarch64-linux-gnu-gcc",
        List.of("--target=aarch64-linux-gnu", "-march=armv8-a"));
  }

  /** The targets the cross tests run: NEON, SVE at 256 and 512 bits, RISC-V V at VLEN 256. */
  public static List<CrossTarget> standard() { return List.of(neon(), sve(256), sve(512), rvv(256)); }

  /**
   * The emulated target for a spec: qemu's CPU model follows the spec's features ({@code +sve}: SVE at
   * the spec's vector bits, else 128; RISC-V: VLEN from the vector bits, else 128). Empty for the
   * host's family or a family without a qemu set-up here.
   */
  public static Optional<CrossTarget> forSpec(TargetSpec spec) {
    if (!spec.isCross()) return Optional.empty();
    TargetArch arch = spec.arch();
    if (arch == TargetArch.AARCH64) {
      boolean sve = spec.features().contains("+sve");
      int bits = spec.vectorBits() == 0 ? 128 : spec.vectorBits();
      return Optional.of(aarch64(sve ? "sve" + bits : "neon", spec, sve ? "max,sve" + bits + "=on" : "max,sve=off"));
    }
    if (arch == TargetArch.RISCV64) {
      int bits = spec.vectorBits() == 0 ? Math.max(128, zvl(spec.features())) : spec.vectorBits();
      return Optional.of(new CrossTarget("rvv" + bits, spec, "qemu-riscv64", "rv64,v=true,vlen=" + bits,
          Path.of("/usr/riscv64-linux-gnu"), "riscv64-linux-gnu-gcc",
          List.of("--target=riscv64-linux-gnu", "-march=rv64gc", "-mabi=lp64d")));
    }
    return Optional.empty();
  }

  private static int zvl(String features) {
    int best = 0;
    for (String f : features.split(",")) {
      f = f.strip();
      if (f.startsWith("+zvl") && f.endsWith("b")) {
        try {
          best = Math.max(best, Integer.parseInt(f.substring(4, f.length() - 1)));
        } catch (NumberFormatException ignored) {
          // not zvl<N>b
        }
      }
    }
    return best;
  }

  /**
   * What is missing to run this target here (qemu, the cross GCC, the cross C library), or empty when
   * everything is present. Tests skip loudly with this text.
   */
  public Optional<String> missing() {
    List<String> out = new ArrayList<>();
    if (QemuInstall.find(qemu).isEmpty()) out.add(qemu + " (Debian package qemu-user, or bin/fetch-qemu.sh)");
    if (onPath(gcc).isEmpty()) out.add(gcc + " (Debian package gcc-" + gcc.replace("-gcc", "") + ")");
    if (!Files.isDirectory(sysroot.resolve("lib"))) out.add(sysroot + "/lib (the cross C library, Debian package libc6-dev-"
        + (spec.arch() == TargetArch.AARCH64 ? "arm64" : "riscv64") + "-cross)");
    return out.isEmpty() ? Optional.empty() : Optional.of(String.join(", ", out));
  }

  /**
   * The qemu-user program that runs this target: the QEMU bin/fetch-qemu.sh fetched, else the one on
   * PATH ({@link QemuInstall}); the bare name when there is none.
   */
  public Path qemuPath() { return QemuInstall.find(qemu).map(QemuInstall::path).orElse(Path.of(qemu)); }

  /** Which qemu runs this target, for messages: "qemu-riscv64 10.0.2 (/path/to/qemu-riscv64)". */
  public String qemuDescription() { return QemuInstall.find(qemu).map(QemuInstall::describe).orElse(qemu + " (not found)"); }

  /**
   * Why this target runs on an old QEMU with the RISC-V translator bug of QEMU 7.2 (and a crash with its
   * assertion has no verdict), or empty when its QEMU is newer.
   */
  public Optional<String> oldQemu() {
    return QemuInstall.find(qemu).filter(QemuInstall::hasRvvTranslatorAssertion)
        .map(q -> q.describe() + (q.fallbackReason().isEmpty() ? "" : "; " + q.fallbackReason()));
  }

  static Optional<Path> onPath(String program) {
    String path = System.getenv("PATH");
    if (path == null) return Optional.empty();
    for (String dir : path.split(":")) {
      if (dir.isEmpty()) continue;
      Path p = Path.of(dir, program);
      if (Files.isRegularFile(p) && Files.isExecutable(p)) return Optional.of(p);
    }
    return Optional.empty();
  }

  @Override public String toString() { return name + " (" + spec + ", " + qemu + " -cpu " + qemuCpu + ")"; }
}
