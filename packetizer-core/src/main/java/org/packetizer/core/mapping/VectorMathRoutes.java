package org.packetizer.core.mapping;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.packetizer.core.api.PacketizerOptions.VectorMath;

/**
 * The vector route of every C99 {@code <math.h>} function (float and double), issue 16: how one call
 * of the scalar function on W lanes is computed.
 *
 * <ul>
 *   <li>{@link Route.Intrinsic}: an LLVM vector intrinsic ({@code llvm.floor}, {@code llvm.sqrt}, ...).
 *       Exact: the back end lowers it to vector instructions where the target has them, else to one
 *       libm call per lane (the table in docs/vector-math.md says which, per ISA).</li>
 *   <li>{@link Route.Emitted}: vector IR the packetizer emits ({@link ExactMath}), bit-identical to
 *       glibc for every input (NaN payloads, signed zeros, subnormals, huge quotients).</li>
 *   <li>{@link Route.GlibcExact}: expf and logf in the bit-exact mode: vector IR computing glibc's own
 *       algorithm ({@link GlibcMath}), verified once per process against the linked libm.</li>
 *   <li>{@link Route.Library}: a vector math library: glibc's libmvec ({@code _ZGV...}, at most 4 ULP)
 *       where it has a variant, else SLEEF ({@code Sleef_...u10}, at most 1 ULP). Only with
 *       {@link VectorMath#LIBMVEC}; with {@link VectorMath#INTRINSICS} (bit-exact) these functions take
 *       their intrinsic if LLVM has one (one libm call per lane inside the vector code), else
 *       {@link Route.PerLane}.</li>
 *   <li>{@link Route.PerLane}: W guarded scalar calls (functions that write through a pointer, whose
 *       result is unspecified out of range, or that take a string or a long double).</li>
 * </ul>
 * Vector routes do not set {@code errno} (as compilers' vectorizers with {@code -fveclib}).
 */
public final class VectorMathRoutes {
  private VectorMathRoutes() {}

  /** How a C99 function's arguments and result are typed: T = float or double. */
  public enum Shape {
    /** T f(T) */ UNARY,
    /** T f(T, T) */ BINARY,
    /** T f(T, T, T) */ TERNARY,
    /** T f(T, int) */ T_INT,
    /** T f(T, long) */ T_LONG,
    /** int f(T) */ INT_OF_T,
    /** long f(T) */ LONG_OF_T,
    /** anything with a pointer, a string or a long double */ OTHER
  }

  /** One C99 function: its double name (the float name adds "f"), its shape, its route kind. */
  public record MathFunction(String name, Shape shape, Kind kind, String intrinsic) {
    public String name(boolean isDouble) { return isDouble ? name : name + "f"; }
  }

  /** The route families, in the order of preference of the table. */
  public enum Kind { INTRINSIC, EMITTED, LIBRARY, PER_LANE }

  /** A route for one call. */
  public sealed interface Route {
    /** A short name for remarks and the table. */
    String describe();

    /** An LLVM vector intrinsic (base name, e.g. "llvm.floor"). */
    record Intrinsic(String intrinsic) implements Route {
      public String describe() { return "intrinsic " + intrinsic; }
    }

    /** Vector IR emitted by the packetizer, bit-identical to glibc. */
    record Emitted(String function) implements Route {
      public String describe() { return "packetizer vector IR (exact)"; }
    }

    /**
     * Vector IR bit-identical to glibc's own algorithm ({@link GlibcMath}: expf, logf; {@link GlibcPow}:
     * exp2f, log2f, powf), checked once
     * per process against the linked libm ({@link LibmGuard}), per-lane calls where it differs.
     */
    record GlibcExact(String function) implements Route {
      public String describe() { return "glibc-exact vector (verified at run time)"; }
    }

    /** A call of a vector math library function handling {@code lanes} lanes per call. */
    record Library(String library, String symbol, int lanes, int arity, double maxUlps) implements Route {
      public String describe() { return library + " " + symbol + " (max " + fmtUlps(maxUlps) + " ULP)"; }
    }

