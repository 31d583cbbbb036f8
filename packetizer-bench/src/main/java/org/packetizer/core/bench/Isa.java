package org.packetizer.core.bench;

import java.util.List;
import java.util.Locale;
import org.packetizer.core.ir.Llvm;

/**
 * An instruction-set level the benchmark compiles for: a display name, the LLVM/clang CPU name every
 * loop is compiled for ({@code -march} for clang, {@code target-cpu} for the JIT) and the host CPU
 * features that must be present to run the code.
 *
 * @param name         short display name ("SSE4.2", "AVX2", "AVX-512")
 * @param cpu          CPU name for clang's {@code -march} and LLVM's {@code target-cpu}
 * @param hostFeatures features (without '+') the host must report to run code for {@code cpu}
 */
public record Isa(String name, String cpu, List<String> hostFeatures) {
  public Isa {
    hostFeatures = List.copyOf(hostFeatures);
  }

  /** SSE4.2: the x86-64-v2 level. */
  public static final Isa SSE42 = new Isa("SSE4.2", "x86-64-v2", List.of("sse4.2", "popcnt"));

  /** AVX2 on Haswell (with FMA; the loops are compiled with -ffp-contract=off, so FMA is not used for a*b+c). */
  public static final Isa AVX2 = new Isa("AVX2", "haswell", List.of("avx2", "fma", "bmi2"));

  /** AVX-512 (F, BW, DQ, VL, CD) on Skylake-SP. */
  public static final Isa AVX512_SKX = new Isa("AVX-512", "skylake-avx512",
      List.of("avx512f", "avx512bw", "avx512dq", "avx512vl", "avx512cd"));

  /** AVX-512 on Zen 4 (512-bit operations run as two 256-bit halves). */
  public static final Isa AVX512_ZNVER4 = new Isa("AVX-512", "znver4",
      List.of("avx512f", "avx512bw", "avx512dq", "avx512vl", "avx512cd", "avx512vbmi"));

  /** The AVX-512 level for this host: znver4 on a Zen 4 (or newer AMD) host, skylake-avx512 otherwise. */
  public static Isa avx512ForHost() {
    String cpu = Llvm.hostCpuName();
    return cpu.startsWith("znver") && !cpu.equals("znver1") && !cpu.equals("znver2") && !cpu.equals("znver3")
        ? new Isa("AVX-512", cpu, AVX512_ZNVER4.hostFeatures()) : AVX512_SKX;
  }

  /**
   * An ISA by name: {@code sse4.2}/{@code sse42}, {@code avx2}, {@code avx512} (host-dependent CPU),
   * or {@code avx512@CPU} / {@code NAME@CPU} to name the CPU explicitly.
   */
  public static Isa parse(String s) {
    String t = s.trim().toLowerCase(Locale.ROOT);
    String cpu = null;
    int at = t.indexOf('@');
    if (at >= 0) {
      cpu = t.substring(at + 1);
      t = t.substring(0, at);
      if (cpu.isEmpty()) throw new IllegalArgumentException("empty CPU name in '" + s + "'");
    }
    Isa base = switch (t.replace("-", "").replace("_", "")) {
      case "sse4.2", "sse42", "sse4", "x8664v2" -> SSE42;
      case "avx2", "haswell" -> AVX2;
      case "avx512", "avx512f" -> avx512ForHost();
      default -> throw new IllegalArgumentException("unknown ISA '" + s + "' (expected sse4.2, avx2, avx512, optionally @CPU)");
    };
    return cpu == null ? base : new Isa(base.name(), cpu, base.hostFeatures());
  }

  /** The features this host is missing to run code for this ISA (empty: it can run it). */
  public List<String> missingOnHost() {
    String host = "," + Llvm.hostCpuFeatures() + ",";
    return hostFeatures.stream().filter(f -> !host.contains(",+" + f + ",")).toList();
  }

  @Override public String toString() { return name + " (" + cpu + ")"; }
}
