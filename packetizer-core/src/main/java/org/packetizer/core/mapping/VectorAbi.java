package org.packetizer.core.mapping;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.packetizer.core.api.ParamKind;
import org.packetizer.core.ir.Function;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.ir.Opcode;
import org.packetizer.core.ir.Value;

/**
 * LLVM's vector function ABI (the x86 flavour of the OpenMP {@code declare simd} name mangling):
 * a vector variant of a scalar function {@code f} is named
 * {@code _ZGV<isa><mask><vlen><params>_f}, where
 *
 * <ul>
 *   <li>{@code isa} is {@code b} (SSE), {@code c} (AVX), {@code d} (AVX2) or {@code e} (AVX-512);
 *   <li>{@code mask} is {@code N} (unmasked) or {@code M} (masked: a trailing {@code <vlen x i1>}
 *       parameter, the lanes to compute);
 *   <li>{@code vlen} is the number of lanes;
 *   <li>{@code params} has one token per scalar parameter: {@code v} (vector), {@code u} (uniform),
 *       {@code l} / {@code lN} / {@code lnN} (linear with step 1 / N / -N; bytes for pointers), each
 *       optionally followed by {@code aN} (aligned to N bytes) — exactly {@link ParamKind#letters()}.
 * </ul>
 *
 * A call site announces the variants it may use with the string attribute
 * {@value #ATTRIBUTE}{@code ="_ZGVdN8v_f(f_simd8),_ZGVdM8v_f(f_simd8_masked)"} (the name in
 * parentheses is the function that implements the variant); LLVM's loop vectorizer then calls the
 * variant when it vectorizes a loop around the call with the same vlen and parameter shapes, and
 * picks the masked one where the call is conditional or the tail is folded.
 */
public final class VectorAbi {
  private VectorAbi() {}

  /** The call-site attribute listing the vector variants of the called function. */
  public static final String ATTRIBUTE = "vector-function-abi-variant";

  /** A parsed or to-be-published variant. */
  public record Variant(char isa, boolean masked, int vlen, List<ParamKind> params, String scalarName) {
    public Variant {
      params = List.copyOf(params);
      if ("bcde".indexOf(isa) < 0) throw new IllegalArgumentException("unknown x86 ISA letter '" + isa + "' (b, c, d or e)");
      if (vlen < 1) throw new IllegalArgumentException("vlen must be positive, got " + vlen);
      for (ParamKind k : params) {
        if (k instanceof ParamKind.SoaPointer) {
          throw new IllegalArgumentException("a struct-of-arrays parameter (s) has no vector-function-ABI token;"
              + " publish variants with v, u or l parameters");
        }
      }
    }

    /** {@code _ZGV<isa><mask><vlen><params>_<scalar>}. */
    public String mangledName() {
      StringBuilder sb = new StringBuilder("_ZGV").append(isa).append(masked ? 'M' : 'N').append(vlen);
      for (ParamKind k : params) sb.append(k.letters());
      return sb.append('_').append(scalarName).toString();
    }

    /** One entry of the call-site attribute: {@code <mangled>(<vectorName>)}. */
    public String attributeEntry(String vectorName) { return mangledName() + "(" + vectorName + ")"; }
  }

  /**
   * The ISA letter for a function's {@code target-features}: {@code e} with AVX-512F, {@code d} with
   * AVX2, {@code c} with AVX, else {@code b} (SSE2 is in every x86-64).
   */
  public static char isa(String targetFeatures) {
    if (has(targetFeatures, "+avx512f")) return 'e';
    if (has(targetFeatures, "+avx2")) return 'd';
    if (has(targetFeatures, "+avx")) return 'c';
    return 'b';
  }

  private static boolean has(String features, String f) {
    if (features == null) return false;
    for (String s : features.split(",")) if (s.strip().equals(f)) return true;
    return false;
  }

