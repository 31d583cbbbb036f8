package org.packetizer.core.mapping;

import java.util.Map;
import java.util.Optional;

/**
 * SLEEF (Debian {@code libsleef3}, {@code libsleef.so.3}): vector math for the C99 functions glibc's
 * libmvec lacks. Names: {@code Sleef_<fn><f|d><lanes>_u10<isa>}, e.g. {@code Sleef_lgammaf8_u10avx2}
 * (at most 1.0 ULP), with isa {@code sse4} (128-bit), {@code avx2} (256-bit, needs FMA) or
 * {@code avx512f}; arguments and results are plain C vectors ({@code __m256} for f8).
 */
public final class Sleef {
  private Sleef() {}

  /** The shared library the symbols come from (linked by the JIT, {@code -lsleef} for C). */
  public static final String LIBRARY = "libsleef.so.3";

  /** Function (double name) -> (accuracy suffix, max ULP): the functions routed to SLEEF. */
  private static final Map<String, Double> ULPS = Map.of("lgamma", 1.0, "tgamma", 1.0);

  /** The variant of {@code base} for the target's features and width, or empty when SLEEF has none. */
  public static Optional<VectorMathRoutes.Route.Library> variant(String base, int arity, boolean isDouble, String features, int width) {
    Double ulps = ULPS.get(base);
    if (ulps == null) return Optional.empty();
    int perReg = isDouble ? 2 : 4;
    String isa;
    int lanes;
    if (has(features, "+avx512f") && width >= perReg * 4 && width % (perReg * 4) == 0) {
      isa = "avx512f";
      lanes = perReg * 4;
    } else if (has(features, "+avx2") && has(features, "+fma") && width >= perReg * 2 && width % (perReg * 2) == 0) {
      isa = "avx2";
      lanes = perReg * 2;
    } else if (has(features, "+sse4.1") && width % perReg == 0) {
      isa = "sse4";
      lanes = perReg;
    } else {
      return Optional.empty();
    }
    String symbol = "Sleef_" + base + (isDouble ? "d" : "f") + lanes + "_u10" + isa;
    return Optional.of(new VectorMathRoutes.Route.Library("SLEEF", symbol, lanes, arity, ulps));
  }

  private static boolean has(String features, String f) {
    if (features == null) return false;
    for (String s : features.split(",")) if (s.equals(f)) return true;
    return false;
  }
}
