package org.packetizer.core.mapping;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.packetizer.core.ir.Function;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.ir.Type;
import org.packetizer.core.ir.Value;

/**
 * How a packet function's vectors travel across a call on x86.
 *
 * <p>The X86 back end passes a vector argument or result in the widest register the function's
 * features allow, but not wider than the function's {@code "min-legal-vector-width"} when the CPU
 * prefers narrower vectors: on {@code x86-64-v4} (or {@code skylake-avx512}, {@code znver4}, ...)
 * a {@code <16 x float>} of a function whose attribute says {@code "0"} travels as two ymm registers.
 * Clang marks every function whose signature (or whose calls) carry a vector of B bits with
 * {@code "min-legal-vector-width"="B"}, so a C caller passes that {@code <16 x float>} in one zmm.
 * {@link #fitSignature} gives a packet function the same mark, so that it meets such a caller (and
 * the vector function ABI's {@code e} variants, which take zmm registers).
 */
public final class SignatureAbi {
  private SignatureAbi() {}

  public static final String MIN_LEGAL_VECTOR_WIDTH = "min-legal-vector-width";

  /** The widest vector (in bits) among {@code t}'s parameters and result (0 without vectors). */
  public static long widestVectorBits(Type fnType, LlvmModule layout) {
    long max = bits(fnType.returnType(), layout);
    for (Type p : fnType.paramTypes()) max = Math.max(max, bits(p, layout));
    return max;
  }

  /** The size of vector {@code t} in bits (0 for other types). */
  public static long vectorBits(Type t) { return t.isVector() ? bits(t, null) : 0; }

  private static long bits(Type t, LlvmModule layout) {
    if (t.isVector()) {
      Type e = t.elementType();
      long eb = e.isPointer() ? 64 : e.isInteger() ? e.intWidth() : e.isFloat() ? 32 : e.isDouble() ? 64 : 0;
      return eb * t.vectorSize();
    }
    if (t.isStruct()) {
      long m = 0;
      for (Type e : t.structElements()) m = Math.max(m, bits(e, layout));
      return m;
    }
    if (t.isArray()) return bits(t.elementType(), layout);
    return 0;
  }

  /**
   * Raises {@code f}'s {@code "min-legal-vector-width"} to the widest vector of its signature, as
   * clang does for a C function with that signature (never lowers it).
   */
  public static void fitSignature(Function f) {
    raise(f, widestVectorBits(f.functionType(), null));
  }

  /** Raises {@code f}'s {@code "min-legal-vector-width"} to at least {@code bits}. */
  public static void raise(Function f, long bits) {
    if (bits <= 0) return;
    long current = legalBits(f); // (a malformed value: replaced)
    if (bits > current) f.setStringAttribute(MIN_LEGAL_VECTOR_WIDTH, Long.toString(bits));
  }

  /** The prefix of the X86 back end's own intrinsics ({@code llvm.x86.avx512.mask.cvtps2dq.512}, ...). */
  static final String X86_INTRINSIC_PREFIX = "llvm.x86.";

  /**
   * Raises the {@code "min-legal-vector-width"} of every function {@code which} accepts that calls an X86 target
   * intrinsic to the widest vector of that intrinsic's signature; returns how many functions were raised. On CPUs
   * whose tuning prefers 256-bit vectors ({@code skylake-avx512}, {@code icelake-server}, {@code sapphirerapids},
   * LLVM's host CPU on those machines: not {@code znver4}) a function whose attribute is narrower has its 512-bit
   * types legalized by splitting, which a 512-bit target intrinsic cannot be: LLVM 20 stops with "Do not know how to
   * split the result of this operator" (a JIT in the same process dies with it). The packetizer emits such intrinsics
   * where the packet's internal vectors are wider than its signature, e.g. {@code <4 x float>} values at W4 packed
   * into {@code <16 x float>} and converted by {@code llvm.x86.avx512.mask.cvtps2dq.512}. Clang marks a function
   * using {@code _mm512} intrinsics the same way. Functions the user wrote are not touched ({@code which}).
   */
  public static int fitTargetIntrinsicCallers(LlvmModule m, java.util.function.Predicate<Function> which) {
    Set<Function> raised = new LinkedHashSet<>();
    for (Function callee : m.functions()) {
      if (!callee.isDeclaration() || !callee.name().startsWith(X86_INTRINSIC_PREFIX)) continue;
      long bits = widestVectorBits(callee.functionType(), null);
      if (bits <= 128) continue;
      for (Value u : callee.users()) {
        Function caller = u.block().map(b -> b.parent()).orElse(null);
        if (caller == null || !which.test(caller)) continue;
        long before = legalBits(caller);
        raise(caller, bits);
        if (legalBits(caller) != before) raised.add(caller);
      }
    }
    return raised.size();
  }

