package org.packetizer.core.fuzz;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Random structured scalar C functions for differential fuzzing: nested ifs, loops with per-lane trip
 * counts and divergent {@code break}/{@code continue}, short-circuit conditions, arithmetic on mixed
 * int/float/double values, and memory through a read-only uniform table and a per-lane
 * (struct-of-arrays) struct.
 *
 * <p>Every generated function is free of undefined behaviour, so the scalar function is a valid
 * reference for every input: loops have constant bounds (at most 8 iterations, nested at most 2
 * deep) and counters the body never assigns; signed arithmetic wraps through {@code uint32_t};
 * shift amounts are masked; division and remainder are guarded against 0 and INT32_MIN / -1;
 * float-to-int conversions are range-checked (NaN gives 0); every index is masked into its array.
 * Minimum and maximum are written as comparisons (not {@code fminf}, whose result for -0/+0 LLVM
 * leaves open). Lanes never communicate through memory: the table is only read, and each lane's
 * struct is its own.
 *
 * <p>The signature is fixed:
 *
 * <pre>
 * RET fz(int32_t a, int32_t b, float x, double y, const float *tab, struct S *s)
 * struct S { float f[8]; int32_t i[8]; double d[4]; };
 * </pre>
 *
 * with RET one of int32_t, float, double, void; {@code a} varying, uniform or linear, {@code b, x, y}
 * each varying or uniform (random),
 * {@code tab} uniform (16 floats), {@code s} struct-of-arrays. A case is a pure function of
 * (seed, index).
 */
public final class CGenerator {
  /** LLVM's spelling of {@code struct S}. */
  public static final String STRUCT_TYPE = "{ [8 x float], [8 x i32], [4 x double] }";

  /** Elements of {@code tab}. */
  public static final int TABLE = 16;

  /** Shared declarations and helpers, before the functions of a translation unit. */
  public static final String PRELUDE = """
      #include <stdint.h>
      float sqrtf(float);
      float fabsf(float);
      float floorf(float);
      double sqrt(double);
      double fabs(double);
      struct S { float f[8]; int32_t i[8]; double d[4]; };
      static inline int32_t sdiv(int32_t a, int32_t b) { return (b == 0 || (a == INT32_MIN && b == -1)) ? a : a / b; }
      static inline int32_t srem(int32_t a, int32_t b) { return (b == 0 || (a == INT32_MIN && b == -1)) ? a : a % b; }
      static inline uint32_t udiv(uint32_t a, uint32_t b) { return b == 0 ? a : a / b; }
      static inline int32_t f2i(float v) { return (v > -2147483520.0f && v < 2147483520.0f) ? (int32_t) v : 0; }
      static inline int32_t d2i(double v) { return (v > -2147483649.0 && v < 2147483648.0) ? (int32_t) v : 0; }
      """;

  /** One generated function. */
  public record Case(long seed, int index, String name, String returnType, String kinds, String body) {
    /** The function alone (needs {@link #PRELUDE}). */
    public String function() { return body; }

    /** A complete translation unit with just this function. */
    public String source() {
      return "/* packetizer C fuzz case: seed " + seed + ", index " + index + ", kinds " + kinds + " */\n" + PRELUDE + "\n" + body;
    }
  }

  private final SplittableRandom rnd;
  private final StringBuilder out = new StringBuilder();
  private int indent = 1;
  private int counters;
  private int loopDepth;
  private int statements;

  private static final String[] INTS = {"i0", "i1", "i2"};
  private static final String[] FLOATS = {"f0", "f1"};
  private static final String[] DOUBLES = {"d0", "d1"};
  private final List<String> counterScope = new ArrayList<>();

  private CGenerator(SplittableRandom rnd) { this.rnd = rnd; }

  /** The case for (seed, index). */
  public static Case generate(long seed, int index) {
    SplittableRandom rnd = new SplittableRandom(seed * 0x9E3779B97F4A7C15L + index * 0xC2B2AE3D27D4EB4FL + 1);
    return new CGenerator(rnd).gen(seed, index);
  }

