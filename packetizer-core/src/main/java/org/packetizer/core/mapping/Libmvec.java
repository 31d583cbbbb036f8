package org.packetizer.core.mapping;

import java.util.Map;
import java.util.Optional;

/**
 * glibc's vector math library (libmvec, present on every x86-64 Linux): names follow the x86 vector
 * function ABI, {@code _ZGV<isa>N<lanes><params>_<name>}, with isa {@code b} (SSE, 128-bit),
 * {@code c} (AVX), {@code d} (AVX2, 256-bit) and {@code e} (AVX-512, 512-bit). glibc documents a
 * maximum error of 4 ULP for these functions (the scalar libm is correctly rounded or within 1 ULP),
 * so code using them is checked with that tolerance.
 */
public final class Libmvec {
  private Libmvec() {}

  /** Documented maximum error of libmvec functions, in units in the last place. */
  public static final int MAX_ULPS = 4;

  /** Intrinsic base name -> (libm float name, number of vector params). Functions present since glibc 2.22/2.35. */
  private static final Map<String, String> NAMES = Map.ofEntries(
      Map.entry("llvm.sin", "sin"), Map.entry("llvm.cos", "cos"), Map.entry("llvm.exp", "exp"),
      Map.entry("llvm.log", "log"), Map.entry("llvm.pow", "pow"), Map.entry("llvm.exp2", "exp2"),
      Map.entry("llvm.exp10", "exp10"), Map.entry("llvm.log2", "log2"), Map.entry("llvm.log10", "log10"),
      Map.entry("llvm.tan", "tan"), Map.entry("llvm.asin", "asin"), Map.entry("llvm.acos", "acos"),
      Map.entry("llvm.atan", "atan"), Map.entry("llvm.atan2", "atan2"), Map.entry("llvm.sinh", "sinh"),
      Map.entry("llvm.cosh", "cosh"), Map.entry("llvm.tanh", "tanh"));

  /** One libmvec variant: its symbol and how many lanes one call handles. */
  public record Variant(String symbol, int lanes, int arity) {}

  /**
   * The best variant for an intrinsic on float ({@code isDouble=false}) or double elements, for a
   * function with the given target feature string, handling at most {@code width} lanes per call.
   */
  public static Optional<Variant> variant(String intrinsic, boolean isDouble, String features, int width) {
    return variant(intrinsic, isDouble, "", features, width);
  }

  /**
   * As {@link #variant(String, boolean, String, int)} for a target triple: only x86-64 targets (and
   * the empty triple: the host) have these variants. AArch64 glibc has AdvSIMD ({@code _ZGVnN4v_sinf})
   * and SVE ({@code _ZGVsMxv_sinf}) variants only from glibc 2.38 on, and the Debian 12 cross C library
   * this project tests with (2.36) has no libmvec for AArch64 at all ({@code /usr/aarch64-linux-gnu/lib}
   * holds no {@code libmvec.so}); RISC-V glibc has none. There, math stays on LLVM's intrinsics.
   */
  public static Optional<Variant> variant(String intrinsic, boolean isDouble, String triple, String features, int width) {
    if (org.packetizer.core.ir.TargetArch.of(triple) != org.packetizer.core.ir.TargetArch.X86) {
      return Optional.empty();
    }
    String base = NAMES.get(intrinsic);
    if (base == null) return Optional.empty();
    int arity = intrinsic.equals("llvm.pow") || intrinsic.equals("llvm.atan2") ? 2 : 1;
    return variantOf(base, arity, isDouble, features, width);
  }

  /**
   * The best variant of the libm function {@code base} (double name, e.g. "cbrt") taking
   * {@code arity} vector arguments; whether libmvec has the function at all is the caller's
   * knowledge ({@link VectorMathRoutes}).
   */
  public static Optional<Variant> variantOf(String base, int arity, boolean isDouble, String features, int width) {
    String name = isDouble ? base : base + "f";
    boolean avx512 = has(features, "+avx512f");
    boolean avx2 = has(features, "+avx2");
    boolean avx = has(features, "+avx");
    int perReg = isDouble ? 2 : 4; // lanes in 128 bits
    char isa;
    int lanes;
    if (avx512 && width >= perReg * 4) {
      isa = 'e';
      lanes = perReg * 4;
    } else if (avx2 && width >= perReg * 2) {
      isa = 'd';
      lanes = perReg * 2;
    } else if (avx && width >= perReg * 2) {
      isa = 'c';
      lanes = perReg * 2;
    } else if (width >= perReg) {
      isa = 'b';
      lanes = perReg;
    } else {
      return Optional.empty();
    }
    return Optional.of(new Variant("_ZGV" + isa + "N" + lanes + "v".repeat(arity) + "_" + name, lanes, arity));
  }

  private static boolean has(String features, String f) {
    if (features == null) return false;
    for (String s : features.split(",")) if (s.equals(f)) return true;
    return false;
  }
}