  /**
   * Raises {@code f}'s {@code "min-legal-vector-width"} to 512 when one of its values (a parameter, an instruction's
   * result, a stored value) is a vector wider than 256 bits; returns whether it did. (Without AVX-512 the attribute
   * changes nothing: no 512-bit type is legal; and it never changes how a vector of 256 bits or less is passed.)
   * LLVM's tuning for Intel's AVX-512 CPUs ({@code skylake-avx512} to {@code sapphirerapids}, and the host CPU LLVM
   * names on them) prefers 256-bit vectors, so without the attribute such values are legalized by splitting into
   * 256-bit halves — the route no other target takes with AVX-512 present, and one LLVM 20 gets wrong: the W8 packet of
   * a function reducing {@code <4 x i32>} values ({@code <32 x i32>} inside, zero-extended to {@code <32 x i64>};
   * CompositeValuesTest {@code vector-arith.ll @ints}) returned 0 in every lane when compiled for
   * {@code skylake-avx512}, {@code icelake-server}, {@code sapphirerapids} or {@code rocketlake}, also at {@code -O0},
   * and the right values for {@code znver4} and {@code haswell} and with the attribute at 512. With it these targets
   * legalize as {@code znver4} does (512-bit registers, wider values split into 512-bit parts), the route the suite
   * checks on every kernel; packet functions of 512-bit signatures had the attribute already ({@link #fitSignature}).
   * {@code f} is left alone where its features switch 512-bit registers off ({@code -evex512}).
   */
  public static boolean fitWideVectors(Function f) {
    if (legalBits(f) >= 512) return false;
    String features = f.stringAttribute("target-features").orElse("");
    if (features.contains("-evex512") || features.contains("-avx512f")) return false;
    boolean wide = false;
    for (Value p : f.params()) wide |= vectorBits(p.type()) > 256;
    // (the function's few distinct types measured once each: issue 16, this walk asked LLVM for the kind, element
    // type and size of every instruction's type; -2 marks void, whose instructions may be stores)
    org.packetizer.core.ir.AddressMap.OfInt bitsOf = new org.packetizer.core.ir.AddressMap.OfInt(64);
    for (org.packetizer.core.ir.Block bb : f.blocks()) {
      for (Value i = bb.firstInstruction(); i != null && !wide; i = i.nextInstruction()) {
        int bits = typeBits(i.type(), bitsOf);
        if (bits > 256) wide = true;
        else if (bits == -2 && i.opcode() == org.packetizer.core.ir.Opcode.STORE && typeBits(i.operand(0).type(), bitsOf) > 256) wide = true;
      }
      if (wide) break;
    }
    if (!wide) return false;
    raise(f, 512);
    return true;
  }

  /** {@link #vectorBits} of {@code t} (capped at {@code Integer.MAX_VALUE}), -2 for void, through {@code memo} by the type's address. */
  static int typeBits(Type t, org.packetizer.core.ir.AddressMap.OfInt memo) {
    int b = memo.get(t.id());
    if (b == -1) {
      b = t.isVoid() ? -2 : (int) Math.min(Integer.MAX_VALUE, vectorBits(t));
      memo.putIfAbsent(t.id(), b);
    }
    return b;
  }