  private Case gen(long seed, int index) {
    String name = "fz_" + Long.toUnsignedString(seed) + "_" + index;
    String ret = new String[] {"int32_t", "float", "double", "void"}[rnd.nextInt(4)];
    StringBuilder kinds = new StringBuilder();
    // a: varying, uniform or linear (lane k sees a + k, like an index); b, x, y: varying or uniform
    int ka = rnd.nextInt(8);
    kinds.append(ka < 2 ? 'u' : ka < 4 ? 'l' : 'v');
    for (int i = 1; i < 4; i++) kinds.append(rnd.nextInt(4) == 0 ? 'u' : 'v');
    kinds.append("us");
    out.append(ret).append(' ').append(name)
        .append("(int32_t a, int32_t b, float x, double y, const float *tab, struct S *s) {\n");
    line("int32_t i0 = a, i1 = b, i2 = " + smallInt() + ";");
    line("float f0 = x, f1 = " + floatConst() + ";");
    line("double d0 = y, d1 = " + doubleConst() + ";");
    int n = 3 + rnd.nextInt(8);
    for (int i = 0; i < n; i++) stmt(0);
    switch (ret) {
      case "int32_t" -> line("return " + intExpr(2) + ";");
      case "float" -> line("return " + floatExpr(2) + ";");
      case "double" -> line("return " + doubleExpr(2) + ";");
      default -> line("s->i[" + idx(8) + "] = " + intExpr(1) + ";");
    }
    out.append("}\n");
    return new Case(seed, index, name, ret, kinds.toString(), out.toString());
  }

  private void line(String s) {
    out.append("  ".repeat(indent)).append(s).append('\n');
  }

  // ---- statements ----

  private void stmt(int depth) {
    statements++;
    int r = rnd.nextInt(depth >= 3 || statements > 40 ? 4 : 9);
    switch (r) {
      case 0, 1 -> assign();
      case 2 -> store();
      case 3 -> {
        if (loopDepth > 0 && rnd.nextInt(3) == 0) {
          line("if (" + cond(1) + ") " + (rnd.nextBoolean() ? "break;" : "continue;"));
        } else {
          assign();
        }
      }
      case 4, 5 -> ifStmt(depth);
      case 6, 7 -> {
        if (loopDepth < 2) forStmt(depth);
        else ifStmt(depth);
      }
      default -> {
        if (loopDepth < 2) whileStmt(depth);
        else assign();
      }
    }
  }

  private void block(int depth, int min, int max) {
    int n = min + rnd.nextInt(max - min + 1);
    indent++;
    for (int i = 0; i < n; i++) stmt(depth + 1);
    indent--;
  }

  private void assign() {
    switch (rnd.nextInt(3)) {
      case 0 -> {
        String v = pick(INTS);
        String op = rnd.nextInt(3) == 0 ? compoundIntOp(v) : null;
        line(op != null ? v + " = " + op + ";" : v + " = " + intExpr(2) + ";");
      }
      case 1 -> line(pick(FLOATS) + (rnd.nextInt(3) == 0 ? " += " : " = ") + floatExpr(2) + ";");
      default -> line(pick(DOUBLES) + (rnd.nextInt(3) == 0 ? " *= " : " = ") + doubleExpr(2) + ";");
    }
  }

  private String compoundIntOp(String v) {
    return "(int32_t) ((uint32_t) " + v + " " + pick(new String[] {"+", "-", "*", "^"}) + " (uint32_t) (" + intExpr(1) + "))";
  }

  private void store() {
    switch (rnd.nextInt(3)) {
      case 0 -> line("s->f[" + idx(8) + "] = " + floatExpr(2) + ";");
      case 1 -> line("s->i[" + idx(8) + "] = " + intExpr(2) + ";");
      default -> line("s->d[" + idx(4) + "] = " + doubleExpr(2) + ";");
    }
  }

