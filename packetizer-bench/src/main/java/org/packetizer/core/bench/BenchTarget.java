package org.packetizer.core.bench;

import java.util.ArrayList;
import java.util.List;

/**
 * One measured configuration: packet width W and the ISA all three loops are compiled for.
 *
 * @param width packet width of the packet function (lanes per call)
 * @param isa   what the scalar, auto-vectorized and packet loops are compiled for
 */
public record BenchTarget(int width, Isa isa) {
  public BenchTarget {
    if (width < 2 || Integer.bitCount(width) != 1) throw new IllegalArgumentException("width must be a power of two >= 2: " + width);
  }

  /** The default set: W=4 on SSE4.2, W=8 on AVX2, W=16 on AVX-512. */
  public static List<BenchTarget> defaults() {
    return List.of(new BenchTarget(4, Isa.SSE42), new BenchTarget(8, Isa.AVX2), new BenchTarget(16, Isa.avx512ForHost()));
  }

  /** Parses {@code W:ISA[,W:ISA...]}, e.g. {@code 4:sse4.2,8:avx2,16:avx512,8:avx512@znver4}. */
  public static List<BenchTarget> parseList(String s) {
    List<BenchTarget> out = new ArrayList<>();
    for (String part : s.split(",")) {
      String p = part.trim();
      if (p.isEmpty()) continue;
      int c = p.indexOf(':');
      if (c < 0) throw new IllegalArgumentException("target '" + p + "' must be WIDTH:ISA, e.g. 8:avx2");
      int w;
      try {
        w = Integer.parseInt(p.substring(0, c).trim());
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("bad width in target '" + p + "'");
      }
      out.add(new BenchTarget(w, Isa.parse(p.substring(c + 1))));
    }
    if (out.isEmpty()) throw new IllegalArgumentException("no targets in '" + s + "'");
    return out;
  }

  /** "W8/AVX2". */
  public String label() { return "W" + width + "/" + isa.name(); }

  /** The form {@link #parseList} reads back. */
  public String spec() { return width + ":" + isa.name().toLowerCase(java.util.Locale.ROOT).replace("-", "") + "@" + isa.cpu(); }

  @Override public String toString() { return label() + " (" + isa.cpu() + ")"; }
}
