package org.packetizer.core.wrapper;


import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.packetizer.core.ir.Function;
import org.packetizer.core.ir.Llvm;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.ir.TargetArch;

/**
 * The hardware width N: how many {@code float} lanes the widest vector register that the target
 * should use holds — 4 for SSE (and NEON), 8 for AVX/AVX2, 16 for AVX-512.
 *
 * <p>Where the CPU and features come from ({@link #forFunction}, in this order):
 *
 * <ol>
 *   <li>the function's {@code "target-cpu"} / {@code "target-features"} attributes (what clang
 *       writes for {@code -march} and {@code __attribute__((target))});
 *   <li>else the first other defined function of the module that carries them (clang puts the same
 *       pair on every function of a translation unit; a module has no target CPU of its own);
 *   <li>else the host ({@link Llvm#hostCpuName}, {@link Llvm#hostCpuFeatures}).
 * </ol>
 *
 * When only one of the pair is found, the other is taken as empty (the CPU's defaults, or a generic
 * CPU with those features), never from the host: mixing a module's CPU with the host's full feature
 * list (which says {@code -avx512f} on machines without it) would give neither's answer.
 *
 * <p>How the width follows from them ({@link #of}): the CPU name gives a baseline (a table of LLVM's
 * x86 CPU names; unknown and generic x86 CPUs have SSE2, width 4); then the feature string, read left
 * to right with the last mention of a feature winning, can raise it ({@code +avx512f} → 16,
 * {@code +avx}/{@code +avx2} → 8) or lower it ({@code -avx512f} → at most 8, {@code -avx} → at most
 * 4, {@code -sse}/{@code -sse2} → 1). Disabling a feature disables the ones built on it, as in LLVM.
 *
 * <p>LLVM's {@code "prefer-vector-width"="<bits>"} function attribute, when present, wins over the
 * register width in the lowering direction: N = min(register width, bits / 32). (It is what clang's
 * {@code -mprefer-vector-width=} writes.) A larger preference than the registers cannot give more
 * lanes and is ignored. LLVM's per-CPU tuning flag "prefer-256-bit" (set for some AVX-512 Intel CPUs)
 * is not an attribute and is not consulted: those CPUs give 16 unless the attribute says otherwise.
 */
public final class HardwareWidth {
  private HardwareWidth() {}

  /** Lanes of 32 bits in the widest register of each ISA level. */
  public static final int SCALAR = 1;
  public static final int SSE = 4;
  public static final int AVX = 8;
  public static final int AVX512 = 16;

  private static final Set<String> AVX512_CPUS = Set.of(
      "knl", "knm", "skylake-avx512", "skx", "cascadelake", "cooperlake", "cannonlake", "icelake-client",
      "icelake-server", "tigerlake", "rocketlake", "sapphirerapids", "emeraldrapids", "graniterapids",
      "graniterapids-d", "diamondrapids", "znver4", "znver5", "x86-64-v4");

  private static final Set<String> AVX_CPUS = Set.of(
      "sandybridge", "corei7-avx", "ivybridge", "core-avx-i", "haswell", "core-avx2", "broadwell", "skylake",
      "alderlake", "raptorlake", "meteorlake", "arrowlake", "arrowlake-s", "lunarlake", "gracemont",
      "pantherlake", "sierraforest", "grandridge", "clearwaterforest", "bdver1", "bdver2", "bdver3", "bdver4",
      "btver2", "znver1", "znver2", "znver3", "x86-64-v3");

  /** x86 CPUs with AVX2 below AVX-512 (the AVX CPUs without it — Sandy/Ivy Bridge, Bulldozer 1–3, Jaguar — left out). */
  private static final Set<String> AVX2_CPUS = Set.of(
      "haswell", "core-avx2", "broadwell", "skylake", "alderlake", "raptorlake", "meteorlake", "arrowlake", "arrowlake-s",
      "lunarlake", "gracemont", "pantherlake", "sierraforest", "grandridge", "clearwaterforest", "bdver4", "znver1",
      "znver2", "znver3", "x86-64-v3");

  /**
   * The vector features an x86 CPU name implies, as a prefix for a feature string ({@code "+avx2,+avx512f,+avx512vl,"},
   * {@code "+avx2,"} or {@code ""}), for code that tests a feature string where LLVM compiles for the CPU and the string
   * together (a generic bitcode retargeted by {@code --target-cpu} alone keeps its baseline features attribute). Nothing
   * where {@code features} switches the level off ({@link #of(String, String)}); AVX-512 only with AVX512VL (not Knights
   * Landing/Mill).
   */
  public static String impliedVectorFeatures(String cpu, String features) {
    String c = cpu == null ? "" : cpu.strip().toLowerCase(Locale.ROOT);
    int level = of(c, features);
    boolean avx2Off = Boolean.FALSE.equals(parseFeatures(features).get("avx2"));
    if (AVX512_CPUS.contains(c) && !c.startsWith("kn") && level == AVX512 && !avx2Off
        && !Boolean.FALSE.equals(parseFeatures(features).get("avx512vl"))) {
      return "+avx2,+avx512f,+avx512vl,";
    }
    if ((AVX512_CPUS.contains(c) || AVX2_CPUS.contains(c)) && level >= AVX && !avx2Off) return "+avx2,";
    return "";
  }