  private void ifStmt(int depth) {
    line("if (" + cond(2) + ") {");
    block(depth, 1, 3);
    if (rnd.nextBoolean()) {
      line("} else {");
      block(depth, 1, 3);
    }
    line("}");
  }

  private void forStmt(int depth) {
    String k = "k" + counters++;
    String bound = switch (rnd.nextInt(3)) {
      case 0 -> Integer.toString(1 + rnd.nextInt(8));
      default -> "(int32_t) ((uint32_t) (" + intExpr(1) + ") & 7u)"; // per-lane trip count 0..7
    };
    // the bound is evaluated once into a local so the body cannot change it
    String lim = k + "n";
    line("{");
    indent++;
    line("int32_t " + lim + " = " + bound + ";");
    line("for (int32_t " + k + " = 0; " + k + " < " + lim + "; " + k + "++) {");
    counterScope.add(k);
    loopDepth++;
    block(depth, 1, 4);
    loopDepth--;
    counterScope.removeLast();
    line("}");
    indent--;
    line("}");
  }

  private void whileStmt(int depth) {
    String g = "g" + counters++;
    line("{");
    indent++;
    line("int32_t " + g + " = 0;");
    line("while (" + g + " < " + (1 + rnd.nextInt(8)) + " && " + cond(1) + ") {");
    indent++;
    line(g + "++;");
    indent--;
    counterScope.add(g);
    loopDepth++;
    block(depth, 1, 3);
    loopDepth--;
    counterScope.removeLast();
    line("}");
    indent--;
    line("}");
  }

  // ---- expressions ----

  private String pick(String[] a) { return a[rnd.nextInt(a.length)]; }

  private String idx(int n) { return "(uint32_t) (" + intExpr(1) + ") & " + (n - 1) + "u"; }

  private String smallInt() { return Integer.toString(rnd.nextInt(-20, 21)); }

  private String intConst() {
    return switch (rnd.nextInt(6)) {
      case 0 -> "INT32_MIN";
      case 1 -> "INT32_MAX";
      case 2 -> Integer.toString(rnd.nextInt(-100000, 100000));
      default -> smallInt();
    };
  }

  private String floatConst() {
    double[] specials = {0.0, -0.0, 0.5, -1.5, 3.25, 1e10, -1e-10, 100.0};
    double v = rnd.nextInt(3) == 0 ? specials[rnd.nextInt(specials.length)] : Math.rint(rnd.nextDouble(-50, 50) * 8) / 8;
    String s = Double.toString(v);
    return (s.startsWith("-") ? "(" + s + "f)" : s + "f");
  }

  private String doubleConst() {
    String s = floatConst();
    return s.replace("f", "");
  }

  private String leafInt() {
    int r = rnd.nextInt(10);
    if (r < 4) return pick(INTS);
    if (r < 6 && !counterScope.isEmpty()) return counterScope.get(rnd.nextInt(counterScope.size()));
    if (r < 7) return rnd.nextBoolean() ? "a" : "b";
    return intConst();
  }

  String intExpr(int depth) {
    if (depth <= 0 || rnd.nextInt(4) == 0) return leafInt();
    int d = depth - 1;
    return switch (rnd.nextInt(12)) {
      case 0, 1, 2 -> "(int32_t) ((uint32_t) (" + intExpr(d) + ") " + pick(new String[] {"+", "-", "*", "&", "|", "^"})
          + " (uint32_t) (" + intExpr(d) + "))";
      case 3 -> "(int32_t) ((uint32_t) (" + intExpr(d) + ") << ((uint32_t) (" + intExpr(d) + ") & 31u))";
      case 4 -> "((" + intExpr(d) + ") >> ((uint32_t) (" + intExpr(d) + ") & 31u))";
      case 5 -> (rnd.nextBoolean() ? "sdiv(" : "srem(") + intExpr(d) + ", " + intExpr(d) + ")";
      case 6 -> "(int32_t) udiv((uint32_t) (" + intExpr(d) + "), (uint32_t) (" + intExpr(d) + "))";
      case 7 -> "(" + cond(d) + " ? " + intExpr(d) + " : " + intExpr(d) + ")";
      case 8 -> rnd.nextBoolean() ? "f2i(" + floatExpr(d) + ")" : "d2i(" + doubleExpr(d) + ")";
      case 9 -> "s->i[" + idx(8) + "]";
      case 10 -> "(int32_t) (" + cond(d) + ")";
      default -> "(int32_t) (int8_t) (" + intExpr(d) + ")";
    };
  }

