package org.packetizer.core.legality;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.packetizer.core.api.PacketizationException;
import org.packetizer.core.api.PacketizerOptions;
import org.packetizer.core.api.ParamKind;
import org.packetizer.core.api.Rejection;
import org.packetizer.core.ir.Block;
import org.packetizer.core.ir.Function;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.ir.Opcode;
import org.packetizer.core.ir.Type;
import org.packetizer.core.ir.Value;
import org.packetizer.core.mapping.SpmdIntrinsics;
import org.packetizer.core.mapping.VectorAbi;
import org.packetizer.core.pipeline.PacketizationState;
import org.packetizer.core.pipeline.UniformMemory;
import org.packetizer.core.widen.CompositePackets;

/**
 * Legality: decides, before the packet function's first instruction is emitted, whether the
 * function can be packetized as asked, and rejects it otherwise with a named {@link Rejection}
 * (the exception's kind and reason; the driver also reports it as a {@link
 * org.packetizer.core.api.Remark.Kind#REJECTED} remark naming function, block and instruction).
 * Two stages, because some questions need the analyses' answers:
 *
 * <ol>
 *   <li>{@link #checkRequest}, before any IR changes: the request (width, names, options), the
 *       function (body, variadic, valid IR), the constructs it uses (exception handling, indirect
 *       branches, va_arg, scalable vectors, inline assembly, returns_twice), the parameter kinds,
 *       the packet function's type and a declared prototype;
 *   <li>{@link #checkShapes}, after prepare and the analyses (on the prepared copy, which is deleted
 *       on rejection): what depends on shapes, i.e. which values are varying — a varying value of
 *       a type with no packet form, an instruction with no packet form on varying operands,
 *       volatile or atomic accesses the lanes would make through varying addresses, SPMD
 *       intrinsics the width cannot provide.
 * </ol>
 *
 * What is left to the emission phases, tagged with the same reasons but found while emitting (the
 * rollback removes what was made): struct-of-arrays uses that depend on the emitted addressing
 * (the analysis of struct-of-arrays pointers itself rejects escapes before emission), user
 * mappings checked at the call that uses them (which call uses a mapping is decided there), the
 * wrapper's hardware width and signature (checked by the wrapper before it emits anything) and
 * the C form's signature (checked when it is published).
 */
public final class Legality {
  /** The largest packet width accepted. */
  public static final int MAX_WIDTH = 256;

  private final PacketizerOptions options;

  public Legality(PacketizerOptions options) {
    this.options = options;
  }

  /** What the request check decided: the names, functions, parameter kinds and packet type to use. */
  public record Request(String simdName, Function scalar, Optional<Function> declared, List<ParamKind> kinds,
      VectorAbi.Variant abiVariant, Type packetType) {}