  /** Pre-SSE x86 CPUs (no 128-bit float registers). */
  private static final Set<String> SCALAR_CPUS = Set.of(
      "i386", "i486", "i586", "pentium", "pentium-mmx", "i686", "pentiumpro", "pentium2", "k6", "k6-2", "k6-3",
      "winchip-c6", "winchip2", "c3", "geode", "lakemont");

  /** Features that need AVX-512F (disabled with it). */
  private static final String AVX512_PREFIX = "avx512";

  /**
   * The width for a CPU name and an LLVM feature string ({@code "+avx2,-avx512f"}); either may be
   * null or empty.
   */
  public static int of(String cpu, String features) {
    String c = cpu == null ? "" : cpu.strip().toLowerCase(Locale.ROOT);
    int level;
    if (AVX512_CPUS.contains(c)) level = AVX512;
    else if (AVX_CPUS.contains(c)) level = AVX;
    else if (SCALAR_CPUS.contains(c)) level = SCALAR;
    else level = SSE; // x86-64, x86-64-v2, generic, the SSE-era CPUs, unknown names; also NEON-class targets

    Map<String, Boolean> f = parseFeatures(features);
    boolean sse = level >= SSE;
    boolean avx = level >= AVX;
    boolean avx512 = level >= AVX512;
    // raising: any mention of a feature that implies the level
    for (var e : f.entrySet()) {
      if (!e.getValue()) continue;
      String k = e.getKey();
      if (k.startsWith(AVX512_PREFIX) || k.equals("avx10.1-512")) avx512 = true;
      if (k.equals("avx") || k.equals("avx2") || k.equals("fma") || k.equals("f16c")) avx = true;
      if (k.startsWith("sse") || k.equals("neon") || k.equals("altivec") || k.equals("simd128")) sse = true;
    }
    if (avx512) avx = true;
    if (avx) sse = true;
    // lowering: an explicit "-feature" switches off everything built on it
    if (Boolean.FALSE.equals(f.get("sse")) || Boolean.FALSE.equals(f.get("sse2"))) {
      sse = false;
      avx = false;
      avx512 = false;
    }
    if (Boolean.FALSE.equals(f.get("avx"))) {
      avx = false;
      avx512 = false;
    }
    if (Boolean.FALSE.equals(f.get("avx512f")) || Boolean.FALSE.equals(f.get("evex512"))) avx512 = false;
    if (avx512) return AVX512;
    if (avx) return AVX;
    if (sse) return SSE;
    return SCALAR;
  }

  /**
   * The width for a target triple, CPU, feature string and the function's {@code vscale_range}
   * minimum (0 when absent): x86 as {@link #of(String, String)}; AArch64: NEON gives 4 (128 bits)
   * unless {@code -neon}; with {@code +sve}/{@code +sve2} and a fixed {@code vscale_range(k,k)} (what
   * clang's {@code -msve-vector-bits=128k} writes) 4k, else 4 (NEON's width: SVE registers are at
   * least 128 bits); RISC-V: no vector unit without {@code +v} (or {@code +zve32f}/{@code +zve64*}),
   * else VLEN/32 lanes where VLEN is the largest {@code +zvl<N>b} feature or {@code vscale_range}
   * minimum × 64 (clang's {@code -mrvv-vector-bits}), at least 128 for {@code +v}.
   */
  public static int of(String triple, String cpu, String features, long vscaleMin) {
    TargetArch arch = TargetArch.of(triple);
    if (arch == TargetArch.X86 || arch == TargetArch.OTHER) return of(cpu, features);
    Map<String, Boolean> f = parseFeatures(features);
    if (arch == TargetArch.AARCH64) {
      if (Boolean.FALSE.equals(f.get("neon")) || Boolean.FALSE.equals(f.get("fp-armv8"))) return SCALAR;
      boolean sve = Boolean.TRUE.equals(f.get("sve")) || Boolean.TRUE.equals(f.get("sve2"));
      if (sve && vscaleMin > 1) return (int) Math.min(64, 4 * vscaleMin);
      return SSE;
    }
    boolean v = Boolean.TRUE.equals(f.get("v")) || Boolean.TRUE.equals(f.get("zve32f"))
        || Boolean.TRUE.equals(f.get("zve64f")) || Boolean.TRUE.equals(f.get("zve64d"));
    if (!v) return SCALAR;
    long vlen = Boolean.TRUE.equals(f.get("v")) ? 128 : 32;
    for (var e : f.entrySet()) {
      String k = e.getKey();
      if (e.getValue() && k.startsWith("zvl") && k.endsWith("b")) {
        try {
          vlen = Math.max(vlen, Long.parseLong(k.substring(3, k.length() - 1)));
        } catch (NumberFormatException ignored) {
          // not a zvl<N>b feature
        }
      }
    }
    if (vscaleMin > 0) vlen = Math.max(vlen, 64 * vscaleMin);
    return (int) Math.max(SCALAR, Math.min(64, vlen / 32));
  }

