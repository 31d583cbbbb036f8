package org.packetizer.core.api;

import java.util.Locale;
import java.util.Objects;
import org.packetizer.core.ir.Function;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.ir.TargetMachine;
import org.packetizer.core.ir.TargetArch;

/**
 * A target to packetize for, possibly not the host's: an LLVM triple ({@code aarch64-linux-gnu},
 * {@code riscv64-linux-gnu}, {@code x86_64-pc-linux-gnu}), a CPU name, a feature string and, for the
 * scalable vector ISAs used at a fixed length (SVE, RISC-V V), the register width in bits.
 *
 * <p>{@link #applyTo} makes a module that target's: triple and data layout, and on every defined
 * function the {@code target-cpu}/{@code target-features} attributes (a function's own attributes for
 * another instruction set family are dropped: they would name features the target does not have) and,
 * with {@code vectorBits}, {@code vscale_range(k,k)} — what clang's {@code -msve-vector-bits=N}
 * ({@code k = N/128}) and {@code -mrvv-vector-bits=N} ({@code k = N/64}) write, so that LLVM's AArch64 and
 * RISC-V back ends lower fixed-length vectors of up to N bits into one register and
 * {@code HardwareWidth} gives N/32 float lanes. The packetizer then reads everything from the module,
 * as it does for a module clang compiled for that target in the first place.
 *
 * @param triple     the LLVM target triple
 * @param cpu        the CPU name, or empty for the triple's generic CPU
 * @param features   the feature string ({@code +sve}, {@code +v,+zvl256b}), or empty
 * @param vectorBits the SVE / RISC-V V register width in bits for fixed-length code (a power of two,
 *                   128..2048), or 0 for none
 */
public record TargetSpec(String triple, String cpu, String features, int vectorBits) {
  public TargetSpec {
    Objects.requireNonNull(triple, "triple");
    cpu = cpu == null ? "" : cpu;
    features = features == null ? "" : features;
    if (triple.isBlank()) throw new IllegalArgumentException("empty target triple");
    if (vectorBits != 0 && (vectorBits < 128 || vectorBits > 2048 || Integer.bitCount(vectorBits) != 1)) {
      throw new IllegalArgumentException("vector bits must be a power of two from 128 to 2048, got " + vectorBits);
    }
    TargetArch arch = TargetArch.of(triple);
    if (vectorBits != 0 && arch != TargetArch.AARCH64 && arch != TargetArch.RISCV64) {
      throw new IllegalArgumentException("vector bits (" + vectorBits + ") are for SVE and RISC-V V; target " + triple
          + " has fixed-size vector registers");
    }
  }

  /** The instruction set family. */
  public TargetArch arch() { return TargetArch.of(triple); }

  /** Whether this target's code cannot run on the host (it runs under an emulator). */
  public boolean isCross() { return TargetArch.isCross(triple); }

  /** The CPU name LLVM gets: the given one, else the triple's generic CPU. */
  public String cpuOrGeneric() {
    if (!cpu.isEmpty()) return cpu;
    return switch (arch()) {
      case RISCV64 -> "generic-rv64";
      default -> "generic";
    };
  }

  /**
   * The feature string LLVM gets: the given one; for RISC-V the Linux ABI's base (rv64gc: {@code
   * +m,+a,+f,+d,+c}) comes first, since lp64d code needs the D extension.
   */
  public String effectiveFeatures() {
    if (arch() == TargetArch.RISCV64) {
      String base = "+m,+a,+f,+d,+c";
      return features.isEmpty() ? base : base + "," + features;
    }
    return features;
  }

  /** {@code vscale_range(k,k)}'s k for {@link #vectorBits} (0 when none). */
  public int vscale() {
    if (vectorBits == 0) return 0;
    return arch() == TargetArch.RISCV64 ? vectorBits / 64 : vectorBits / 128;
  }

  /** A target machine for this target (owned: close it). */
  public TargetMachine targetMachine() {
    return TargetMachine.create(triple, cpuOrGeneric(), effectiveFeatures());
  }

  /**
   * Makes {@code m} this target's (see the class comment). Functions of a module that already had this
   * triple keep their attributes where this spec gives none.
   */
  public void applyTo(LlvmModule m) {
    String old = m.targetTriple();
    boolean otherFamily = old.isEmpty() ? TargetArch.isCross(triple)
        : TargetArch.of(old) != arch();
    String layout;
    try (TargetMachine tm = targetMachine()) {
      layout = tm.dataLayout();
    }
    m.setTargetTriple(triple);
    m.setDataLayout(layout);
    for (Function f : m.functions()) {
      if (f.isDeclaration()) continue;
      if (otherFamily) {
        f.removeStringAttribute("target-cpu");
        f.removeStringAttribute("target-features");
        f.removeStringAttribute("tune-cpu");
        f.removeStringAttribute("min-legal-vector-width");
        f.removeStringAttribute("prefer-vector-width");
      }
      if (!cpu.isEmpty() || otherFamily) f.setStringAttribute("target-cpu", cpuOrGeneric());
      // (a named CPU is also the tuning CPU, as with clang -march=CPU: generic bitcode's "tune-cpu"="generic" would
      // keep LLVM's generic tuning, e.g. AVX2 gathers expanded lane by lane on a CPU with fast ones)
      if (!cpu.isEmpty()) f.removeStringAttribute("tune-cpu");
      if (!features.isEmpty() || otherFamily) f.setStringAttribute("target-features", effectiveFeatures());
      if (vectorBits != 0) f.setEnumAttributeValue("vscale_range", ((long) vscale() << 32) | vscale());
    }
  }

  /** Parses {@code aarch64-linux-gnu} and friends into a spec with the given CPU/features/bits. */
  public static TargetSpec of(String triple, String cpu, String features, int vectorBits) {
    return new TargetSpec(triple.strip().toLowerCase(Locale.ROOT), cpu, features, vectorBits);
  }

  @Override public String toString() {
    return triple + (cpu.isEmpty() ? "" : " cpu=" + cpu) + (features.isEmpty() ? "" : " features=" + features)
        + (vectorBits == 0 ? "" : " vector-bits=" + vectorBits);
  }
}
