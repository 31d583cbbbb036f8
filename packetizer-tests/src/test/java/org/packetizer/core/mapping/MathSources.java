package org.packetizer.core.mapping;

import java.util.ArrayList;
import java.util.List;
import org.packetizer.core.mapping.VectorMathRoutes.MathFunction;
import org.packetizer.core.mapping.VectorMathRoutes.Shape;

/**
 * C sources that call every C99 {@code <math.h>} function of {@link VectorMathRoutes#functions()} as
 * a C programmer writes it: one wrapper {@code T m_<fn>(...)} per function and type, prototypes
 * declared by hand (the bundled clang compiles without system headers). Functions with a pointer,
 * string or long double argument get a wrapper that returns everything they compute.
 */
final class MathSources {
  private MathSources() {}

  /** The ISAs of the table and the tests: width, clang -march, short name. */
  record Isa(int width, String march, String name) {}

  static final List<Isa> ISAS = List.of(new Isa(4, "x86-64-v2", "W4/SSE4.2"), new Isa(8, "haswell", "W8/AVX2"),
      new Isa(16, "x86-64-v4", "W16/AVX-512"));

  /** The wrapper's name for a function and type. */
  static String wrapper(MathFunction f, boolean dbl) { return "m_" + f.name(dbl); }

  /** The parameter letters of a wrapper, for {@code PacketizerOptions.params}. */
  static String params(MathFunction f) {
    return switch (f.shape()) {
      case UNARY, INT_OF_T, LONG_OF_T -> "v";
      case BINARY, T_INT, T_LONG -> "vv";
      case TERNARY -> "vvv";
      case OTHER -> f.name().equals("remquo") || f.name().equals("nexttoward") ? "vv" : "v";
    };
  }

  static String source() {
    StringBuilder s = new StringBuilder();
    List<String> protos = new ArrayList<>();
    for (MathFunction f : VectorMathRoutes.functions()) {
      for (boolean dbl : new boolean[] {false, true}) {
        String t = dbl ? "double" : "float";
        String n = f.name(dbl);
        String w = wrapper(f, dbl);
        switch (f.shape()) {
          case UNARY -> { protos.add(t + " " + n + "(" + t + ");"); s.append(t).append(" ").append(w).append("(").append(t).append(" x) { return ").append(n).append("(x); }\n"); }
          case BINARY -> { protos.add(t + " " + n + "(" + t + ", " + t + ");"); s.append(t).append(" ").append(w).append("(").append(t).append(" x, ").append(t).append(" y) { return ").append(n).append("(x, y); }\n"); }
          case TERNARY -> { protos.add(t + " " + n + "(" + t + ", " + t + ", " + t + ");"); s.append(t).append(" ").append(w).append("(").append(t).append(" x, ").append(t).append(" y, ").append(t).append(" z) { return ").append(n).append("(x, y, z); }\n"); }
          case T_INT -> { protos.add(t + " " + n + "(" + t + ", int);"); s.append(t).append(" ").append(w).append("(").append(t).append(" x, int e) { return ").append(n).append("(x, e); }\n"); }
          case T_LONG -> { protos.add(t + " " + n + "(" + t + ", long);"); s.append(t).append(" ").append(w).append("(").append(t).append(" x, long e) { return ").append(n).append("(x, e); }\n"); }
          case INT_OF_T -> { protos.add("int " + n + "(" + t + ");"); s.append("int ").append(w).append("(").append(t).append(" x) { return ").append(n).append("(x); }\n"); }
          case LONG_OF_T -> { protos.add("long " + n + "(" + t + ");"); s.append("long ").append(w).append("(").append(t).append(" x) { return ").append(n).append("(x); }\n"); }
          case OTHER -> other(s, protos, f, dbl, t, n, w);
        }
      }
    }
    return String.join("\n", protos) + "\n\n" + s;
  }

  private static void other(StringBuilder s, List<String> protos, MathFunction f, boolean dbl, String t, String n, String w) {
    switch (f.name()) {
      case "frexp" -> { protos.add(t + " " + n + "(" + t + ", int *);"); s.append(t).append(" ").append(w).append("(").append(t).append(" x) { int e; ").append(t).append(" m = ").append(n).append("(x, &e); return m + e; }\n"); }
      case "modf" -> { protos.add(t + " " + n + "(" + t + ", " + t + " *);"); s.append(t).append(" ").append(w).append("(").append(t).append(" x) { ").append(t).append(" i; ").append(t).append(" f = ").append(n).append("(x, &i); return f * 3 + i; }\n"); }
      case "remquo" -> { protos.add(t + " " + n + "(" + t + ", " + t + ", int *);"); s.append(t).append(" ").append(w).append("(").append(t).append(" x, ").append(t).append(" y) { int q; ").append(t).append(" r = ").append(n).append("(x, y, &q); return r + (q & 7); }\n"); }
      case "nexttoward" -> { protos.add(t + " " + n + "(" + t + ", long double);"); s.append(t).append(" ").append(w).append("(").append(t).append(" x, ").append(t).append(" y) { return ").append(n).append("(x, (long double) y * 2); }\n"); }
      case "nan" -> { protos.add(t + " " + n + "(const char *);"); s.append(t).append(" ").append(w).append("(").append(t).append(" x) { return x < 1 ? x : ").append(n).append("(\"\"); }\n"); }
      default -> throw new IllegalArgumentException(f.name());
    }
  }
}