  /** The minimum of a function's {@code vscale_range} attribute, 0 when it has none. */
  public static long vscaleMin(Function f) {
    return f.enumAttributeValue("vscale_range").map(v -> v >>> 32).orElse(0L);
  }

  /** Feature name → enabled, the last mention winning. */
  static Map<String, Boolean> parseFeatures(String features) {
    Map<String, Boolean> out = new LinkedHashMap<>();
    if (features == null) return out;
    for (String raw : features.split(",")) {
      String t = raw.strip().toLowerCase(Locale.ROOT);
      if (t.length() < 2) continue;
      char sign = t.charAt(0);
      if (sign != '+' && sign != '-') continue;
      String name = t.substring(1);
      out.remove(name);
      out.put(name, sign == '+');
    }
    return out;
  }

  /** The host's width (its CPU name and features). */
  public static int host() {
    Llvm.init();
    return of(Llvm.hostCpuName(), Llvm.hostCpuFeatures());
  }

  /** The width for {@code f} (see the class comment for where CPU and features are read). */
  public static int forFunction(Function f) {
    return resolve(f, null, null).width();
  }

  /**
   * What detection found for {@code f}, with optional overrides of the CPU and feature string (a
   * null override means "detect").
   */
  public static Target resolve(Function f, String cpuOverride, String featuresOverride) {
    String cpu = cpuOverride;
    String features = featuresOverride;
    String source = cpuOverride != null || featuresOverride != null ? "options" : null;
    if (cpu == null || features == null) {
      Optional<String> fc = f.stringAttribute("target-cpu");
      Optional<String> ff = f.stringAttribute("target-features");
      if (fc.isEmpty() && ff.isEmpty()) {
        LlvmModule m = f.module();
        for (Function g : m.functions()) {
          if (g.isDeclaration()) continue;
          fc = g.stringAttribute("target-cpu");
          ff = g.stringAttribute("target-features");
          if (fc.isPresent() || ff.isPresent()) {
            if (source == null) source = "module (@" + g.name() + ")";
            break;
          }
        }
      } else if (source == null) {
        source = "function";
      }
      if (fc.isEmpty() && ff.isEmpty() && cpu == null && features == null && !crossTarget(f.module().targetTriple())) {
        cpu = Llvm.hostCpuName();
        features = Llvm.hostCpuFeatures();
        source = "host";
      } else {
        if (cpu == null) cpu = fc.orElse("");
        if (features == null) features = ff.orElse("");
      }
    }
    String triple = f.module().targetTriple();
    int width = of(triple, cpu, features, vscaleMin(f));
    if (source == null) source = "target triple " + triple + " defaults";
    Optional<String> prefer = f.stringAttribute("prefer-vector-width");
    if (prefer.isPresent()) {
      try {
        int bits = Integer.parseInt(prefer.get().strip());
        if (bits >= 32) width = Math.min(width, bits / 32);
      } catch (NumberFormatException ignored) {
        // a malformed attribute is ignored, as LLVM does
      }
    }
    return new Target(cpu, features, width, source);
  }

  /** Whether {@code triple} names another instruction set family than the host's. */
  public static boolean crossTarget(String triple) { return TargetArch.isCross(triple); }

  /**
   * Whether LLVM 20 lowers {@code llvm.masked.gather} to gather instructions on this CPU and feature
   * string: AVX-512 targets, and the AVX2 CPUs it tunes as having fast gathers (Intel Skylake and
   * later client cores, and Clearwater Forest). Elsewhere (Haswell, Broadwell, Zen 1-3, x86-64-v3) it expands a gather into
   * scalar loads of extracted pointers. Checked against the bundled llc by TableLookupTest.fastGatherCpusAgreeWithLlvm.
   */
  public static boolean fastGathers(String cpu, String features) {
    if (features != null && features.contains("+avx512f")) return true;
    int width = of(cpu, features);
    if (width >= AVX512) return true;
    return width == AVX && cpu != null && FAST_GATHER_AVX2.contains(cpu);
  }

  // (checked against the bundled llc, TableLookupTest.fastGatherCpusAgreeWithLlvm: of the AVX2 CPUs these are the ones
  // LLVM 20 tunes with fast gathers, clearwaterforest included; gracemont, sierraforest and grandridge are not)
  private static final java.util.Set<String> FAST_GATHER_AVX2 = java.util.Set.of("skylake", "alderlake", "raptorlake", "meteorlake",
      "arrowlake", "arrowlake-s", "lunarlake", "pantherlake", "clearwaterforest");

  /**
   * A detection result.
   *
   * @param cpu      the CPU name used ("" when none was found)
   * @param features the feature string used
   * @param width    the hardware width N
   * @param source   where CPU and features came from: "options", "function", "module (@f)", "host"
   */
  public record Target(String cpu, String features, int width, String source) {}
}
