package org.packetizer.core.api;

/**
 * How a parameter of the scalar function appears in the packet function (OpenMP {@code declare simd}
 * / vector-function-ABI semantics, plus the thesis' struct-of-arrays pointers).
 *
 * <p>Every kind carries an {@linkplain #alignment() alignment} in bytes (OpenMP's {@code aligned}
 * clause, the ABI's {@code aN} suffix): a promise that lane 0's value is a multiple of it — for a
 * pointer, its address; for an integer (an extension: OpenMP only aligns pointers), its value. 1 means
 * no promise. The alignment seeds the shape analysis, so that vector loads and stores through such a
 * pointer (or indexed by such an integer) are emitted with the larger alignment. A wrong promise is
 * undefined behaviour, as in OpenMP.
 */
public sealed interface ParamKind {
  /** Each lane has its own value: a scalar {@code T} becomes {@code <W x T>}; a pointer becomes {@code <W x ptr>}. */
  record Varying(long alignment) implements ParamKind {
    public Varying { checkAlignment(alignment); }
    public Varying() { this(1); }
  }

  /** All lanes share one value of the scalar type (for a pointer: the same object). */
  record Uniform(long alignment) implements ParamKind {
    public Uniform { checkAlignment(alignment); }
    public Uniform() { this(1); }
  }

  /**
   * Lane k sees {@code base + k * step}: an integer index (step in units), or a pointer (step in
   * bytes). The packet takes the scalar type (the base).
   */
  record Linear(long step, long alignment) implements ParamKind {
    public Linear { checkAlignment(alignment); }
    public Linear(long step) { this(step, 1); }
  }

  /**
   * A pointer to one object of the pointee type per lane, laid out as struct-of-arrays: the packet
   * takes a pointer to {@code packetize(pointee)} (thesis Fig 4.4).
   */
  record SoaPointer(long alignment) implements ParamKind {
    public SoaPointer { checkAlignment(alignment); }
    public SoaPointer() { this(1); }
  }

  ParamKind VARYING = new Varying();
  ParamKind UNIFORM = new Uniform();
  ParamKind SOA = new SoaPointer();

  static ParamKind linear(long step) { return new Linear(step); }

  /** The promised alignment of lane 0's value in bytes (a power of two; 1 = none). */
  long alignment();

  /** The same kind with another alignment. */
  default ParamKind withAlignment(long alignment) {
    return switch (this) {
      case Varying v -> new Varying(alignment);
      case Uniform u -> new Uniform(alignment);
      case Linear l -> new Linear(l.step(), alignment);
      case SoaPointer s -> new SoaPointer(alignment);
    };
  }

  /**
   * The vector-function-ABI letter(s): v, u, l / lN / lnN, s (our extension for struct-of-arrays),
   * followed by {@code aN} when the alignment is larger than 1.
   */
  default String letters() {
    String base = switch (this) {
      case Varying v -> "v";
      case Uniform u -> "u";
      case Linear l -> l.step() == 1 ? "l" : "l" + (l.step() < 0 ? "n" + (-l.step()) : l.step());
      case SoaPointer s -> "s";
    };
    return alignment() > 1 ? base + "a" + alignment() : base;
  }

  /**
   * Parses parameter letters, one kind per parameter: {@code v} varying, {@code u} uniform, {@code l}
   * or {@code lN} linear with step N ({@code lnN} for -N), {@code s} struct-of-arrays pointer; each may
   * be followed by {@code aN}, an alignment of N bytes (a power of two). The inverse of
   * {@link #letters()}: {@code parseLetters("vua32l4a16")} gives varying, uniform aligned to 32,
   * linear with step 4 aligned to 16.
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
          if (neg && start == i) throw new IllegalArgumentException("'ln' needs a step number in '" + s + "'");
          long step = start == i ? 1 : parseNumber(s, start, i);
          if (step == 0) throw new IllegalArgumentException("a linear step must not be 0 (that is 'u') in '" + s + "'");
          k = linear(neg ? -step : step);
        }
        default -> throw new IllegalArgumentException(
            "bad parameter letter '" + c + "' at position " + (i - 1) + " in '" + s + "' (expected v, u, l, lN, lnN, s, each optionally followed by aN)");
      }
      if (i < s.length() && s.charAt(i) == 'a') {
        i++;
        int start = i;
        while (i < s.length() && Character.isDigit(s.charAt(i))) i++;
        if (start == i) throw new IllegalArgumentException("'a' needs an alignment number in '" + s + "'");
        long a = parseNumber(s, start, i);
        if (a < 1 || Long.bitCount(a) != 1) {
          throw new IllegalArgumentException("alignment " + a + " in '" + s + "' is not a power of two");
        }
        k = k.withAlignment(a);
      }
      out.add(k);
    }
    return out;
  }

  private static long parseNumber(String s, int from, int to) {
    try {
      return Long.parseLong(s.substring(from, to));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("number '" + s.substring(from, to) + "' is too large in '" + s + "'");
    }
  }

  private static void checkAlignment(long a) {
    if (a < 1 || Long.bitCount(a) != 1) throw new IllegalArgumentException("alignment must be a power of two, got " + a);
  }
}
