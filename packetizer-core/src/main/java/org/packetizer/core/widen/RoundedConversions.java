package org.packetizer.core.widen;

import java.util.ArrayList;
import java.util.List;
import org.packetizer.core.ir.Block;
import org.packetizer.core.ir.Function;
import org.packetizer.core.ir.IrBuilder;
import org.packetizer.core.ir.LlvmContext;
import org.packetizer.core.ir.Opcode;
import org.packetizer.core.ir.Type;
import org.packetizer.core.ir.Value;

/**
 * A conversion of rounded floats to integers, {@code fptosi <16k x float> (llvm.floor(x)) to <16k x
 * i32>} (and {@code llvm.ceil}, {@code llvm.rint}, {@code llvm.nearbyint}), as AVX-512's conversion with
 * an embedded rounding mode ({@code vcvtps2dq {rd-sae}}, {@code {ru-sae}}, {@code {rn-sae}}; the
 * intrinsic {@code llvm.x86.avx512.mask.cvtps2dq.512}), where the rounded floats have no other user:
 * one instruction per 16 lanes where LLVM emits two ({@code vrndscaleps} and {@code vcvttps2dq}). The
 * shape is C's {@code (int)floorf(x)}, the cell index of grids, noise, textures and checkerboards.
 *
 * <p>Why only 512-bit vectors: the embedded rounding mode exists for register operands of 512 bits
 * (AVX-512F); the 256-bit form (AVX-512VL) has none. So this is a W16 (and W32, per 16 lanes) rewrite.
 * On Zen 4 each of the two instructions it replaces takes a 256-bit pipe for two cycles per 16 lanes
 * (measured: {@code vrndscaleps}, {@code vcvttps2dq} and {@code vcvtps2dq {rd-sae}} zmm at one per cycle
 * each, docs/performance.md).
 *
 * <p>Exact: for x whose rounded value fits in i32 the conversion with rounding mode r of x is the
 * rounding r of x, converted exactly; elsewhere (NaN, out of range) {@code fptosi} is poison, which the
 * hardware's 0x80000000 refines (and what the scalar code's {@code cvttss2si} gives too). {@code rint}
 * and {@code nearbyint} round by the current mode, which LLVM's default floating-point environment
 * (no {@code strictfp}) takes to be to nearest even. {@code {sae}} raises no exception, as
 * {@code nearbyint} and {@code vrndscaleps $9} do not.
 *
 * <p>Runs after the clean-up (InstCombine does not know the target intrinsic), on targets with
 * AVX-512F ({@link MaskDemotion#hasMaskRegisters}) where the packet function's own target allows it
 * too. Knob {@code -Dpacketizer.roundedConversions=false} (read at each use).
 */
public final class RoundedConversions {
  private RoundedConversions() {}

  /** Whether the rewrite is on ({@code -Dpacketizer.roundedConversions}, default true). */
  public static boolean enabled() {
    return !"false".equalsIgnoreCase(System.getProperty("packetizer.roundedConversions", "true"));
  }

  /** Lanes per conversion: a 512-bit vector of 32-bit elements. */
  static final int LANES = 16;

  /** The rounding operand of the intrinsic for a rounding intrinsic's name, or -1: the mode, plus 8 (suppress all exceptions). */
  static int rounding(String callee) {
    if (callee.startsWith("llvm.floor.")) return 1 | 8;
    if (callee.startsWith("llvm.ceil.")) return 2 | 8;
    if (callee.startsWith("llvm.rint.") || callee.startsWith("llvm.nearbyint.")) return 8;
    return -1;
  }

  /**
   * Rewrites the rounded conversions of {@code f}; {@code avx512} says whether its target has
   * AVX-512F (the caller's decision). Returns how many {@code fptosi} became conversions with a
   * rounding mode.
   */
  public static int run(Function f, boolean avx512) {
    if (!avx512 || !enabled()) return 0;
    String features = f.stringAttribute("target-features").orElse("");
    if (features.contains("-evex512") || features.contains("-avx512f")) return 0;
    List<Value> found = new ArrayList<>();
    for (Block bb : f.blocks()) {
      for (Value i = bb.firstInstruction(); i != null; i = i.nextInstruction()) {
        if (rounded(i) != null) found.add(i);
      }
    }
    if (found.isEmpty()) return 0;
    LlvmContext ctx = f.functionType().context();
    Function cvt = f.module().intrinsic("llvm.x86.avx512.mask.cvtps2dq.512");
    Type v16i32 = ctx.i32().vectorOf(LANES);
    int n = 0;
    try (IrBuilder b = new IrBuilder(ctx)) {
      for (Value conv : found) {
        Value call = rounded(conv);
        if (call == null) continue;
        int mode = rounding(call.calledFunction().orElseThrow().name());
        Value x = call.operand(0);
        int lanes = conv.type().vectorSize();
        b.before(conv);
        List<Value> parts = new ArrayList<>();
        for (int c = 0; c < lanes / LANES; c++) {
          Value part = VectorParts.slice(b, x, c * LANES, LANES);
          parts.add(b.call(cvt, List.of(part, b.poison(v16i32), b.constInt(ctx.intType(16), -1), b.i32(mode)), "rounded.int"));
        }
        // the parts joined again, pairwise (lanes / 16 is a power of two)
        conv.replaceAllUsesWith(VectorParts.concat(b, parts));
        conv.eraseFromParent();
        if (call.users().isEmpty()) call.eraseFromParent();
        n++;
      }
    }
    return n;
  }

  /**
   * The rounding call of {@code i} when {@code i} is {@code fptosi} of a rounded {@code <16k x float>}
   * (k a power of two) to {@code <16k x i32>} whose every user is such a conversion; else null.
   */
  static Value rounded(Value i) {
    if (!i.isInstruction() || i.opcode() != Opcode.FPTOSI || !i.type().isVector()) return null;
    Type t = i.type();
    int lanes = t.vectorSize();
    if (!t.elementType().isInteger() || t.elementType().intWidth() != 32 || lanes % LANES != 0 || Integer.bitCount(lanes / LANES) != 1) {
      return null;
    }
    Value call = i.operand(0);
    if (!call.isInstruction() || call.opcode() != Opcode.CALL || !call.type().elementType().isFloat()) return null;
    String name = call.calledFunction().map(Function::name).orElse("");
    if (rounding(name) < 0) return null;
    for (Value u : call.users()) {
      if (!u.isInstruction() || u.opcode() != Opcode.FPTOSI || !u.type().equals(t)) return null;
    }
    return call;
  }
}