  /**
   * Stage 1, before any IR changes: checks the request to packetize {@code scalarName} into
   * {@code simdName} (null or blank: the vector-function-ABI name) and decides the parameter kinds
   * and the packet function's type. {@code topLevel} is false for a callee's nested packet version
   * (the module is then under construction and is not verified).
   */
  public Request checkRequest(LlvmModule module, String scalarName, String simdName, boolean topLevel) {
    int w = options.width();
    validateWidth(w, scalarName);
    boolean unnamed = simdName == null || simdName.isBlank();
    if (unnamed && !options.vectorAbi()) {
      throw invalid(Rejection.INVALID_NAME, "the SIMD function needs a name (or publish it under the vector function ABI:"
          + " PacketizerOptions.vectorAbi(true))", scalarName);
    }
    if (options.cAbi() && options.vectorAbi()) {
      throw invalid(Rejection.CONFLICTING_OPTIONS, "cAbi and vectorAbi exclude each other: the vector function ABI has its own"
          + " calling convention", scalarName);
    }
    if (options.vectorAbi()) {
      org.packetizer.core.ir.TargetArch arch = org.packetizer.core.ir.TargetArch.of(module.targetTriple());
      if (arch != org.packetizer.core.ir.TargetArch.X86 && arch != org.packetizer.core.ir.TargetArch.AARCH64) {
        throw unsupported(Rejection.UNSUPPORTED_SIGNATURE, "the vector function ABI is implemented for x86-64 (_ZGV[bcde])"
            + " and AArch64 Advanced SIMD (_ZGVn) only; the module's target is " + module.targetTriple() + "; publish the"
            + " packet function under a name of your own", scalarName, null, null);
      }
    }
    if (unnamed) simdName = vectorAbiVariant(module, scalarName, null).mangledName();
    if (simdName.equals(scalarName)) {
      throw invalid(Rejection.INVALID_NAME, "the SIMD function must have a different name than the scalar one", scalarName);
    }
    Function scalar = module.function(scalarName).orElseThrow(() -> noSuchFunction(module, scalarName));
    if (scalar.isDeclaration()) {
      throw invalid(Rejection.NO_BODY, "@" + scalarName + " is only declared; packetization needs its body", scalarName);
    }
    if (scalar.isVarArg()) {
      throw unsupported(Rejection.VARIADIC, "variadic functions cannot be packetized", scalarName, null, null);
    }
    // LLVM's passes assume valid IR (they may crash on broken input), and a broken input would
    // otherwise surface as an "internal error" about the packet function.
    // (Only at the top level: a nested packetization of a callee runs while the caller's packet
    // function is still under construction.)
    Optional<String> broken = topLevel ? module.verify() : Optional.empty();
    if (broken.isPresent()) {
      throw invalid(Rejection.INVALID_IR, "the input module '" + module.identifier() + "' is not valid IR (LLVM's verifier: "
          + broken.get() + ")", scalarName);
    }
    Optional<Function> declared = module.function(simdName);
    if (declared.isPresent() && !declared.get().isDeclaration()) {
      throw invalid(Rejection.INVALID_NAME, "@" + simdName + " is already defined in the module", scalarName);
    }
    if (declared.isEmpty() && (module.global(simdName).isPresent()
        || module.hasAlias(simdName))) {
      // LLVM would silently name the packet function @<name>.1
      throw invalid(Rejection.INVALID_NAME, "@" + simdName + " already names a global variable or alias in the module;"
          + " choose another name for the SIMD function", scalarName);
    }
    checkConstructs(scalar, scalarName);
    List<ParamKind> kinds = paramKinds(module, scalar, declared, simdName, scalarName);
    VectorAbi.Variant abiVariant = null;
    if (options.vectorAbi()) {
      // a target named by the ABI (e.g. an OpenMP declare simd variant) is published under its own name
      abiVariant = VectorAbi.demangle(simdName).filter(v -> v.scalarName().equals(scalarName))
          .orElse(vectorAbiVariant(module, scalarName, kinds));
    }
    Type packetType = packetFunctionType(module, scalar, kinds, w);
    if (abiVariant != null) checkAbiVariantFits(module, scalar, abiVariant, packetType, kinds, scalarName);
    declared.ifPresent(d -> checkPrototype(d, packetType, scalar, kinds, scalarName));
    return new Request(simdName, scalar, declared, kinds, abiVariant, packetType);
  }

  /**
   * Rejects constructs the packetizer does not handle, naming block and instruction: exception
   * handling, indirect branches, callbr, va_arg, scalable vectors, inline assembly and calls that
   * return twice.
   */
  public static void checkConstructs(Function f, String name) {
    for (Block b : f.blocks()) {
      for (Value i : b.instructions()) {
        Opcode op = i.opcode();
        Rejection r = null;
        String why = switch (op) {
          case INVOKE, LANDINGPAD, RESUME, CLEANUPRET, CATCHRET, CATCHPAD, CLEANUPPAD, CATCHSWITCH -> {
            r = Rejection.EXCEPTION_HANDLING;
            yield "exception handling ('" + op.mnemonic() + "') is not supported";
          }
          case INDIRECTBR -> {
            r = Rejection.UNSUPPORTED_CONTROL_FLOW;
            yield "indirect branches ('indirectbr') are not supported";
          }
          case CALLBR -> {
            r = Rejection.UNSUPPORTED_CONTROL_FLOW;
            yield "'callbr' (asm goto) is not supported";
          }
          case VAARG -> {
            r = Rejection.VA_ARG;
            yield "'va_arg' is not supported";
          }
          default -> null;
        };
        if (why == null && i.type().kind() == Type.Kind.SCALABLE_VECTOR) {
          r = Rejection.SCALABLE_VECTOR;
          why = "scalable vectors are not supported";
        }
        if (why == null) {
          for (Value o : i.operands()) {
            if (o != null && !o.isBasicBlockValue() && !o.isMetadataAsValue() && o.type().kind() == Type.Kind.SCALABLE_VECTOR) {
              r = Rejection.SCALABLE_VECTOR;
              why = "scalable vectors are not supported";
              break;
            }
          }
        }
        if (why == null && op == Opcode.CALL && i.calledOperand().isInlineAsm()) {
          r = Rejection.INLINE_ASM;
          why = "inline assembly is not supported";
        }
        if (why == null && op == Opcode.CALL && i.callHasFunctionAttribute("returns_twice")) {
          // setjmp, sigsetjmp, vfork, ...: a second return (longjmp) into a packet function would resume
          // every lane at once with one lane's state; no packetization can honour that
          r = Rejection.RETURNS_TWICE;
          why = "a call to " + i.calledFunction().map(c -> "@" + c.name()).orElse("an indirect callee")
              + ", which returns twice (attribute returns_twice, as setjmp, sigsetjmp and vfork), is not supported";
        }
        if (why != null) throw new PacketizationException(r, why, name, b.describe(), i.print());
      }
    }
  }