  /** {@code f}'s {@code "min-legal-vector-width"} (0 when absent or malformed). */
  static long legalBits(Function f) {
    try {
      return Long.parseLong(f.stringAttribute(MIN_LEGAL_VECTOR_WIDTH).orElse("0").strip());
    } catch (NumberFormatException e) {
      return 0;
    }
  }

  /**
   * Gives every function that calls {@code callee} directly (and {@code callee} itself) a
   * {@code "min-legal-vector-width"} at least as wide as {@code callee}'s signature, so that caller
   * and callee pass the vectors in the same registers.
   */
  public static void fitCallers(Function callee) {
    long w = widestVectorBits(callee.functionType(), null);
    if (w <= 0) return;
    raise(callee, w);
    for (Value u : callee.users()) {
      u.block().ifPresent(b -> raise(b.parent(), w));
    }
  }

  // ---------------------------------------------------------------------------------------------
  // the C calling convention (clang and GCC: x86-64 System V, AArch64 AAPCS64)

  /** Suffix of LLVM's form of a packet function whose C form differs. */
  public static final String IR_FORM_SUFFIX = ".ir";

  /** The C calling conventions whose form of GCC vector types {@link #buildCForm} knows. */
  public enum CConvention {
    /**
     * x86-64 System V: a vector up to the widest register the features allow in one register (one of 4
     * bytes or less in a general register), a wider one on the stack ({@code byval}), a wider result
     * through memory ({@code sret}).
     */
    X86_64_SYSV,
    /**
     * AArch64 AAPCS64 (clang and GCC agree, checked in their assembly): a short vector (8 or 16 bytes) in
     * a V register; a wider one passed by reference (a pointer to a copy the caller made, in a general
     * register or on the stack; not {@code byval}); a 4-byte vector in a general register (clang coerces
     * it to {@code i32}); a result wider than 16 bytes through memory whose address travels in x8
     * ({@code sret}). Independent of SVE: {@code -msve-vector-bits} does not change how GCC vector types
     * travel.
     */
    AAPCS64
  }

  /**
   * Whether {@code f} (LLVM's form, {@code masked}: its last parameter is the {@code <W x i1>} mask)
   * is passed differently by C on x86-64: a vector argument or result wider than {@code registerBits} (C passes
   * it in memory; LLVM splits it into registers), or a mask (C has no {@code <W x i1>}).
   */
  public static boolean cFormDiffers(Function f, boolean masked, int registerBits) {
    return cFormDiffers(f, masked, registerBits, CConvention.X86_64_SYSV);
  }

  /** {@link #cFormDiffers(Function, boolean, int)} under {@code cc}. */
  public static boolean cFormDiffers(Function f, boolean masked, int registerBits, CConvention cc) {
    if (masked) return true;
    if (f.returnType().isVector() && bits(f.returnType(), null) > registerBits) return true;
    if (cc == CConvention.AAPCS64 && f.returnType().isStruct() && !aapcsHva(f.returnType())) return true;
    List<Type> ps = f.functionType().paramTypes();
    for (Type p : ps) if (bits(p, null) > registerBits) return true;
    // both conventions: a vector of 4 bytes or less travels in a general register (LLVM's form: a vector register)
    for (Type p : ps) if (small(p)) return true;
    return false;
  }

  /**
   * A vector argument that C passes in a general register (clang: coerced to {@code i32}) where LLVM's
   * form takes a vector register: 4 bytes or less (x86-64: class INTEGER; AArch64: not a short vector).
   */
  private static boolean small(Type t) {
    return t.isVector() && bits(t, null) <= 32 && !(t.elementType().isInteger() && t.elementType().intWidth() % 8 != 0);
  }