  private String leafFloat() {
    int r = rnd.nextInt(8);
    if (r < 4) return pick(FLOATS);
    if (r < 5) return "x";
    return floatConst();
  }

  String floatExpr(int depth) {
    if (depth <= 0 || rnd.nextInt(4) == 0) return leafFloat();
    int d = depth - 1;
    return switch (rnd.nextInt(12)) {
      case 0, 1, 2 -> "(" + floatExpr(d) + " " + pick(new String[] {"+", "-", "*", "/"}) + " " + floatExpr(d) + ")";
      case 3 -> "(float) (" + intExpr(d) + ")";
      case 4 -> "(float) (" + doubleExpr(d) + ")";
      case 5 -> "sqrtf(fabsf(" + floatExpr(d) + "))";
      case 6 -> "floorf(" + floatExpr(d) + ")";
      case 7 -> {
        String p = floatExpr(d);
        String q = floatExpr(d);
        yield "(" + p + " < " + q + " ? " + p + " : " + q + ")";
      }
      case 8 -> "s->f[" + idx(8) + "]";
      case 9 -> "tab[" + idx(TABLE) + "]";
      case 10 -> "(" + cond(d) + " ? " + floatExpr(d) + " : " + floatExpr(d) + ")";
      default -> "fabsf(" + floatExpr(d) + ")";
    };
  }

  private String leafDouble() {
    int r = rnd.nextInt(8);
    if (r < 4) return pick(DOUBLES);
    if (r < 5) return "y";
    return doubleConst();
  }

  String doubleExpr(int depth) {
    if (depth <= 0 || rnd.nextInt(4) == 0) return leafDouble();
    int d = depth - 1;
    return switch (rnd.nextInt(9)) {
      case 0, 1, 2 -> "(" + doubleExpr(d) + " " + pick(new String[] {"+", "-", "*", "/"}) + " " + doubleExpr(d) + ")";
      case 3 -> "(double) (" + intExpr(d) + ")";
      case 4 -> "(double) (" + floatExpr(d) + ")";
      case 5 -> "sqrt(fabs(" + doubleExpr(d) + "))";
      case 6 -> "s->d[" + idx(4) + "]";
      case 7 -> "(" + cond(d) + " ? " + doubleExpr(d) + " : " + doubleExpr(d) + ")";
      default -> "fabs(" + doubleExpr(d) + ")";
    };
  }

  String cond(int depth) {
    int d = Math.max(0, depth - 1);
    return switch (rnd.nextInt(depth <= 0 ? 4 : 8)) {
      case 0, 1 -> "(" + intExpr(d) + " " + pick(new String[] {"<", "<=", "==", "!=", ">", ">="}) + " " + intExpr(d) + ")";
      case 2 -> "(" + floatExpr(d) + " " + pick(new String[] {"<", "<=", "==", "!=", ">"}) + " " + floatExpr(d) + ")";
      case 3 -> "((" + intExpr(d) + ") & 1)";
      case 4 -> "(" + doubleExpr(d) + " " + pick(new String[] {"<", ">="}) + " " + doubleExpr(d) + ")";
      case 5 -> "!" + cond(d);
      case 6 -> "(" + cond(d) + " && " + cond(d) + ")";
      default -> "(" + cond(d) + " || " + cond(d) + ")";
    };
  }
}
