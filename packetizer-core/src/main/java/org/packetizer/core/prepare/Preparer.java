package org.packetizer.core.prepare;

import org.packetizer.core.api.PacketizationException;
import org.packetizer.core.api.PacketizerOptions;
import org.packetizer.core.ir.Block;
import org.packetizer.core.ir.Function;
import org.packetizer.core.ir.LlvmException;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.ir.Opcode;
import org.packetizer.core.ir.Type;
import org.packetizer.core.ir.Value;

/**
 * Preparatory transformations (thesis 4.1) on the copy of the scalar function: optional classic
 * clean-up, then switch lowering, irreducible control flow made reducible, return unification, loop
 * simplification (one preheader, one latch, dedicated exits) and LCSSA. Phi canonicalization is not
 * needed: the emitter blends phis of any arity through their slots.
 */
public final class Preparer {
  private Preparer() {}

  /** Classic scalar clean-up before packetization (thesis: "Classic Optimizations"). */
  public static final String OPTIMIZE = "sroa,early-cse,simplifycfg,instcombine<no-verify-fixpoint>";

  /** The structural canonicalization every packetization needs. */
  public static final String CANONICALIZE = "lower-switch,fix-irreducible,mergereturn,loop-simplify,lcssa";

  public static void prepare(LlvmModule module, Function copy, PacketizerOptions options, String scalarName) {
    try {
      if (options.prepareOptimize()) LlvmModule.runPasses(copy, OPTIMIZE, null);
      LlvmModule.runPasses(copy, CANONICALIZE, null);
    } catch (LlvmException e) {
      throw new PacketizationException(PacketizationException.Kind.INTERNAL,
          "preparatory passes failed: " + e.getMessage(), scalarName);
    }
    // readable names for remarks, DOT graphs and the packet IR (clang discards value names)
    int bi = 0;
    int vi = 0;
    for (Block b : copy.blocks()) {
      if (b.name().isEmpty()) b.asValue().setName("bb" + bi);
      bi++;
      for (Value v : b.instructions()) {
        if (v.name().isEmpty() && !v.type().isVoid()) v.setName("v" + vi++);
      }
    }
    for (Value p : copy.params()) if (p.name().isEmpty()) p.setName("arg" + vi++);
    for (Block b : copy.blocks()) {
      Value t = b.terminator();
      if (t != null && t.opcode() == Opcode.SWITCH) {
        throw new PacketizationException(PacketizationException.Kind.INTERNAL, "switch survived lower-switch", scalarName);
      }
    }
  }

  /**
   * Rejects constructs the packetizer does not handle, naming block and instruction: exception
   * handling, indirect branches, callbr, va_arg, scalable vectors, and types that cannot be
   * packetized.
   */
  public static void checkSupported(Function f, String name) {
    for (Block b : f.blocks()) {
      for (Value i : b.instructions()) {
        Opcode op = i.opcode();
        String why = switch (op) {
          case INVOKE, LANDINGPAD, RESUME, CLEANUPRET, CATCHRET, CATCHPAD, CLEANUPPAD, CATCHSWITCH ->
              "exception handling ('" + op.mnemonic() + "') is not supported";
          case INDIRECTBR -> "indirect branches ('indirectbr') are not supported";
          case CALLBR -> "'callbr' (asm goto) is not supported";
          case VAARG -> "'va_arg' is not supported";
          default -> null;
        };
        if (why == null && i.type().kind() == Type.Kind.SCALABLE_VECTOR) why = "scalable vectors are not supported";
        if (why == null) {
          for (Value o : i.operands()) {
            if (o != null && !o.isBasicBlockValue() && !o.isMetadataAsValue() && o.type().kind() == Type.Kind.SCALABLE_VECTOR) {
              why = "scalable vectors are not supported";
              break;
            }
          }
        }
        if (why == null && op == Opcode.CALL && i.calledOperand().isInlineAsm()) why = "inline assembly is not supported";
        if (why == null && op == Opcode.CALL && i.callHasFunctionAttribute("returns_twice")) {
          // setjmp, sigsetjmp, vfork, ...: a second return (longjmp) into a packet function would resume
          // every lane at once with one lane's state; no packetization can honour that
          why = "a call to " + i.calledFunction().map(c -> "@" + c.name()).orElse("an indirect callee")
              + ", which returns twice (attribute returns_twice, as setjmp, sigsetjmp and vfork), is not supported";
        }
        if (why != null) throw PacketizationException.unsupported(why, name, b.describe(), i.print());
      }
    }
  }
}
