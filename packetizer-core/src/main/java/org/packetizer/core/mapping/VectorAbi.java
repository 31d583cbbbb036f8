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
import org.packetizer.core.ir.Type;
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
      if ("bcden".indexOf(isa) < 0) {
        throw new IllegalArgumentException("unknown ISA letter '" + isa + "' (x86: b, c, d or e; AArch64 Advanced SIMD: n)");
      }
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

  /**
   * The ISA letter for a function of a module with target {@code triple}: AArch64 gives {@code n}
   * (Advanced SIMD; the AArch64 vector function ABI's SVE variants {@code s} need scalable vectors),
   * x86 (and the empty triple, the host) {@link #isa(String)}.
   *
   * @throws IllegalArgumentException for other targets (no vector function ABI implemented)
   */
  public static char isa(String triple, String targetFeatures) {
    return switch (org.packetizer.core.ir.TargetArch.of(triple)) {
      case AARCH64 -> 'n';
      case X86 -> isa(targetFeatures);
      default -> throw new IllegalArgumentException("no vector function ABI is implemented for target " + triple
          + " (x86-64: _ZGV[bcde], AArch64: _ZGVn)");
    };
  }

  /** Whether {@code isa} is one of the target family of {@code triple} (n for AArch64, b/c/d/e for x86). */
  public static boolean isaOfTarget(char isa, String triple) {
    return switch (org.packetizer.core.ir.TargetArch.of(triple)) {
      case AARCH64 -> isa == 'n';
      case X86 -> "bcde".indexOf(isa) >= 0;
      default -> false;
    };
  }

  /**
   * The narrowest data size NDS(f) of the AArch64 vector function ABI, in bits: the smallest lane
   * size of the return value and the parameters (vector and uniform/linear values alike: their own
   * size; pointers 64). Masks of Advanced SIMD variants are vectors of unsigned integers this wide.
   *
   * @throws IllegalArgumentException for a uniform or linear pointer parameter: its lane size is its
   *     pointee's, which an opaque pointer does not tell
   */
  public static int narrowestBits(Function scalar, List<ParamKind> kinds) {
    int nds = Integer.MAX_VALUE;
    Type rt = scalar.returnType();
    if (!rt.isVoid()) nds = scalarBits(rt);
    for (int i = 0; i < kinds.size(); i++) {
      Type t = scalar.param(i).type();
      if (t.isPointer() && !(kinds.get(i) instanceof ParamKind.Varying)) {
        throw new IllegalArgumentException("parameter #" + i + " is a " + kinds.get(i).letters() + " pointer: the AArch64"
            + " vector function ABI sizes its lane by the pointee, which an opaque pointer does not tell");
      }
      nds = Math.min(nds, t.isPointer() ? 64 : scalarBits(t));
    }
    return nds == Integer.MAX_VALUE ? 32 : nds;
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
    if (isa == 's') throw bad(name, "SVE variants (_ZGVs) are made with --vector-abi --scalable (scalable packets) or, when"
        + " declared ('#pragma omp declare simd' compiled for +sve), by --declared-variants; not from a name");
    if ("bcden".indexOf(isa) < 0) throw bad(name, "ISA '" + isa + "' is not an x86 one (b, c, d, e) or AArch64 Advanced SIMD (n)");
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
    List<ParamKind> kinds = parameterTokens(name, name.substring(i, us));
    String scalar = scalarOf(name, us);
    return Optional.of(new Variant(isa, m == 'M', vlen, kinds, scalar));
  }

  private static List<ParamKind> parameterTokens(String name, String params) {
    for (String unsupported : List.of("ls", "R", "L", "U")) {
      if (params.contains(unsupported)) {
        throw bad(name, "parameter token '" + unsupported + "' (linear by reference or with a runtime step) is not supported");
      }
    }
    if (params.indexOf('s') >= 0) throw bad(name, "'s' is not a vector-function-ABI parameter token");
    try {
      return ParamKind.parseLetters(params);
    } catch (IllegalArgumentException e) {
      throw bad(name, e.getMessage());
    }
  }

  private static String scalarOf(String name, int underscore) {
    String rest = name.substring(underscore + 1);
    int paren = rest.indexOf('(');
    String scalar = paren < 0 ? rest : rest.substring(0, paren);
    if (scalar.isEmpty()) throw bad(name, "empty scalar name");
    return scalar;
  }

  /**
   * A scalable SVE variant of the AArch64 vector function ABI, {@code _ZGVsMx<params>_<scalar>}: vector
   * length agnostic, always masked (an {@code svbool_t} predicate last), as clang names the variants of
   * {@code #pragma omp declare simd} (without {@code simdlen}) for a target with SVE.
   */
  public record ScalableVariant(List<ParamKind> params, String scalarName) {
    public ScalableVariant {
      params = List.copyOf(params);
    }

    /** {@code _ZGVsMx<letters>_<scalar>}. */
    public String mangledName() {
      StringBuilder sb = new StringBuilder("_ZGVsMx");
      for (ParamKind k : params) sb.append(k.letters());
      return sb.append('_').append(scalarName).toString();
    }
  }

  /**
   * Parses {@code _ZGVsMx<params>_<scalar>}; empty for any other name (fixed-length SVE variants
   * {@code _ZGVsM4...}, which clang makes for {@code simdlen(4)}, included: they are not made here).
   *
   * @throws IllegalArgumentException for unsupported parameter tokens
   */
  public static Optional<ScalableVariant> demangleScalable(String name) {
    if (!name.startsWith("_ZGVsMx")) return Optional.empty();
    int us = name.indexOf('_', 7);
    if (us < 0) throw bad(name, "no '_' before the scalar name");
    return Optional.of(new ScalableVariant(parameterTokens(name, name.substring(7, us)), scalarOf(name, us)));
  }

  /** The scalable SVE variants {@code scalar} declares (see {@link #declaredVariants}). */
  public static List<ScalableVariant> declaredScalableVariants(Function scalar) {
    List<ScalableVariant> out = new ArrayList<>();
    for (String key : scalar.stringAttributes().keySet()) {
      try {
        demangleScalable(key).filter(v -> v.scalarName().equals(scalar.name()) && v.params().size() == scalar.paramCount())
            .ifPresent(out::add);
      } catch (IllegalArgumentException e) {
        // a token this packetizer does not implement
      }
    }
    return out;
  }

  /**
   * The lanes per 128 bits of an SVE variant: 128 over the widest lane of its result and vector
   * parameters (LLVM's loop vectorizer counts the lanes of a {@code _ZGVsMx} variant the same way; the
   * scalable packets then hold vscale × that many lanes, one SVE register each).
   */
  public static int sveLanesPer128(Function scalar, List<ParamKind> kinds) {
    int widest = 0;
    Type rt = scalar.returnType();
    if (!rt.isVoid()) widest = scalarBits(rt);
    for (int i = 0; i < kinds.size(); i++) {
      if (kinds.get(i) instanceof ParamKind.Varying) widest = Math.max(widest, scalar.param(i).type().isPointer() ? 64
          : scalarBits(scalar.param(i).type()));
    }
    return widest == 0 ? 4 : Math.max(1, 128 / widest);
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

  // ---------------------------------------------------------------------------------------------
  // the x86 vector function ABI's calling convention

  /** LLVM's calling convention number of AArch64's vector procedure call standard ({@code aarch64_vector_pcs}). */
  public static final int AARCH64_VECTOR_PCS = 97;

  /** The suffix of the packet function in LLVM's own form when the ABI form differs from it. */
  public static final String IR_FORM_SUFFIX = SignatureAbi.IR_FORM_SUFFIX;

  /**
   * Bits of the characteristic data type (x86 vector function ABI): the return type unless void,
   * else the first vector ({@code v}) parameter's type, else {@code int}. Masks of b/c/d variants
   * are vectors of integers of this width, and it decides how many lanes an e mask chunk holds.
   */
  public static int characteristicBits(Function scalar, List<ParamKind> kinds) {
    Type rt = scalar.returnType();
    if (!rt.isVoid()) return scalarBits(rt);
    for (int i = 0; i < kinds.size(); i++) {
      if (kinds.get(i) instanceof ParamKind.Varying) return scalarBits(scalar.param(i).type());
    }
    return 32;
  }

  private static int scalarBits(Type t) {
    if (t.isInteger()) return Math.max(8, t.intWidth());
    if (t.isFloat()) return 32;
    return 64; // double, pointers
  }

  /** Whether the ABI returns a vector of {@code bits} through memory (it needs more than one register). */
  public static boolean returnsInMemory(char isa, long bits) {
    return bits > SignatureAbi.registerBits(isa);
  }

  /**
   * Whether the ABI form of {@code v} differs from the packet function LLVM's loop vectorizer calls
   * ({@code <W x i1>} mask, vector results in registers): masked variants take the ABI's mask, and
   * results that need more than one register are returned through memory.
   */
  public static boolean needsAbiForm(Variant v, Function packet) {
    // Advanced SIMD variants use the vector procedure call standard (aarch64_vector_pcs)
    if (v.masked() || v.isa() == 'n') return true;
    Type rt = packet.returnType();
    return rt.isVector() && returnsInMemory(v.isa(), vectorBits(rt));
  }

  private static long vectorBits(Type t) {
    return t.isVector() ? (long) scalarBits(t.elementType()) * t.vectorSize() : 0;
  }

  /**
   * Builds {@code abiName}, the variant as the x86 vector function ABI (and GCC's SIMD clones) pass
   * it, around {@code natural} (the packet function in LLVM's form, ending in a {@code <W x i1>}
   * mask parameter when masked):
   *
   * <ul>
   *   <li>vector parameters are passed as they are: LLVM splits a vector wider than the ISA's register
   *       into consecutive registers exactly as the ABI does;
   *   <li>the mask of b/c/d variants is a vector of W integers as wide as the characteristic data
   *       type, a lane is active when it is not zero; the mask of e variants is one {@code i32} per
   *       512-bit chunk of characteristic-type lanes, bit j of chunk c for lane c*L+j;
   *   <li>a vector result wider than one register is returned through memory (an {@code sret}
   *       pointer in the first integer register), as GCC does.
   * </ul>
   */
  public static Function buildAbiForm(LlvmModule module, Function natural, Variant v, Function scalar, String abiName) {
    var ctx = module.context();
    int w = v.vlen();
    List<Type> naturalParams = natural.functionType().paramTypes();
    int dataParams = naturalParams.size() - (v.masked() ? 1 : 0);
    boolean aarch64 = v.isa() == 'n';
    // x86: the mask's lanes are as wide as the characteristic data type; AArch64: the narrowest data size
    int cdt = aarch64 ? narrowestBits(scalar, v.params()) : characteristicBits(scalar, v.params());
    Type rt = natural.returnType();
    // (AArch64 returns vectors of up to four registers in v0-v3, as LLVM does)
    boolean sret = !aarch64 && rt.isVector() && returnsInMemory(v.isa(), vectorBits(rt));
    List<Type> params = new ArrayList<>();
    if (sret) params.add(ctx.ptrType());
    for (int i = 0; i < dataParams; i++) params.add(naturalParams.get(i));
    int chunks = 0;
    int lanesPerChunk = 0;
    if (v.masked()) {
      if (v.isa() == 'e') {
        lanesPerChunk = Math.min(w, 512 / cdt);
        chunks = (w + lanesPerChunk - 1) / lanesPerChunk;
        for (int c = 0; c < chunks; c++) params.add(ctx.i32());
      } else {
        params.add(ctx.intType(cdt).vectorOf(w));
      }
    }
    Function abi = module.addFunction(abiName, ctx.functionType(sret ? ctx.voidType() : rt, params, false));
    for (var e : natural.stringAttributes().entrySet()) abi.setStringAttribute(e.getKey(), e.getValue());
    for (String attr : List.of("nounwind", "willreturn", "mustprogress")) {
      if (natural.hasEnumAttribute(attr)) abi.addEnumAttribute(attr);
    }
    int align = SignatureAbi.registerBits(v.isa()) / 8;
    if (sret) {
      abi.addParamTypeAttribute(0, "sret", rt);
      abi.addParamIntAttribute(0, "align", align);
      abi.param(0).setName("result");
    }
    try (org.packetizer.core.ir.IrBuilder b = new org.packetizer.core.ir.IrBuilder(ctx)) {
      b.atEnd(abi.appendBlock("entry"));
      List<Value> args = new ArrayList<>();
      int first = sret ? 1 : 0;
      for (int i = 0; i < dataParams; i++) {
        Value p = abi.param(first + i);
        String n = natural.param(i).name();
        if (!n.isEmpty()) p.setName(n);
        args.add(p);
      }
      if (v.masked()) {
        Type maskType = ctx.i1().vectorOf(w);
        Value mask;
        if (v.isa() == 'e') {
          List<Value> parts = new ArrayList<>();
          for (int c = 0; c < chunks; c++) {
            Value bits = abi.param(first + dataParams + c);
            bits.setName("mask" + c);
            Value t = b.cast(org.packetizer.core.ir.Opcode.TRUNC, bits, ctx.intType(lanesPerChunk), "mask" + c + ".lanes");
            parts.add(b.cast(org.packetizer.core.ir.Opcode.BITCAST, t, ctx.i1().vectorOf(lanesPerChunk), "mask" + c + ".bits"));
          }
          mask = concat(b, parts, lanesPerChunk);
        } else {
          Value m = abi.param(first + dataParams);
          m.setName("mask");
          mask = b.icmpNe(m, b.constNull(m.type()), "active");
        }
        if (!mask.type().equals(maskType)) throw new IllegalStateException("mask type " + mask.type() + " != " + maskType);
        args.add(mask);
      }
      Value r = b.call(natural, args, rt.isVoid() ? "" : "r");
      r.setInstructionCallConv(natural.callingConvention());
      if (sret) {
        b.store(r, abi.param(0), align);
        b.retVoid();
      } else if (rt.isVoid()) {
        b.retVoid();
      } else {
        b.ret(r);
      }
    }
    if (aarch64) {
      abi.setCallingConvention(AARCH64_VECTOR_PCS);
      return abi;
    }
    SignatureAbi.fitSignature(abi);
    SignatureAbi.raise(abi, SignatureAbi.widestVectorBits(natural.functionType(), null));
    return abi;
  }

  /** Concatenates equally long vectors (a power-of-two count) into one. */
  private static Value concat(org.packetizer.core.ir.IrBuilder b, List<Value> parts, int len) {
    List<Value> cur = parts;
    int n = len;
    while (cur.size() > 1) {
      List<Value> next = new ArrayList<>();
      for (int i = 0; i < cur.size(); i += 2) {
        List<Value> idx = new ArrayList<>();
        for (int j = 0; j < 2 * n; j++) idx.add(b.i32(j));
        next.add(b.shuffle(cur.get(i), cur.get(i + 1), b.constVector(idx), "mask.cat"));
      }
      cur = next;
      n *= 2;
    }
    return cur.get(0);
  }
}
