package org.packetizer.core.api;

/**
 * How a parameter of the scalar function appears in the packet function (OpenMP {@code declare simd}
 * / vector-function-ABI semantics, plus the thesis' struct-of-arrays pointers).
 */
public sealed interface ParamKind {
  /** Each lane has its own value: a scalar {@code T} becomes {@code <W x T>}; a pointer becomes {@code <W x ptr>}. */
  record Varying() implements ParamKind {}

  /** All lanes share one value of the scalar type (for a pointer: the same object). */
  record Uniform() implements ParamKind {}

  /**
   * Lane k sees {@code base + k * step}: an integer index (step in units), or a pointer (step in
   * bytes). The packet takes the scalar type (the base).
   */
  record Linear(long step) implements ParamKind {}

  /**
   * A pointer to one object of the pointee type per lane, laid out as struct-of-arrays: the packet
   * takes a pointer to {@code packetize(pointee)} (thesis Fig 4.4).
   */
  record SoaPointer() implements ParamKind {}

  ParamKind VARYING = new Varying();
  ParamKind UNIFORM = new Uniform();
  ParamKind SOA = new SoaPointer();

  static ParamKind linear(long step) { return new Linear(step); }

  /** The vector-function-ABI letter(s): v, u, l / lN, s (our extension for struct-of-arrays). */
  default String letters() {
    return switch (this) {
      case Varying v -> "v";
      case Uniform u -> "u";
      case Linear l -> l.step() == 1 ? "l" : "l" + (l.step() < 0 ? "n" + (-l.step()) : l.step());
      case SoaPointer s -> "s";
    };
  }

  /**
   * Parses parameter letters, one kind per parameter: {@code v} varying, {@code u} uniform, {@code l}
   * or {@code lN} linear with step N ({@code lnN} for -N), {@code s} struct-of-arrays pointer; an
   * {@code aN} suffix (alignment) is accepted and ignored here.
   */
  static java.util.List<ParamKind> parseLetters(String s) {
    java.util.List<ParamKind> out = new java.util.ArrayList<>();
    int i = 0;
    while (i < s.length()) {
      char c = s.charAt(i++);
      ParamKind k;
      switch (c) {
        case 'v' -> k = VARYING;
        case 'u' -> k = UNIFORM;
        case 's' -> k = SOA;
        case 'l' -> {
          boolean neg = i < s.length() && s.charAt(i) == 'n';
          if (neg) i++;
          int start = i;
          while (i < s.length() && Character.isDigit(s.charAt(i))) i++;
          long step = start == i ? 1 : Long.parseLong(s.substring(start, i));
          k = linear(neg ? -step : step);
        }
        default -> throw new IllegalArgumentException(
            "bad parameter letter '" + c + "' at position " + (i - 1) + " in '" + s + "' (expected v, u, l, lN, s)");
      }
      if (i < s.length() && s.charAt(i) == 'a') {
        i++;
        int start = i;
        while (i < s.length() && Character.isDigit(s.charAt(i))) i++;
        if (start == i) throw new IllegalArgumentException("'a' needs an alignment number in '" + s + "'");
      }
      out.add(k);
    }
    return out;
  }
}
