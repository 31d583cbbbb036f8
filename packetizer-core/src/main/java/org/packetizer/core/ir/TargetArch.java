package org.packetizer.core.ir;

import java.util.Locale;

/** The instruction set families the packetizer tells apart, from an LLVM target triple. */
public enum TargetArch {
  X86, AARCH64, RISCV64, OTHER;

  /** The family of an LLVM target triple; an empty triple is the host's. */
  public static TargetArch of(String triple) {
    String t = triple == null ? "" : triple.strip().toLowerCase(Locale.ROOT);
    if (t.isEmpty()) t = Llvm.hostTriple().toLowerCase(Locale.ROOT);
    if (t.startsWith("x86_64") || t.startsWith("i386") || t.startsWith("i686") || t.startsWith("x86")) return X86;
    if (t.startsWith("aarch64") || t.startsWith("arm64")) return AARCH64;
    if (t.startsWith("riscv64")) return RISCV64;
    return OTHER;
  }

  /** Whether {@code triple} names another family than the host's (its code runs under an emulator here). */
  public static boolean isCross(String triple) {
    if (triple == null || triple.isBlank()) return false;
    return of(triple) != of(Llvm.hostTriple());
  }
}
