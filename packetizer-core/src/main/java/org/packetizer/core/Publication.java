package org.packetizer.core;

import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.packetizer.core.api.PacketizationException;
import org.packetizer.core.api.PacketizerOptions;
import org.packetizer.core.api.Rejection;
import org.packetizer.core.api.Remark;
import org.packetizer.core.ir.Function;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.ir.Type;
import org.packetizer.core.ir.Value;
import org.packetizer.core.mapping.SignatureAbi;
import org.packetizer.core.mapping.VectorAbi;
import org.packetizer.core.wrapper.HardwareWidth;

/**
 * Publishing a packet function to its callers: the C form of its signature ({@code cAbi}), the
 * vector function ABI's name and the announcement of the variant on the scalar function
 * ({@code vectorAbi}), and the ISA a vector-function-ABI variant is compiled for.
 */
final class Publication {
  private Publication() {}

  /**
   * {@link PacketizerOptions#cAbi}: where C passes the packet function differently from LLVM (vector
   * arguments wider than the target's widest register, the mask), {@code simdName} becomes the C
   * form around LLVM's form, renamed {@code <simdName>.ir}. Empty when LLVM's form is C's already.
   */
  static Optional<Remark> inCForm(PacketizerOptions options, LlvmModule module, String scalarName, String simdName) {
    String triple = module.targetTriple();
    boolean aarch64 = triple.startsWith("aarch64") || triple.startsWith("arm64");
    if (!triple.isEmpty() && !triple.startsWith("x86_64") && !aarch64) {
      throw PacketizationException.unsupported(Rejection.UNSUPPORTED_SIGNATURE, "the C calling convention form (cAbi) is implemented for x86-64"
          + " and AArch64 only; the module's target is " + triple, scalarName, null, null);
    }
    SignatureAbi.CConvention cc = aarch64 ? SignatureAbi.CConvention.AAPCS64 : SignatureAbi.CConvention.X86_64_SYSV;
    Function natural = module.function(simdName).orElseThrow();
    // AAPCS64 returns a struct of vectors (a homogeneous short-vector aggregate in V registers, a wider one through x8)
    boolean cStruct = aarch64 && natural.returnType().isStruct() && !natural.returnType().structElements().isEmpty()
        && natural.returnType().structElements().stream().allMatch(e -> SignatureAbi.vectorBits(e) >= 64);
    if (natural.returnType().isAggregate() && !cStruct || natural.functionType().paramTypes().stream().anyMatch(Type::isAggregate)) {
      // LLVM returns a struct of packets in registers and splits aggregate arguments; no C prototype says that
      throw PacketizationException.unsupported(Rejection.UNSUPPORTED_SIGNATURE, "the C calling convention form (cAbi) cannot express a packet function that"
          + " takes or returns aggregates (" + natural.functionType() + "); call it from LLVM IR or without cAbi",
          scalarName, null, null);
    }
    if (aarch64) {
      // AAPCS64: GCC vector types of bytes only (no C vector of bool); a result under 8 bytes has no common form
      List<Type> ps = natural.functionType().paramTypes();
      for (int i = 0; i < ps.size() - (options.masked() ? 1 : 0); i++) requireByteLanes(ps.get(i), natural, scalarName);
      Type rt = natural.returnType();
      requireByteLanes(rt, natural, scalarName);
      if (rt.isStruct()) for (Type e : rt.structElements()) requireByteLanes(e, natural, scalarName);
      if (rt.isVector() && rt.elementType().isInteger() && rt.elementType().intWidth() * rt.vectorSize() < 64) {
        throw PacketizationException.unsupported(Rejection.UNSUPPORTED_SIGNATURE, "the C calling convention form (cAbi) on AArch64 cannot"
            + " return " + rt + ": clang returns a vector of less than 8 bytes in a SIMD register, GCC in a general register;"
            + " use a wider packet (-w) or call it from LLVM IR", scalarName, null, null);
      }
    }
    // the target the packet function is compiled for: the options' (the CLI sets them on it), else its attributes
    // (the widest vector register C compilers use for arguments: 512 bits with AVX-512F, 256 with AVX, else 128;
    // AArch64: 128, with or without SVE)
    int reg = aarch64 ? 128 : Math.max(128, 32 * org.packetizer.core.wrapper.HardwareWidth.of(
        options.targetCpu().orElse(natural.stringAttribute("target-cpu").orElse("")),
        options.targetFeatures().orElse(natural.stringAttribute("target-features").orElse(""))));
    if (!SignatureAbi.cFormDiffers(natural, options.masked(), reg, cc)) return Optional.empty();
    if (options.masked() && options.width() > 64) {
      throw PacketizationException.invalid(Rejection.CONFLICTING_OPTIONS, "the C form of a masked packet function takes the mask as an integer bit mask:"
          + " at most 64 lanes, not " + options.width(), scalarName);
    }
    String irName = simdName + SignatureAbi.IR_FORM_SUFFIX;
    if (module.function(irName).isPresent() || module.global(irName).isPresent()) {
      throw PacketizationException.invalid(Rejection.INVALID_NAME, "@" + irName + " already exists in the module: it would name LLVM's form of @"
          + simdName, scalarName);
    }
    natural.setName(irName);
    SignatureAbi.buildCForm(module, natural, options.masked(), reg, simdName, cc);
    List<String> how = new java.util.ArrayList<>();
    if (SignatureAbi.hasWideVector(natural, reg)) how.add("vectors wider than " + reg + " bits " + (aarch64 ? "by reference" : "in memory"));
    if (SignatureAbi.hasSmallVectorParam(natural)) how.add("vectors of 4 bytes in a general register");
    if (cStruct && !SignatureAbi.aapcsHva(natural.returnType())) how.add("the struct result through memory (x8)");
    if (options.masked()) how.add("the mask as a " + Math.max(8, options.width()) + "-bit integer, bit j for lane j");
    return Optional.of(new Remark(Remark.Kind.NOTE, scalarName, null, null, "published in the C calling convention"
        + (aarch64 ? " (AAPCS64)" : "") + " as @" + simdName + " (" + String.join(", ", how) + "); LLVM's form is @" + irName));
  }