  /**
   * Stage 2, after prepare and the analyses, before emission: the rejections that depend on which
   * values are varying, in the order the emission would meet them (the schedule's block order).
   */
  public static void checkShapes(PacketizationState st) {
    UniformMemory shared = st.sharedMemory();
    for (Block bl : st.schedule().order()) {
      for (Value inst : st.ssa().instructions(bl)) {
        Opcode op = st.ssa().opcode(inst);
        if (op.isTerminator()) {
          if (op != Opcode.RET && op != Opcode.BR && op != Opcode.UNREACHABLE) {
            throw cannot(st, Rejection.UNSUPPORTED_CONTROL_FLOW, bl, inst, "the terminator '" + op.mnemonic() + "'");
          }
          break;
        }
        boolean varying = !uniform(st, inst);
        switch (op) {
          case PHI -> { if (varying) packetType(st, bl, inst, inst.type()); }
          case TRUNC, ZEXT, SEXT, FPTOUI, FPTOSI, UITOFP, SITOFP, FPTRUNC, FPEXT, PTRTOINT, INTTOPTR, ADDRSPACECAST,
               INSERTELEMENT, SHUFFLEVECTOR -> { if (varying) packetType(st, bl, inst, inst.type()); }
          case BITCAST -> {
            if (!varying) break;
            Type from = inst.operand(0).type();
            Type to = inst.type();
            packetType(st, bl, inst, to);
            if (CompositePackets.isComposite(from) || CompositePackets.isComposite(to)) packetType(st, bl, inst, from);
          }
          case CALL -> {
            if (SpmdIntrinsics.op(inst).orElse(null) == SpmdIntrinsics.Op.BALLOT && st.width() > 64) {
              throw new PacketizationException(Rejection.SPMD_INTRINSIC,
                  "pk_ballot needs a packet width of at most 64 (it returns a uint64_t)", st.scalarName(), bl.name(), inst.print());
            }
          }
          case GEP -> {
            if (varying && !st.soa().isDerived(inst) && inst.type().isVector()) {
              throw cannot(st, Rejection.UNSUPPORTED_INSTRUCTION, bl, inst, "a vector of pointers computed by a GEP with vector operands");
            }
          }
          case LOAD -> {
            Value ptr = inst.operand(0);
            boolean handledElsewhere = shared != null && shared.privateLoad(inst).isPresent() || st.soa().isDerived(ptr)
                // (an atomic load through varying addresses: one per active lane)
                || inst.isAtomic() && !inst.isVolatile() && !uniform(st, ptr);
            if ((inst.isVolatile() || inst.isAtomic()) && varying && !handledElsewhere) {
              throw cannot(st, Rejection.VOLATILE_OR_ATOMIC_VARYING, bl, inst, "a volatile or atomic load through a varying address");
            }
          }
          case STORE -> {
            if (!inst.isVolatile()) break;
            boolean handledElsewhere = shared != null && (shared.privateStore(inst).isPresent() || shared.counterStore(inst).isPresent())
                || st.soa().isDerived(inst.operand(1));
            boolean scalar = uniform(st, inst.operand(0)) && uniform(st, inst.operand(1)) && !st.divergence().mayBePartial(bl);
            if (!handledElsewhere && !scalar) {
              throw cannot(st, Rejection.VOLATILE_OR_ATOMIC_VARYING, bl, inst, "a volatile or atomic store in packet code");
            }
          }
          default -> {
            if (varying && !WIDENED.contains(op)) {
              throw cannot(st, Rejection.UNSUPPORTED_INSTRUCTION, bl, inst, "the instruction '" + op.mnemonic() + "' on varying values");
            }
          }
        }
      }
    }
  }