  /**
   * AAPCS64: whether {@code t} is a result C returns in V registers as a homogeneous short-vector
   * aggregate (a struct of 1 to 4 vectors all of 8 or all of 16 bytes; clang and GCC count vectors of the
   * same size as one type, checked in their assembly): LLVM returns such a literal struct the same way.
   */
  public static boolean aapcsHva(Type t) {
    if (!t.isStruct()) return false;
    List<Type> es = t.structElements();
    if (es.isEmpty() || es.size() > 4) return false;
    long first = es.getFirst().isVector() ? bits(es.getFirst(), null) : 0;
    if (first != 64 && first != 128) return false;
    for (Type e : es) if (!e.isVector() || bits(e, null) != first) return false;
    return true;
  }

  /**
   * AAPCS64: the byte offset of each member of a struct of vectors {@code t} as C lays it out (a GCC
   * vector type is aligned to its size, at most 16 bytes; LLVM aligns a {@code <8 x float>} to 32).
   */
  public static long[] aapcsOffsets(Type t) {
    List<Type> es = t.structElements();
    long[] out = new long[es.size()];
    long at = 0;
    for (int i = 0; i < es.size(); i++) {
      long size = bits(es.get(i), null) / 8;
      long align = Math.min(16, Math.max(1, size));
      at = (at + align - 1) / align * align;
      out[i] = at;
      at += size;
    }
    return out;
  }

  /** Whether {@code f}'s signature has a vector wider than {@code registerBits}. */
  public static boolean hasWideVector(Function f, int registerBits) {
    if (f.returnType().isVector() && bits(f.returnType(), null) > registerBits) return true;
    for (Type p : f.functionType().paramTypes()) if (p.isVector() && bits(p, null) > registerBits) return true;
    return false;
  }

  /** Whether {@code f} takes a vector that C passes in a general register (4 bytes or less). */
  public static boolean hasSmallVectorParam(Function f) {
    for (Type p : f.functionType().paramTypes()) if (small(p)) return true;
    return false;
  }

  /** {@link #buildCForm(LlvmModule, Function, boolean, int, String, CConvention)} on x86-64. */
  public static Function buildCForm(LlvmModule module, Function natural, boolean masked, int registerBits, String cName) {
    return buildCForm(module, natural, masked, registerBits, cName, CConvention.X86_64_SYSV);
  }