  private static void requireByteLanes(Type t, Function natural, String scalarName) {
    if (t.isVector() && t.elementType().isInteger() && t.elementType().intWidth() % 8 != 0) {
      throw PacketizationException.unsupported(Rejection.UNSUPPORTED_SIGNATURE, "the C calling convention form (cAbi) on AArch64 cannot"
          + " pass " + t + " (" + natural.functionType() + "): C has no vector of " + t.elementType() + "; call it from LLVM IR",
          scalarName, null, null);
    }
  }

  /**
   * Publishes {@code simdName} under the x86 vector function ABI: every function this packetization
   * made is compiled for the variant's ISA (b: SSE, c: AVX, d: AVX2, e: AVX-512F, whatever the scalar
   * function's features), and where the ABI passes the variant differently from LLVM's form (a
   * masked variant, a result wider than one register) {@code simdName} becomes a thin function in
   * the ABI's form around LLVM's form, renamed {@code <simdName>.ir}. LLVM's form is announced to the
   * call sites of the scalar function (LLVM's loop vectorizer calls it with a {@code <W x i1>} mask).
   */
  static Remark underVectorAbi(LlvmModule module, Function scalar, String simdName, VectorAbi.Variant abiVariant,
      Set<String> before) {
    String scalarName = scalar.name();
    for (Function f : SignatureAbi.createdSince(module, before)) {
      if (!f.isDeclaration()) SignatureAbi.applyIsa(f, abiVariant.isa());
    }
    Function natural = module.function(simdName).orElseThrow();
    String announced = simdName;
    String form = "";
    if (VectorAbi.needsAbiForm(abiVariant, natural)) {
      String irName = simdName + VectorAbi.IR_FORM_SUFFIX;
      if (module.function(irName).isPresent() || module.global(irName).isPresent()) {
        throw PacketizationException.invalid(Rejection.INVALID_NAME, "@" + irName + " already exists in the module: it would name LLVM's form of the"
            + " vector-function-ABI variant @" + simdName, scalarName);
      }
      natural.setName(irName);
      VectorAbi.buildAbiForm(module, natural, abiVariant, scalar, simdName);
      announced = irName;
      form = " (the ABI's form" + (abiVariant.masked() ? abiVariant.isa() == 'e' ? ", an integer bit mask" : ", a mask vector of"
          + " the characteristic type" : "") + (VectorAbi.needsAbiForm(new VectorAbi.Variant(abiVariant.isa(), false,
          abiVariant.vlen(), abiVariant.params(), scalarName), natural) ? ", the result through memory" : "")
          + "; LLVM's form" + (abiVariant.masked() ? " with a <" + abiVariant.vlen() + " x i1> mask" : "") + " is @" + irName
          + ")";
    }
    String entry = abiVariant.attributeEntry(announced);
    if (abiVariant.params().stream().anyMatch(k -> k.alignment() > 1)) {
      // LLVM's loop vectorizer matches variants by vlen, mask and parameter kinds but does not prove
      // an alignment promise at the call site: announcing this variant could make it call it with an
      // unaligned pointer
      return new Remark(Remark.Kind.NOTE, scalarName, null, null, "published as @" + simdName + form + " but not announced to"
          + " the call sites of @" + scalarName + ": its parameters promise an alignment that the loop vectorizer would not"
          + " check");
    }
    int sites = VectorAbi.annotateCallSites(module, scalarName, entry);
    // the functions holding those call sites will call the variant once vectorized: same registers
    long bits = SignatureAbi.widestVectorBits(natural.functionType(), null);
    for (Value u : scalar.users()) u.block().ifPresent(bl -> SignatureAbi.raise(bl.parent(), bits));
    return new Remark(Remark.Kind.NOTE, scalarName, null, null, "published under the vector function ABI as " + entry + "; "
        + sites + " call site(s) of @" + scalarName + " annotated" + form);
  }

  /**
   * The ISA a run is compiled for when {@code simdName} is a vector-function-ABI name for {@code scalarName} whose ISA
   * differs from the scalar function's (its {@code target-features} as they are now: after the options' target,
   * {@link RunTarget#retarget}, which gives every defined function that ISA's features for the run); else empty.
   */
  static Optional<Character> switchedIsa(LlvmModule module, String scalarName, String simdName) {
    if (simdName == null) return Optional.empty();
    Optional<VectorAbi.Variant> v;
    try {
      v = VectorAbi.demangle(simdName).filter(x -> x.scalarName().equals(scalarName));
    } catch (IllegalArgumentException e) {
      return Optional.empty(); // reported by the run
    }
    Optional<Function> scalar = module.function(scalarName);
    if (v.isEmpty() || scalar.isEmpty()) return Optional.empty();
    char isa = v.get().isa();
    if (isa == 'n') return Optional.empty(); // AArch64: one Advanced SIMD width, nothing to switch
    String own = scalar.get().stringAttribute("target-features").orElse("");
    return VectorAbi.isa(own) == isa ? Optional.empty() : Optional.of(isa);
  }
}