  /** Instructions the emission phases widen (phis, terminators and memory are checked apart). */
  private static final java.util.Set<Opcode> WIDENED = java.util.EnumSet.of(Opcode.FNEG, Opcode.ADD, Opcode.SUB, Opcode.MUL,
      Opcode.FADD, Opcode.FSUB, Opcode.FMUL, Opcode.FDIV, Opcode.FREM, Opcode.SHL, Opcode.LSHR, Opcode.ASHR, Opcode.AND,
      Opcode.OR, Opcode.XOR, Opcode.UDIV, Opcode.SDIV, Opcode.UREM, Opcode.SREM, Opcode.ICMP, Opcode.FCMP,
      Opcode.EXTRACTELEMENT, Opcode.EXTRACTVALUE, Opcode.INSERTVALUE, Opcode.FREEZE, Opcode.SELECT, Opcode.ALLOCA,
      Opcode.CALL, Opcode.ATOMICRMW, Opcode.ATOMICCMPXCHG, Opcode.FENCE);

  private static boolean uniform(PacketizationState st, Value v) {
    if (v.isConstant() || v.isBasicBlockValue() || v.isMetadataAsValue()) return true;
    return st.divergence().isUniform(v);
  }

  /** The checks of the packet type of a varying value (the emission's, with the same messages). */
  private static void packetType(PacketizationState st, Block bl, Value where, Type t) {
    if (CompositePackets.isComposite(t)) {
      try {
        CompositePackets.packetType(t, st.width());
      } catch (IllegalArgumentException e) {
        throw cannot(st, Rejection.UNSUPPORTED_TYPE, bl, where, "a varying value of type " + t + ": " + e.getMessage());
      }
      return;
    }
    if (!t.isVectorElement()) {
      throw cannot(st, Rejection.UNSUPPORTED_TYPE, bl, where,
          "a varying value of type " + t + " (only integers, floating point and pointers can be packetized)");
    }
    if (t.isFloatingPoint() && !t.isPacketFloat()) {
      throw cannot(st, Rejection.UNSUPPORTED_TYPE, bl, where, "floating-point type " + t + " cannot be packetized");
    }
  }

  private static PacketizationException cannot(PacketizationState st, Rejection r, Block bl, Value inst, String what) {
    return new PacketizationException(r, "cannot packetize " + what, st.scalarName(), bl.name(), inst.print());
  }

  /** No function {@code name} in the module: names the closest one, or the ones it defines. */
  public static PacketizationException noSuchFunction(LlvmModule module, String name) {
    return invalid(Rejection.NO_SUCH_FUNCTION, "no function @" + name + " in module '" + module.identifier() + "'"
        + suggest(module, name), null);
  }

  private static PacketizationException invalid(Rejection r, String message, String fn) {
    return new PacketizationException(r, message, fn, null, null);
  }

  private static PacketizationException unsupported(Rejection r, String message, String fn, String block, String inst) {
    return new PacketizationException(r, message, fn, block, inst);
  }

  static void validateWidth(int w, String fn) {
    if (w < 2 || w > MAX_WIDTH || Integer.bitCount(w) != 1) {
      String why = w == 1 ? " (width 1 is the scalar function itself)" : w <= 0 ? " (must be positive)"
          : w > MAX_WIDTH ? " (larger than " + MAX_WIDTH + ")" : " (not a power of two)";
      throw invalid(Rejection.INVALID_WIDTH, "invalid width " + w + why + "; use a power of two from 2 to " + MAX_WIDTH, fn);
    }
  }

