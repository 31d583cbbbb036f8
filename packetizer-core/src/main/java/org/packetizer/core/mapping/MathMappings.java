package org.packetizer.core.mapping;

import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Element-wise intrinsics that exist for vectors, and libm names mapped to them (thesis 4.5.2
 * "built-in packetized functions"). LLVM lowers a vector math intrinsic the backend cannot do
 * natively to one libm call per lane, so results are bit-identical to the scalar calls.
 */
public final class MathMappings {
  private MathMappings() {}

  /** Intrinsics (without the type suffix) that map element-wise to their vector form. */
  private static final Set<String> ELEMENTWISE = Set.of(
      "llvm.sqrt", "llvm.sin", "llvm.cos", "llvm.tan", "llvm.asin", "llvm.acos", "llvm.atan", "llvm.atan2",
      "llvm.sinh", "llvm.cosh", "llvm.tanh", "llvm.exp", "llvm.exp2", "llvm.exp10", "llvm.log", "llvm.log2",
      "llvm.log10", "llvm.pow", "llvm.fabs", "llvm.floor", "llvm.ceil", "llvm.round", "llvm.roundeven",
      "llvm.trunc", "llvm.rint", "llvm.nearbyint", "llvm.minnum", "llvm.maxnum", "llvm.minimum", "llvm.maximum",
      "llvm.copysign", "llvm.fma", "llvm.fmuladd", "llvm.smin", "llvm.smax", "llvm.umin", "llvm.umax",
      "llvm.ctpop", "llvm.bswap", "llvm.bitreverse", "llvm.fshl", "llvm.fshr", "llvm.sadd.sat", "llvm.uadd.sat",
      "llvm.ssub.sat", "llvm.usub.sat", "llvm.canonicalize", "llvm.ldexp");

  /** Intrinsics whose second argument stays scalar (an immediate or an i32 exponent). */
  private static final Set<String> SCALAR_SECOND_ARG = Set.of("llvm.abs", "llvm.ctlz", "llvm.cttz", "llvm.powi");

  /** libm names (float and double) and the intrinsic they compute. */
  private static final Map<String, String> LIBM = Map.ofEntries(
      Map.entry("sqrt", "llvm.sqrt"), Map.entry("sin", "llvm.sin"), Map.entry("cos", "llvm.cos"),
      Map.entry("tan", "llvm.tan"), Map.entry("asin", "llvm.asin"), Map.entry("acos", "llvm.acos"),
      Map.entry("atan", "llvm.atan"), Map.entry("atan2", "llvm.atan2"), Map.entry("sinh", "llvm.sinh"),
      Map.entry("cosh", "llvm.cosh"), Map.entry("tanh", "llvm.tanh"), Map.entry("exp", "llvm.exp"),
      Map.entry("exp2", "llvm.exp2"), Map.entry("exp10", "llvm.exp10"), Map.entry("log", "llvm.log"),
      Map.entry("log2", "llvm.log2"), Map.entry("log10", "llvm.log10"), Map.entry("pow", "llvm.pow"),
      Map.entry("fabs", "llvm.fabs"), Map.entry("floor", "llvm.floor"), Map.entry("ceil", "llvm.ceil"),
      Map.entry("round", "llvm.round"), Map.entry("roundeven", "llvm.roundeven"), Map.entry("trunc", "llvm.trunc"),
      Map.entry("rint", "llvm.rint"), Map.entry("nearbyint", "llvm.nearbyint"), Map.entry("fmin", "llvm.minnum"),
      Map.entry("fmax", "llvm.maxnum"), Map.entry("copysign", "llvm.copysign"), Map.entry("fma", "llvm.fma"));

  /** A call's vector form: the intrinsic base name and which arguments stay scalar. */
  public record Mapping(String intrinsic, boolean scalarSecondArg) {}

  /**
   * The vector intrinsic for a callee name: an element-wise intrinsic ("llvm.sin.f32"), or a libm
   * name ("sinf", "sin").
   */
  public static Optional<Mapping> forCallee(String name) {
    if (name.startsWith("llvm.")) {
      String base = stripTypeSuffix(name);
      if (ELEMENTWISE.contains(base)) return Optional.of(new Mapping(base, false));
      if (SCALAR_SECOND_ARG.contains(base)) return Optional.of(new Mapping(base, true));
      return Optional.empty();
    }
    String n = name.endsWith("f") && LIBM.containsKey(name.substring(0, name.length() - 1))
        ? name.substring(0, name.length() - 1) : name;
    String intr = LIBM.get(n);
    return intr == null ? Optional.empty() : Optional.of(new Mapping(intr, false));
  }

  /** "llvm.sin.f32" -> "llvm.sin"; "llvm.sadd.sat.i32" -> "llvm.sadd.sat". */
  public static String stripTypeSuffix(String name) {
    // (called for every call emitted: intrinsic names are few; the cache is bounded all the same)
    String cached = STRIPPED.get(name);
    if (cached != null) return cached;
    String s = stripTypeSuffixUncached(name);
    if (STRIPPED.size() < 4096) STRIPPED.put(name, s);
    return s;
  }

  private static final java.util.Map<String, String> STRIPPED = new java.util.concurrent.ConcurrentHashMap<>();

  private static String stripTypeSuffixUncached(String name) {
    String[] parts = name.split("\\.");
    int keep = parts.length;
    while (keep > 2 && isTypeSuffix(parts[keep - 1])) keep--;
    return String.join(".", java.util.Arrays.copyOf(parts, keep));
  }

  private static final java.util.regex.Pattern TYPE_SUFFIX =
      java.util.regex.Pattern.compile("(f|i|bf)\\d+|v\\d+(f|i|bf)\\d+|p\\d+|v\\d+p\\d+|f80|f128|ppcf128");

  private static boolean isTypeSuffix(String p) {
    return TYPE_SUFFIX.matcher(p).matches();
  }

  /** Intrinsics that carry no computation the packet needs (hints, debug info): dropped. */
  public static boolean isDroppable(String name) {
    return name.startsWith("llvm.lifetime.") || name.startsWith("llvm.dbg.") || name.equals("llvm.assume")
        || name.startsWith("llvm.experimental.noalias.scope.decl") || name.startsWith("llvm.invariant.")
        || name.equals("llvm.donothing") || name.startsWith("llvm.var.annotation");
  }
}