  /**
   * Builds {@code cName}, the C calling convention's form of {@code natural} (LLVM's form), as clang
   * declares a C function with GCC vector types ({@code float __attribute__((vector_size(64)))}).
   * On x86-64 ({@link CConvention#X86_64_SYSV}):
   * a vector parameter wider than {@code registerBits} becomes {@code ptr byval(<W x T>) align <bytes>}
   * (C passes it on the stack), one of 4 bytes or less an {@code i32} (class INTEGER: a general register),
   * others and scalars stay; a vector result wider than
   * {@code registerBits} is returned through memory (an {@code sret} pointer, as the psABI and GCC
   * return it; clang 20 returns such a plain vector type in registers, a one-member struct holding it
   * through memory, so clang callers declare the result as such a struct). On AArch64
   * ({@link CConvention#AAPCS64}, {@code registerBits} 128): a wider vector parameter becomes a plain
   * {@code ptr} to the caller's copy (read with alignment 16, GCC's and clang's alignment of vector types
   * there), a vector of 4 bytes or less an {@code i32}, a wider result {@code sret} (in x8). Both: the mask becomes an unsigned integer of
   * max(8, W) bits, bit j for lane j (clang passes a {@code bool __attribute__((ext_vector_type(W)))}
   * so up to W = 32; W ≤ 64).
   */
  public static Function buildCForm(LlvmModule module, Function natural, boolean masked, int registerBits, String cName,
      CConvention cc) {
    var ctx = module.context();
    boolean aapcs = cc == CConvention.AAPCS64;
    List<Type> np = natural.functionType().paramTypes();
    int data = np.size() - (masked ? 1 : 0);
    List<Type> params = new ArrayList<>();
    List<Boolean> byval = new ArrayList<>();
    for (int i = 0; i < data; i++) {
      boolean wide = bits(np.get(i), null) > registerBits && np.get(i).isVector();
      byval.add(wide);
      params.add(wide ? ctx.ptrType() : small(np.get(i)) ? ctx.intType(32) : np.get(i));
    }
    int w = 0;
    if (masked) {
      w = np.get(data).vectorSize();
      if (w > 64) throw new IllegalArgumentException("a " + w + "-lane mask has no C integer type (at most 64 lanes)");
      params.add(ctx.intType(Math.max(8, w))); // widths are powers of two
    }
    Type rt = natural.returnType();
    if (aapcs && small(rt)) {
      throw new IllegalArgumentException("a " + rt + " result has no common C form on AArch64 (clang returns it in a SIMD"
          + " register, GCC in a general register)");
    }
    // a result wider than the widest register: through memory, as the psABI and GCC return it (clang 20 returns a
    // plain vector type in registers instead, but a one-member struct of it through memory, as here)
    // (AAPCS64: a struct of vectors that is no HVA is over 16 bytes, the caller checks: through memory too)
    boolean sret = rt.isVector() && bits(rt, null) > registerBits || aapcs && rt.isStruct() && !aapcsHva(rt);
    if (sret) params.addFirst(ctx.ptrType());
    int first = sret ? 1 : 0;
    Function c = module.addFunction(cName, ctx.functionType(sret ? ctx.voidType() : rt, params, false));
    if (sret) {
      c.addParamTypeAttribute(0, "sret", rt);
      c.addParamIntAttribute(0, "align", 16);
      c.param(0).setName("result");
    }
    for (var e : natural.stringAttributes().entrySet()) {
      if (!e.getKey().startsWith("_ZGV")) c.setStringAttribute(e.getKey(), e.getValue());
    }
    for (String attr : List.of("nounwind", "willreturn", "mustprogress")) {
      if (natural.hasEnumAttribute(attr)) c.addEnumAttribute(attr);
    }
    for (int i = 0; i < data; i++) {
      if (!byval.get(i) || aapcs) continue;
      c.addParamTypeAttribute(first + i, "byval", np.get(i));
      c.addParamIntAttribute(first + i, "align", bits(np.get(i), null) / 8);
    }
    try (org.packetizer.core.ir.IrBuilder b = new org.packetizer.core.ir.IrBuilder(ctx)) {
      b.atEnd(c.appendBlock("entry"));
      List<Value> args = new ArrayList<>();
      for (int i = 0; i < data; i++) {
        Value p = c.param(first + i);
        String n = natural.param(i).name();
        if (!n.isEmpty()) p.setName(n);
        Type t = np.get(i);
        if (byval.get(i)) {
          args.add(b.load(t, p, aapcs ? 16 : (int) (bits(t, null) / 8), n.isEmpty() ? "v" + i : n + ".v"));
        } else if (small(t)) {
          int tb = (int) bits(t, null);
          Value narrow = tb == 32 ? p : b.cast(org.packetizer.core.ir.Opcode.TRUNC, p, ctx.intType(tb), n.isEmpty() ? "i" + i : n + ".i");
          args.add(b.cast(org.packetizer.core.ir.Opcode.BITCAST, narrow, t, n.isEmpty() ? "v" + i : n + ".v"));
        } else {
          args.add(p);
        }
      }
      if (masked) {
        Value bitsParam = c.param(first + data);
        bitsParam.setName("mask");
        Value t = bitsParam.type().intWidth() == w ? bitsParam
            : b.cast(org.packetizer.core.ir.Opcode.TRUNC, bitsParam, ctx.intType(w), "mask.lanes");
        args.add(b.cast(org.packetizer.core.ir.Opcode.BITCAST, t, ctx.i1().vectorOf(w), "mask.bits"));
      }
      Value r = b.call(natural, args, rt.isVoid() ? "" : "r");
      r.setInstructionCallConv(natural.callingConvention());
      if (sret && rt.isStruct()) {
        // member by member at C's offsets
        long[] offsets = aapcsOffsets(rt);
        for (int i = 0; i < offsets.length; i++) {
          Value at = offsets[i] == 0 ? c.param(0) : b.gep(ctx.intType(8), c.param(0), List.of(b.i64(offsets[i])), true, "result." + i);
          b.store(b.extractValue(r, i, "r." + i), at, 16);
        }
        b.retVoid();
      } else if (sret) {
        b.store(r, c.param(0), 16);
        b.retVoid();
      } else if (rt.isVoid()) {
        b.retVoid();
      } else {
        b.ret(r);
      }
    }
    c.setCallingConvention(natural.callingConvention());
    // clang marks a function whose prototype names a vector of B bits (even one passed in memory)
    if (!aapcs) raise(c, widestVectorBits(natural.functionType(), null));
    return c;
  }