  /**
   * Parses a vector-function-ABI name ({@code _ZGVdN8vl4ua32_f}, optionally followed by
   * {@code (vectorName)}). Empty when the name does not start with {@code _ZGV}.
   *
   * @throws IllegalArgumentException when it starts with {@code _ZGV} but is malformed or uses a
   *     token this packetizer does not implement (scalable vectors, {@code ls}/{@code R}/{@code L}/
   *     {@code U} parameters, non-x86 ISAs)
   */
  public static Optional<Variant> demangle(String name) {
    if (!name.startsWith("_ZGV")) return Optional.empty();
    int i = 4;
    if (name.length() < i + 3) throw bad(name, "too short");
    char isa = name.charAt(i++);
    if ("bcde".indexOf(isa) < 0) throw bad(name, "ISA '" + isa + "' is not an x86 one (b, c, d, e)");
    char m = name.charAt(i++);
    if (m != 'M' && m != 'N') throw bad(name, "the mask token must be M or N, got '" + m + "'");
    if (name.charAt(i) == 'x') throw bad(name, "scalable vector lengths are not supported");
    int start = i;
    while (i < name.length() && Character.isDigit(name.charAt(i))) i++;
    if (start == i) throw bad(name, "no vector length after the mask token");
    int vlen;
    try {
      vlen = Integer.parseInt(name.substring(start, i));
    } catch (NumberFormatException e) {
      throw bad(name, "vector length too large");
    }
    int us = name.indexOf('_', i);
    if (us < 0) throw bad(name, "no '_' before the scalar name");
    String params = name.substring(i, us);
    for (String unsupported : List.of("ls", "R", "L", "U")) {
      if (params.contains(unsupported)) {
        throw bad(name, "parameter token '" + unsupported + "' (linear by reference or with a runtime step) is not supported");
      }
    }
    if (params.indexOf('s') >= 0) throw bad(name, "'s' is not a vector-function-ABI parameter token");
    List<ParamKind> kinds;
    try {
      kinds = ParamKind.parseLetters(params);
    } catch (IllegalArgumentException e) {
      throw bad(name, e.getMessage());
    }
    String rest = name.substring(us + 1);
    int paren = rest.indexOf('(');
    String scalar = paren < 0 ? rest : rest.substring(0, paren);
    if (scalar.isEmpty()) throw bad(name, "empty scalar name");
    return Optional.of(new Variant(isa, m == 'M', vlen, kinds, scalar));
  }

  private static IllegalArgumentException bad(String name, String why) {
    return new IllegalArgumentException("'" + name + "' is not a usable vector-function-ABI name: " + why);
  }

  /**
   * The variants a scalar function declares: clang turns {@code #pragma omp declare simd} into string
   * attributes named {@code _ZGV<isa><mask><vlen><params>_<name>}, one per ISA and mask. Names this
   * packetizer cannot implement (other ISAs, unsupported tokens) and names of other functions are left
   * out.
   */
  public static List<Variant> declaredVariants(Function scalar) {
    List<Variant> out = new ArrayList<>();
    for (String key : scalar.stringAttributes().keySet()) {
      if (!key.startsWith("_ZGV")) continue;
      try {
        demangle(key).filter(v -> v.scalarName().equals(scalar.name()) && v.params().size() == scalar.paramCount())
            .ifPresent(out::add);
      } catch (IllegalArgumentException e) {
        // not for this packetizer (e.g. an AArch64 or scalable variant)
      }
    }
    return out;
  }

  /**
   * Adds {@code entry} ({@code _ZGV..._f(vector)}) to the {@value #ATTRIBUTE} attribute of every
   * direct call of {@code scalarName} in the module (keeping the entries already there, without
   * duplicates). Returns the number of call sites annotated.
   */
  public static int annotateCallSites(LlvmModule module, String scalarName, String entry) {
    Optional<Function> scalar = module.function(scalarName);
    if (scalar.isEmpty()) return 0;
    int n = 0;
    for (Value u : scalar.get().users()) {
      if (!u.isInstruction() || u.opcode() != Opcode.CALL || !u.calledOperand().equals(scalar.get())) continue;
      addEntry(u, entry);
      n++;
    }
    return n;
  }

  /** The entries of a call's {@value #ATTRIBUTE} attribute (empty when it has none). */
  public static List<String> entries(Value call) {
    String s = attribute(call);
    List<String> out = new ArrayList<>();
    if (s.isEmpty()) return out;
    for (String e : s.split(",")) if (!e.isBlank()) out.add(e.strip());
    return out;
  }

  private static String attribute(Value call) {
    return call.callSiteStringAttribute(ATTRIBUTE).orElse("");
  }

  private static void addEntry(Value call, String entry) {
    Set<String> all = new LinkedHashSet<>(entries(call));
    all.add(entry);
    call.setCallSiteStringAttribute(ATTRIBUTE, String.join(",", all));
  }
}