    /** W guarded scalar calls, and why. */
    record PerLane(String why) implements Route {
      public String describe() { return "per lane: " + why; }
    }
  }

  /**
   * Measurement knob ({@code -Dpacketizer.glibcMath=off}): expf and logf take their former bit-exact
   * route (one libm call per lane) instead of {@link Route.GlibcExact}, for before/after figures.
   */
  static final boolean GLIBC_EXACT_OFF = "off".equals(System.getProperty("packetizer.glibcMath"));

  static String fmtUlps(double u) { return u == Math.rint(u) ? Long.toString((long) u) : Double.toString(u); }

  private static final Map<String, MathFunction> FUNCTIONS = new LinkedHashMap<>();

  private static void add(String name, Shape shape, Kind kind, String intrinsic) {
    FUNCTIONS.put(name, new MathFunction(name, shape, kind, intrinsic));
  }

  static {
    // trigonometric, hyperbolic, exponential and logarithmic: libmvec (intrinsic where LLVM has one)
    for (String n : List.of("acos", "asin", "atan", "cos", "sin", "tan", "acosh", "asinh", "atanh", "cosh", "sinh", "tanh",
        "exp", "exp2", "exp10", "expm1", "log", "log10", "log1p", "log2", "cbrt", "erf", "erfc")) {
      add(n, Shape.UNARY, Kind.LIBRARY, MathMappings.forCallee(n).map(MathMappings.Mapping::intrinsic).orElse(null));
    }
    for (String n : List.of("atan2", "pow", "hypot")) {
      add(n, Shape.BINARY, Kind.LIBRARY, MathMappings.forCallee(n).map(MathMappings.Mapping::intrinsic).orElse(null));
    }
    add("lgamma", Shape.UNARY, Kind.LIBRARY, null);
    add("tgamma", Shape.UNARY, Kind.LIBRARY, null);
    // exact in hardware or by a documented lowering
    for (String n : List.of("sqrt", "fabs", "ceil", "floor", "nearbyint", "rint", "round", "trunc")) {
      add(n, Shape.UNARY, Kind.INTRINSIC, "llvm." + n);
    }
    add("copysign", Shape.BINARY, Kind.INTRINSIC, "llvm.copysign");
    add("fma", Shape.TERNARY, Kind.INTRINSIC, "llvm.fma");
    add("lrint", Shape.LONG_OF_T, Kind.INTRINSIC, "llvm.lrint");
    add("llrint", Shape.LONG_OF_T, Kind.INTRINSIC, "llvm.llrint");
    // exact, emitted as vector IR by the packetizer
    for (String n : List.of("fmod", "remainder", "fmin", "fmax", "fdim", "nextafter")) add(n, Shape.BINARY, Kind.EMITTED, null);
    add("ldexp", Shape.T_INT, Kind.EMITTED, null);
    add("scalbn", Shape.T_INT, Kind.EMITTED, null);
    add("scalbln", Shape.T_LONG, Kind.EMITTED, null);
    add("ilogb", Shape.INT_OF_T, Kind.EMITTED, null);
    add("logb", Shape.UNARY, Kind.EMITTED, null);
    // per lane
    add("frexp", Shape.OTHER, Kind.PER_LANE, null);
    add("modf", Shape.OTHER, Kind.PER_LANE, null);
    add("remquo", Shape.OTHER, Kind.PER_LANE, null);
    add("nan", Shape.OTHER, Kind.PER_LANE, null);
    add("nexttoward", Shape.OTHER, Kind.PER_LANE, null);
    add("lround", Shape.LONG_OF_T, Kind.PER_LANE, null);
    add("llround", Shape.LONG_OF_T, Kind.PER_LANE, null);
  }

  /** Why a per-lane function has no vector route. */
  private static final Map<String, String> PER_LANE_WHY = Map.of(
      "frexp", "writes its exponent through a pointer",
      "modf", "writes its integral part through a pointer",
      "remquo", "writes its quotient bits through a pointer",
      "nan", "takes a string (a uniform call when the string is)",
      "nexttoward", "takes a long double (x86_fp80 cannot be packetized: a varying one is rejected)",
      "lround", "result unspecified out of range (LLVM lowers llvm.lround on vectors to libcalls)",
      "llround", "result unspecified out of range (LLVM lowers llvm.llround on vectors to libcalls)");

