package org.packetizer.core.api;

import java.util.Locale;

/**
 * Why a function cannot be packetized as asked: one named reason per rejection, decided by the
 * legality phase before any IR changes (in the manner of the tags of LLVM's
 * {@code reportVectorizationFailure}). Each reason belongs to one {@link PacketizationException.Kind}:
 * the request is wrong ({@code INVALID_INPUT}) or the input uses a construct the packetizer does not
 * handle ({@code UNSUPPORTED}). Carried by {@link PacketizationException#reason()} and by a
 * {@link Remark.Kind#REJECTED} remark; {@link #tag()} is its stable name in messages and remark files.
 */
public enum Rejection {
  // ---- the request (INVALID_INPUT)
  /** The packet width is not a power of two from 2 to 256. */
  INVALID_WIDTH(false),
  /** The SIMD function's name is missing, equals the scalar one, or is taken in the module. */
  INVALID_NAME(false),
  /** Options that exclude each other (e.g. cAbi with vectorAbi). */
  CONFLICTING_OPTIONS(false),
  /** No function of that name in the module. */
  NO_SUCH_FUNCTION(false),
  /** The function is only declared. */
  NO_BODY(false),
  /** The input module does not pass LLVM's verifier. */
  INVALID_IR(false),
  /** Parameter kinds that do not fit the parameters (count, linear on a float, ...). */
  INVALID_PARAMETERS(false),
  /** A declared SIMD prototype (or vector-function-ABI name) that does not fit the scalar function. */
  PROTOTYPE_MISMATCH(false),
  /** A user-registered vector variant that does not fit its calls. */
  INVALID_MAPPING(false),
  /** A packet width that the hardware width does not divide, or no vector register at all. */
  INVALID_HARDWARE_WIDTH(false),

  // ---- the input (UNSUPPORTED)
  /** A variadic function. */
  VARIADIC(true),
  /** Exception handling: invoke, landingpad, resume, the funclet pads. */
  EXCEPTION_HANDLING(true),
  /** Control flow the packetizer cannot linearize: indirectbr, callbr, irreducible loops left over. */
  UNSUPPORTED_CONTROL_FLOW(true),
  /** Scalable vectors. */
  SCALABLE_VECTOR(true),
  /** Inline assembly. */
  INLINE_ASM(true),
  /** A call to a function that returns twice (setjmp, vfork). */
  RETURNS_TWICE(true),
  /** va_arg. */
  VA_ARG(true),
  /** A varying value, parameter or return value of a type with no packet form (x86_fp80, ...). */
  UNSUPPORTED_TYPE(true),
  /** An instruction with no packet form on varying operands (e.g. a GEP computing a vector of pointers). */
  UNSUPPORTED_INSTRUCTION(true),
  /** A volatile or atomic memory access that the lanes would have to make through varying addresses. */
  VOLATILE_OR_ATOMIC_VARYING(true),
  /** A use of a struct-of-arrays pointer the packetizer cannot follow. */
  STRUCT_OF_ARRAYS(true),
  /** An SPMD intrinsic (pk_*) used in a way this packetization cannot provide. */
  SPMD_INTRINSIC(true),
  /** A packet function the wrapper (thesis 4.6) or the C calling convention form cannot serve. */
  UNSUPPORTED_SIGNATURE(true);

  private final boolean unsupported;

  Rejection(boolean unsupported) { this.unsupported = unsupported; }

  /** The exception kind this reason is reported with. */
  public PacketizationException.Kind kind() {
    return unsupported ? PacketizationException.Kind.UNSUPPORTED : PacketizationException.Kind.INVALID_INPUT;
  }

  /** The reason's stable name: lower case with dashes, e.g. {@code unsupported-type}. */
  public String tag() { return name().toLowerCase(Locale.ROOT).replace('_', '-'); }
}
