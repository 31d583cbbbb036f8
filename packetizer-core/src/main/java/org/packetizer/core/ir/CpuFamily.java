package org.packetizer.core.ir;

import java.util.Locale;
import java.util.Set;

/**
 * Which kind of core an LLVM CPU name is, for the decisions that differ by family (the interleave rule's latency table,
 * {@code wrapper.Latency.Family}; the glibc-exact helpers' and the program's table-lookup routes): Intel's big cores
 * from Haswell and the ISA levels LLVM schedules as them; the generic names LLVM schedules with its Sandy Bridge model;
 * every other x86 name (AMD Zen among them); AArch64. A name, never the host: the caller passes the options' CPU or the
 * function's {@code target-cpu} (the host's name where neither is set).
 */
public enum CpuFamily {
  /** AMD Zen and every other x86 CPU name not below. */
  GENERIC,
  /** {@code x86-64}, {@code x86-64-v2}, {@code generic}, empty, and the cores before Haswell. */
  SANDY_BRIDGE,
  /** Intel's big cores from Haswell to Granite Rapids (incl. the Alder/Raptor Lake P-cores), {@code x86-64-v3/v4}. */
  INTEL,
  /** AArch64. */
  ARM;

  /**
   * Latency in cycles of an integer multiply of {@code bits}-bit elements on this family, by the vector instruction a
   * varying multiply becomes (the one table that the interleave rule's {@code wrapper.Latency} and the packet function's
   * {@code widen.MulShifts} read; issue 16, twenty-third round); {@code vpmullq}: whether a 64-bit element has its own
   * instruction (AVX-512DQ), else LLVM's emulation (three {@code pmuludq}, shifts and adds). Intel from Haswell
   * ({@link #INTEL}): {@code vpmullw} 5 (bytes go through words), {@code vpmulld} 10, {@code vpmullq} 15, emulated 9
   * (uops.info and Agner Fog's tables for Haswell, Skylake(-X), Ice Lake, Alder Lake-P; LLVM 20's models alike; a chain
   * of {@code vpmulld} measured 9.4-14 times a chain of {@code vpaddd} on this project's host); {@link #SANDY_BRIDGE}
   * (LLVM's model for the generic names): {@code pmullw}/{@code pmulld} 5, 64-bit 7; {@link #GENERIC} (AMD Zen): 3, a
   * 64-bit emulation 6; {@link #ARM}: 3. A multiply by a constant that LLVM lowers to a shift and an add is not this
   * table's business (the callers judge the constant).
   */
  public int multiplyLatency(int bits, boolean vpmullq) {
    return switch (this) {
      case INTEL -> bits <= 16 ? 5 : bits <= 32 ? 10 : vpmullq ? 15 : 9;
      case SANDY_BRIDGE -> bits <= 32 ? 5 : 7;
      case GENERIC -> bits <= 32 ? 3 : vpmullq ? 3 : 6;
      case ARM -> 3;
    };
  }

  /** Intel cores from Haswell on (LLVM's CPU names). */
  private static final Set<String> INTEL_CPUS = Set.of("haswell", "core-avx2", "broadwell", "skylake",
      "skylake-avx512", "skx", "cascadelake", "cooperlake", "cannonlake", "icelake-client", "icelake-server", "tigerlake",
      "rocketlake", "sapphirerapids", "emeraldrapids", "graniterapids", "graniterapids-d", "alderlake", "raptorlake",
      "meteorlake", "arrowlake", "arrowlake-s", "lunarlake", "pantherlake");

  /** The generic ISA levels that LLVM schedules as Haswell ({@code x86-64-v3}) and Skylake-server ({@code x86-64-v4}). */
  private static final Set<String> INTEL_MODELLED_LEVELS = Set.of("x86-64-v3", "x86-64-v4");

  /** The names LLVM schedules with its Sandy Bridge model (generic names and the cores before Haswell). */
  private static final Set<String> SANDY_BRIDGE_MODELLED = Set.of("", "generic", "x86-64", "x86-64-v2",
      "core2", "penryn", "nehalem", "corei7", "westmere", "sandybridge", "corei7-avx", "ivybridge", "core-avx-i");

  /**
   * The family of {@code cpu} (an LLVM CPU name, empty: generic; null: not known, {@link #GENERIC}); {@code arm}:
   * AArch64 whatever the name. The generic names follow LLVM's own scheduling model for the name (target-determined,
   * never the host's), unless {@link #genericNamesAsLlvm()} is off; with {@link #familyTables()} off every x86 name is
   * {@link #GENERIC}.
   */
  public static CpuFamily of(String cpu, boolean arm) {
    if (arm) return ARM;
    if (!familyTables() || cpu == null) return GENERIC;
    String c = cpu.strip().toLowerCase(Locale.ROOT);
    if (INTEL_CPUS.contains(c)) return INTEL;
    if (!genericNamesAsLlvm()) return GENERIC;
    if (INTEL_MODELLED_LEVELS.contains(c)) return INTEL;
    if (SANDY_BRIDGE_MODELLED.contains(c)) return SANDY_BRIDGE;
    return GENERIC;
  }

  /**
   * Knob {@code -Dpacketizer.latency.perCpu=false} (read at each use; a measuring switch): every x86 CPU is
   * {@link #GENERIC}, as before the eighteenth round.
   */
  public static boolean familyTables() { return !"false".equals(System.getProperty("packetizer.latency.perCpu")); }

  /**
   * Knob {@code -Dpacketizer.latency.genericNames=generic} (read at each use; default {@code llvm}): the generic names
   * ({@code x86-64}, {@code x86-64-v2/v3/v4}, {@code generic}, empty) and the pre-Haswell Intel cores are
   * {@link #GENERIC}, the rule before the nineteenth round; {@code llvm}: the family of LLVM's scheduling model for the
   * name.
   */
  public static boolean genericNamesAsLlvm() {
    String v = System.getProperty("packetizer.latency.genericNames", "llvm").strip();
    if (v.equals("llvm")) return true;
    if (v.equals("generic")) return false;
    throw new IllegalArgumentException("packetizer.latency.genericNames: expected llvm or generic, not " + v);
  }
}