  // ---------------------------------------------------------------------------------------------
  // vector function ABI ISAs

  /**
   * The {@code target-features} of a vector-function-ABI variant for ISA {@code isa}, built from the
   * scalar function's: the ABI fixes which registers carry the vectors (b: xmm, c: ymm, AVX;
   * d: ymm, AVX2; e: zmm, AVX-512F), so the variant is compiled for exactly that ISA whatever the
   * scalar function was compiled for (as GCC compiles its SIMD clones), and features above it are
   * switched off (LLVM turns off what depends on a feature switched off).
   */
  public static String isaFeatures(char isa, String scalarFeatures) {
    Set<String> out = new LinkedHashSet<>();
    if (scalarFeatures != null) {
      for (String s : scalarFeatures.split(",")) {
        String f = s.strip();
        if (f.isEmpty()) continue;
        String name = f.substring(1);
        boolean vectorIsa = name.startsWith("avx") || name.equals("fma") || name.equals("f16c") || name.equals("evex512")
            || name.startsWith("amx") || name.equals("vaes") || name.equals("vpclmulqdq") || name.equals("gfni")
            || name.equals("xop") || name.equals("fma4");
        // features above the ISA are dropped (and switched off below); the rest (cx16, popcnt, ...) stays
        if (vectorIsa && !allowed(isa, name)) continue;
        out.add(f);
      }
    }
    out.add("+sse");
    out.add("+sse2");
    switch (isa) {
      case 'b' -> out.add("-avx");
      case 'c' -> {
        out.add("+avx");
        out.add("-avx2");
        out.add("-avx512f");
      }
      case 'd' -> {
        out.add("+avx");
        out.add("+avx2");
        out.add("-avx512f");
      }
      case 'e' -> {
        out.add("+avx");
        out.add("+avx2");
        out.add("+avx512f");
        out.add("+evex512");
      }
      default -> throw new IllegalArgumentException("unknown x86 ISA letter '" + isa + "'");
    }
    return String.join(",", out);
  }

  private static boolean allowed(char isa, String feature) {
    return switch (isa) {
      case 'b' -> false;
      case 'c' -> feature.equals("avx");
      case 'd' -> feature.equals("avx") || feature.equals("avx2") || feature.equals("fma") || feature.equals("f16c");
      default -> !feature.startsWith("amx");
    };
  }

  /** The widest vector register of ISA {@code isa}, in bits. */
  public static int registerBits(char isa) {
    return switch (isa) {
      case 'b' -> 128;
      case 'c', 'd' -> 256;
      case 'e' -> 512;
      case 'n' -> 128; // AArch64 Advanced SIMD
      default -> throw new IllegalArgumentException("unknown x86 ISA letter '" + isa + "'");
    };
  }

  /** Sets the ISA's features on {@code f} (see {@link #isaFeatures}). */
  public static void applyIsa(Function f, char isa) {
    if (isa == 'n') return; // AArch64: one Advanced SIMD register width, the function's own features
    f.setStringAttribute("target-features", isaFeatures(isa, f.stringAttribute("target-features").orElse("")));
    if (isa == 'e') raise(f, 512);
  }

  /** Functions of {@code module} whose names are not in {@code before}. */
  public static List<Function> createdSince(LlvmModule module, Set<String> before) {
    List<Function> out = new ArrayList<>();
    for (Function f : module.functions()) if (!before.contains(f.name())) out.add(f);
    return out;
  }
}
