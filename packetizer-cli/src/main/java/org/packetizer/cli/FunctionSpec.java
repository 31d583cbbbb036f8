package org.packetizer.cli;

/**
 * One {@code -f SCALAR[:SIMD]} argument. The default SIMD name is {@code SCALAR_simdW} (e.g.
 * {@code mandelbrot_simd8}).
 */
public record FunctionSpec(String scalar, String simd) {
  public static FunctionSpec parse(String s) {
    int c = s.indexOf(':');
    if (c < 0) return new FunctionSpec(s, null);
    String a = s.substring(0, c);
    String b = s.substring(c + 1);
    if (a.isEmpty()) throw new IllegalArgumentException("empty scalar function name in '" + s + "'");
    return new FunctionSpec(a, b.isEmpty() ? null : b);
  }

  public String simdName(int width) { return simd != null ? simd : defaultSimdName(scalar, width); }

  public static String defaultSimdName(String scalar, int width) { return scalar + "_simd" + width; }
}