  /**
   * The variant's ISA must be the module's target family's, and an Advanced SIMD variant must fit the
   * AArch64 vector function ABI as LLVM passes it: every vector in at most four 128-bit registers (the
   * ABI's extended short vectors are homogeneous aggregates of up to four), and a mask's lane size
   * (the narrowest data size) known.
   */
  private static void checkAbiVariantFits(LlvmModule module, Function scalar, VectorAbi.Variant v, Type packetType,
      List<ParamKind> kinds, String fn) {
    if (!VectorAbi.isaOfTarget(v.isa(), module.targetTriple())) {
      throw invalid(Rejection.INVALID_NAME, "the vector-function-ABI ISA '" + v.isa() + "' of @" + v.mangledName()
          + " is not one of the module's target (" + (module.targetTriple().isEmpty() ? "the host" : module.targetTriple())
          + "; x86-64: b, c, d, e; AArch64: n)", fn);
    }
    if (v.isa() != 'n') return;
    List<Type> types = new java.util.ArrayList<>(packetType.paramTypes());
    types.add(packetType.returnType());
    for (Type t : types) {
      if (t.isVector() && module.allocSize(t) * 8 > 512) {
        throw unsupported(Rejection.UNSUPPORTED_SIGNATURE, "the AArch64 vector function ABI passes a vector of more than four"
            + " 128-bit registers (" + t + ") in memory, which this packetizer does not publish; choose a smaller width",
            fn, null, null);
      }
    }
    if (v.masked()) {
      try {
        VectorAbi.narrowestBits(scalar, kinds);
      } catch (IllegalArgumentException e) {
        throw unsupported(Rejection.UNSUPPORTED_SIGNATURE, "a masked Advanced SIMD variant: " + e.getMessage(), fn, null, null);
      }
    }
  }

  /**
   * The vector-function-ABI variant the options publish for {@code scalarName}: ISA from the scalar
   * function's target features, mask and vlen from the options, parameter tokens from the kinds
   * (given, or the defaults when null).
   */
  VectorAbi.Variant vectorAbiVariant(LlvmModule module, String scalarName, List<ParamKind> kinds) {
    Function scalar = module.function(scalarName).orElseThrow(() -> noSuchFunction(module, scalarName));
    List<ParamKind> ks = kinds != null ? kinds : paramKinds(module, scalar, Optional.empty(), null, scalarName);
    try {
      return new VectorAbi.Variant(VectorAbi.isa(module.targetTriple(), scalar.stringAttribute("target-features").orElse("")), options.masked(),
          options.width(), ks, scalarName);
    } catch (IllegalArgumentException e) {
      throw invalid(Rejection.INVALID_PARAMETERS, "cannot publish @" + scalarName + " under the vector function ABI: "
          + e.getMessage() + (options.params().isEmpty() ? " (pointer parameters default to s; give the kinds)" : ""), scalarName);
    }
  }

