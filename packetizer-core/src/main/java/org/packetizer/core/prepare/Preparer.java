package org.packetizer.core.prepare;

import org.packetizer.core.api.PacketizationException;
import org.packetizer.core.api.PacketizerOptions;
import org.packetizer.core.ir.Block;
import org.packetizer.core.ir.Function;
import org.packetizer.core.ir.LlvmException;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.ir.Opcode;
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
        if (!v.type().isVoid() && !v.hasName()) v.setName("v" + vi++);
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
}