  /** Every C99 function (double names), in the table's order. */
  public static List<MathFunction> functions() { return List.copyOf(FUNCTIONS.values()); }

  /** The C99 function a callee name ("fmodf", "sin") is, with whether it is the double variant. */
  public static Optional<Call> lookup(String callee) {
    MathFunction f = FUNCTIONS.get(callee);
    if (f != null) return Optional.of(new Call(f, true));
    if (callee.endsWith("f")) {
      f = FUNCTIONS.get(callee.substring(0, callee.length() - 1));
      if (f != null) return Optional.of(new Call(f, false));
    }
    return Optional.empty();
  }

  /** A callee recognised as a C99 function on float ({@code isDouble=false}) or double. */
  public record Call(MathFunction function, boolean isDouble) {}

  /** Functions whose call has no side effect when its route is a vector one (errno aside). */
  public static boolean isPureVectorizable(String callee) {
    return lookup(callee).map(c -> c.function().kind() != Kind.PER_LANE).orElse(false);
  }

  /**
   * The target features that choose a library variant: the vector features the function's "target-cpu" implies, then
   * its "target-features" (LLVM's rule: the CPU's features plus the string; a feature the string switches off, e.g.
   * {@code -avx512f}, is not implied). Before the nineteenth round a string naming any SSE feature hid the CPU, so a
   * generic clang bitcode (its baseline {@code +sse,+sse2} string) retargeted by a CPU name alone took the SSE routes
   * where the other decisions (the hardware width, the interleave rule) took the CPU's.
   */
  public static String effectiveFeatures(org.packetizer.core.ir.Function f) {
    return effectiveFeatures(f.stringAttribute("target-cpu").orElse(""), f.stringAttribute("target-features").orElse(""));
  }

  /** {@link #effectiveFeatures(org.packetizer.core.ir.Function)} for a CPU name and a feature string. */
  public static String effectiveFeatures(String cpuName, String features) {
    String cpu = cpuName.toLowerCase(java.util.Locale.ROOT);
    Set<String> tokens = Set.of(features.split(","));
    StringBuilder implied = new StringBuilder();
    for (String feature : impliedFeatures(cpu)) {
      String name = feature.substring(1);
      // (a feature the string switches off takes every feature built on it along, as in LLVM: "-avx" leaves no AVX2,
      // FMA or AVX-512F of the CPU's — the SSE variant of a vector function in an AVX-512 module)
      if (tokens.contains(feature) || REQUIRES.getOrDefault(name, List.of(name)).stream().anyMatch(r -> tokens.contains("-" + r))) {
        continue;
      }
      if (!implied.isEmpty()) implied.append(',');
      implied.append(feature);
    }
    if (implied.isEmpty()) return features;
    return implied + suffix(features);
  }

  /** The features each implied vector feature is built on, itself included (LLVM's implications, transitively). */
  private static final java.util.Map<String, List<String>> REQUIRES = java.util.Map.of(
      "sse4.1", List.of("sse4.1", "ssse3", "sse3", "sse2", "sse"),
      "sse4.2", List.of("sse4.2", "sse4.1", "ssse3", "sse3", "sse2", "sse"),
      "avx", List.of("avx", "sse4.2", "sse4.1", "ssse3", "sse3", "sse2", "sse"),
      "avx2", List.of("avx2", "avx", "sse4.2", "sse4.1", "ssse3", "sse3", "sse2", "sse"),
      "fma", List.of("fma", "avx", "sse4.2", "sse4.1", "ssse3", "sse3", "sse2", "sse"),
      "avx512f", List.of("avx512f", "avx2", "fma", "f16c", "avx", "sse4.2", "sse4.1", "ssse3", "sse3", "sse2", "sse"));