  List<ParamKind> paramKinds(LlvmModule module, Function scalar, Optional<Function> declared, String simdName, String fn) {
    List<Value> ps = scalar.params();
    List<ParamKind> kinds;
    Optional<VectorAbi.Variant> named;
    try {
      named = simdName == null ? Optional.empty() : VectorAbi.demangle(simdName);
    } catch (IllegalArgumentException e) {
      throw invalid(Rejection.INVALID_NAME, e.getMessage(), fn);
    }
    if (options.params().isPresent()) {
      kinds = options.params().get();
      if (kinds.size() != ps.size()) {
        throw invalid(Rejection.INVALID_PARAMETERS, "@" + fn + " has " + ps.size() + " parameters but " + kinds.size()
            + " parameter kinds were given", fn);
      }
    } else if (named.isPresent()) {
      // a vector-function-ABI name (e.g. from OpenMP declare simd) carries the parameter shapes
      VectorAbi.Variant v = named.get();
      if (v.params().size() != ps.size()) {
        throw invalid(Rejection.PROTOTYPE_MISMATCH, "the vector-function-ABI name @" + simdName + " has " + v.params().size()
            + " parameter tokens but @" + fn + " has " + ps.size() + " parameters", fn);
      }
      if (v.vlen() != options.width()) {
        throw invalid(Rejection.PROTOTYPE_MISMATCH, "the vector-function-ABI name @" + simdName + " has " + v.vlen()
            + " lanes but the width is " + options.width(), fn);
      }
      if (v.masked() != options.masked()) {
        throw invalid(Rejection.PROTOTYPE_MISMATCH, "the vector-function-ABI name @" + simdName + " is " + (v.masked() ? "masked (M)"
            : "unmasked (N)") + " but the options say masked(" + options.masked() + ")", fn);
      }
      kinds = v.params();
    } else if (declared.isPresent()) {
      kinds = kindsFromPrototype(declared.get(), scalar, fn);
    } else {
      kinds = new ArrayList<>();
      for (Value p : ps) kinds.add(p.type().isPointer() ? ParamKind.SOA : ParamKind.VARYING);
    }
    for (int i = 0; i < ps.size(); i++) {
      Type t = ps.get(i).type();
      ParamKind k = kinds.get(i);
      String where = "parameter " + i + describeParam(ps.get(i)) + " of type " + t;
      switch (k) {
        case ParamKind.Varying v -> {
          if (CompositePackets.isComposite(t)) {
            try {
              CompositePackets.packetType(t, options.width());
            } catch (IllegalArgumentException e) {
              throw unsupported(Rejection.UNSUPPORTED_TYPE, where + " cannot be varying: " + e.getMessage(), fn, null, null);
            }
          } else if (!t.isVectorElement() || (t.isFloatingPoint() && !t.isPacketFloat())) {
            throw unsupported(Rejection.UNSUPPORTED_TYPE, where + " cannot be varying: only integers, half, float, double and pointers"
                + " can become packets", fn, null, null);
          }
        }
        case ParamKind.Linear l -> {
          if (!t.isInteger() && !t.isPointer()) {
            throw invalid(Rejection.INVALID_PARAMETERS, where + " cannot be linear: only integers and pointers can", fn);
          }
        }
        case ParamKind.SoaPointer s -> {
          if (!t.isPointer()) {
            throw invalid(Rejection.INVALID_PARAMETERS, where + " cannot be a struct-of-arrays pointer: it is not a pointer", fn);
          }
        }
        case ParamKind.Uniform u -> {
          if (t.kind() == Type.Kind.SCALABLE_VECTOR) {
            throw unsupported(Rejection.SCALABLE_VECTOR, where + ": scalable vectors are not supported", fn, null, null);
          }
        }
      }
    }
    return List.copyOf(kinds);
  }

  static String describeParam(Value p) {
    return p.name().isEmpty() ? "" : " (%" + p.name() + ")";
  }

  /** Thesis rule: a parameter whose packet type equals the scalar type is uniform; a packet is varying. */
  List<ParamKind> kindsFromPrototype(Function decl, Function scalar, String fn) {
    List<Type> pt = decl.functionType().paramTypes();
    List<Value> ps = scalar.params();
    int expected = ps.size() + (options.masked() ? 1 : 0);
    if (pt.size() != expected) {
      throw invalid(Rejection.PROTOTYPE_MISMATCH, "the declared prototype @" + decl.name() + " has " + pt.size()
          + " parameters but @" + fn + " has " + ps.size() + (options.masked() ? " (+1 mask)" : ""), fn);
    }
    List<ParamKind> out = new ArrayList<>();
    int w = options.width();
    for (int i = 0; i < ps.size(); i++) {
      Type s = ps.get(i).type();
      Type p = pt.get(i);
      if (p.equals(s)) out.add(s.isPointer() ? ParamKind.SOA : ParamKind.UNIFORM);
      else if (p.equals(packetTypeOrNull(s, w))) out.add(ParamKind.VARYING);
      else {
        Type packetOfS = packetTypeOrNull(s, w);
        throw invalid(Rejection.PROTOTYPE_MISMATCH, "parameter " + i + describeParam(ps.get(i)) + " of the declared prototype @"
            + decl.name() + " has type " + p + "; for scalar type " + s + " it must be " + (packetOfS == null ? "(none)" : packetOfS)
            + " (varying) or " + s + " (uniform)", fn);
      }
    }
    return out;
  }

  /**
   * The packet type of a scalar parameter or result type: {@code <W x T>} for integers, float, double
   * and pointers; for vectors and aggregates {@link CompositePackets#packetType} ({@code <N x T>} →
   * {@code <N*W x T>} element-major, structs and arrays element-wise); null when there is none.
   */
  static Type packetTypeOrNull(Type t, int w) {
    if (CompositePackets.isComposite(t)) {
      try {
        return CompositePackets.packetType(t, w);
      } catch (IllegalArgumentException e) {
        return null;
      }
    }
    if (t.isVectorElement() && (!t.isFloatingPoint() || t.isPacketFloat())) return t.vectorOf(w);
    return null;
  }