  /** The vector features an x86 CPU name implies (LLVM's names; empty for generic and unknown names). */
  private static List<String> impliedFeatures(String cpu) {
    if (AVX512_CPUS.contains(cpu)) return List.of("+sse4.1", "+sse4.2", "+avx", "+avx2", "+fma", "+avx512f");
    if (AVX2_CPUS.contains(cpu)) return List.of("+sse4.1", "+sse4.2", "+avx", "+avx2", "+fma");
    if (Set.of("sandybridge", "corei7-avx", "ivybridge", "core-avx-i", "bdver1", "btver2").contains(cpu)) {
      return List.of("+sse4.1", "+sse4.2", "+avx");
    }
    boolean sse41 = !cpu.isEmpty() && !Set.of("x86-64", "generic", "k8", "opteron", "athlon64", "nocona", "core2", "pentium4").contains(cpu);
    return sse41 ? List.of("+sse4.1") : List.of();
  }

  /** CPU names with AVX-512F, and with AVX2 and FMA (LLVM's names). */
  private static final Set<String> AVX512_CPUS = Set.of("knl", "knm", "skylake-avx512", "skx", "cascadelake", "cooperlake",
      "cannonlake", "icelake-client", "icelake-server", "tigerlake", "rocketlake", "sapphirerapids", "emeraldrapids",
      "graniterapids", "graniterapids-d", "diamondrapids", "znver4", "znver5", "x86-64-v4");
  private static final Set<String> AVX2_CPUS = Set.of("haswell", "core-avx2", "broadwell", "skylake", "alderlake", "raptorlake",
      "meteorlake", "arrowlake", "arrowlake-s", "lunarlake", "gracemont", "pantherlake", "sierraforest", "grandridge",
      "clearwaterforest", "bdver2", "bdver3", "bdver4", "znver1", "znver2", "znver3", "x86-64-v3");

  private static String suffix(String features) { return features.isEmpty() ? "" : "," + features; }

  /** The libmvec functions of glibc 2.35+ (x86-64 b, c, d, e variants for float and double). */
  private static final Set<String> LIBMVEC = Set.of("acos", "asin", "atan", "cos", "sin", "tan", "acosh", "asinh", "atanh",
      "cosh", "sinh", "tanh", "exp", "exp2", "exp10", "expm1", "log", "log10", "log1p", "log2", "cbrt", "erf", "erfc",
      "atan2", "pow", "hypot");

  /**
   * The route of a call of {@code fn} on float or double lanes, for a packet function of width
   * {@code width} with the given target features, under {@code mode}.
   */
  public static Route route(MathFunction fn, boolean isDouble, String features, int width, VectorMath mode) {
    switch (fn.kind()) {
      case INTRINSIC:
        return new Route.Intrinsic(fn.intrinsic());
      case EMITTED:
        return new Route.Emitted(fn.name(isDouble));
      case PER_LANE:
        return new Route.PerLane(PER_LANE_WHY.get(fn.name()));
      case LIBRARY:
      default:
        break;
    }
    int arity = fn.shape() == Shape.BINARY ? 2 : 1;
    if (mode == VectorMath.INTRINSICS && !isDouble && (GlibcMath.emits(fn.name(false)) || GlibcPow.available(fn.name(false), features))
        && !GLIBC_EXACT_OFF) {
      return new Route.GlibcExact(fn.name(false));
    }
    if (mode == VectorMath.LIBMVEC) {
      if (LIBMVEC.contains(fn.name())) {
        Optional<Libmvec.Variant> v = Libmvec.variantOf(fn.name(), arity, isDouble, features, width);
        if (v.isPresent() && width % v.get().lanes() == 0) {
          return new Route.Library("libmvec", v.get().symbol(), v.get().lanes(), arity, Libmvec.MAX_ULPS);
        }
      } else {
        Optional<Route.Library> s = Sleef.variant(fn.name(), arity, isDouble, features, width);
        if (s.isPresent()) return s.get();
      }
    }
    if (fn.intrinsic() != null) return new Route.Intrinsic(fn.intrinsic());
    return new Route.PerLane(mode == VectorMath.LIBMVEC ? "no vector variant for this target and width"
        : "no LLVM intrinsic; vector libraries are off (bit-exact vector math)");
  }
}