  Type packetFunctionType(LlvmModule module, Function scalar, List<ParamKind> kinds, int w) {
    var ctx = module.context();
    List<Type> params = new ArrayList<>();
    List<Value> ps = scalar.params();
    for (int i = 0; i < ps.size(); i++) {
      Type t = ps.get(i).type();
      params.add(kinds.get(i) instanceof ParamKind.Varying ? packetTypeOrNull(t, w) : t);
    }
    if (options.masked()) params.add(ctx.i1().vectorOf(w));
    Type rt = scalar.returnType();
    Type prt;
    if (rt.isVoid()) prt = rt;
    else if (packetTypeOrNull(rt, w) != null) prt = packetTypeOrNull(rt, w);
    else {
      String why = "";
      if (CompositePackets.isComposite(rt)) {
        try {
          CompositePackets.packetType(rt, w);
        } catch (IllegalArgumentException e) {
          why = ": " + e.getMessage();
        }
      }
      throw unsupported(Rejection.UNSUPPORTED_TYPE, "the return type " + rt + " cannot be packetized (only void, integers, half, float,"
          + " double, pointers and vectors and aggregates of them)" + why, scalar.name(), null, null);
    }
    return ctx.functionType(prt, params, false);
  }

  void checkPrototype(Function decl, Type expected, Function scalar, List<ParamKind> kinds, String fn) {
    Type actual = decl.functionType();
    if (actual.isVarArg()) throw invalid(Rejection.PROTOTYPE_MISMATCH, "the declared prototype @" + decl.name() + " is variadic", fn);
    List<Type> a = actual.paramTypes();
    List<Type> e = expected.paramTypes();
    if (a.size() != e.size()) {
      throw invalid(Rejection.PROTOTYPE_MISMATCH, "the declared prototype @" + decl.name() + " has " + a.size()
          + " parameters; expected " + e.size(), fn);
    }
    for (int i = 0; i < a.size(); i++) {
      if (!a.get(i).equals(e.get(i))) {
        String kind = i < kinds.size() ? kinds.get(i).getClass().getSimpleName().toLowerCase(java.util.Locale.ROOT) : "mask";
        throw invalid(Rejection.PROTOTYPE_MISMATCH, "parameter " + i + " of the declared prototype @" + decl.name() + " has type "
            + a.get(i) + " but a " + kind + " parameter needs " + e.get(i), fn);
      }
    }
    if (!actual.returnType().equals(expected.returnType())) {
      throw invalid(Rejection.PROTOTYPE_MISMATCH, "the declared prototype @" + decl.name() + " returns " + actual.returnType()
          + " but the packet of " + scalar.returnType() + " is " + expected.returnType(), fn);
    }
  }

  static String suggest(LlvmModule module, String name) {
    String best = null;
    int bestD = Integer.MAX_VALUE;
    for (Function f : module.functions()) {
      if (f.isDeclaration()) continue;
      int d = levenshtein(name, f.name());
      if (d < bestD) {
        bestD = d;
        best = f.name();
      }
    }
    if (best != null && bestD <= Math.max(2, name.length() / 3)) return "; did you mean @" + best + "?";
    List<String> defined = new ArrayList<>();
    for (Function f : module.functions()) if (!f.isDeclaration()) defined.add("@" + f.name());
    if (defined.isEmpty()) return " (it defines no functions)";
    return " (it defines " + String.join(", ", defined.subList(0, Math.min(8, defined.size())))
        + (defined.size() > 8 ? ", ..." : "") + ")";
  }

  static int levenshtein(String a, String b) {
    int[] prev = new int[b.length() + 1];
    int[] cur = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) prev[j] = j;
    for (int i = 1; i <= a.length(); i++) {
      cur[0] = i;
      for (int j = 1; j <= b.length(); j++) {
        int c = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
        cur[j] = Math.min(Math.min(cur[j - 1] + 1, prev[j] + 1), prev[j - 1] + c);
      }
      int[] t = prev;
      prev = cur;
      cur = t;
    }
    return prev[b.length()];
  }
}
