package org.packetizer.core.mask;

import org.packetizer.core.ir.Function;
import org.packetizer.core.ir.IrBuilder;
import org.packetizer.core.ir.LlvmModule;
import org.packetizer.core.ir.Type;
import org.packetizer.core.ir.Value;

/**
 * Mask arithmetic on {@code <W x i1>} (thesis 4.2). Conjunctions are built as selects, not
 * {@code and}: a lane whose mask bit is false must yield false even when the other operand is poison
 * there (values of inactive lanes may be poison), so edge masks never carry poison into a branch.
 */
public final class MaskOps {
  private final LlvmModule module;
  private final IrBuilder b;
  private final int width;
  private final Type maskType;
  /** {@link #any} as {@code icmp ne (bitcast m to iW), 0} instead of {@code llvm.vector.reduce.or}. */
  private final boolean bitTest;

  public MaskOps(LlvmModule module, IrBuilder builder, int width) { this(module, builder, width, false); }

  /**
   * With {@code bitTest}, {@link #any} emits the any-lane test in the form InstCombine turns {@code
   * llvm.vector.reduce.or} of an i1 vector into, so the clean-up does not rewrite it (issue 16). Scalable
   * packets are re-typed after the clean-up, which has made this form anyway: {@code ScalablePackets}
   * turns it back into a reduction of the scalable mask.
   */
  public MaskOps(LlvmModule module, IrBuilder builder, int width, boolean bitTest) {
    this.module = module;
    this.b = builder;
    this.width = width;
    this.maskType = builder.context().i1().vectorOf(width);
    this.bitTest = bitTest;
  }

  /**
   * Knob: {@code -Dpacketizer.anyLaneBitTest=false} emits every any-lane test as {@code
   * llvm.vector.reduce.or}, as before the thirteenth round (the clean-up's InstCombine then rewrites it
   * to the bit test); on by default.
   */
  public static boolean bitTestEnabled() {
    return !"false".equalsIgnoreCase(System.getProperty("packetizer.anyLaneBitTest", "true"));
  }

  public Type maskType() { return maskType; }

  public Value allTrue() { return b.allOnes(maskType); }

  public Value allFalse() { return b.constNull(maskType); }

  /** {@code m AND c} per lane, false wherever m is false (poison-safe in c). */
  public Value and(Value m, Value c, String name) {
    if (isAllFalse(m)) return m;
    if (!c.type().isVector() && !isAllTrue(m)) {
      // a uniform condition selects the whole mask (no broadcast of an i1 into every lane)
      return b.select(frozen(c, name), m, allFalse(), name);
    }
    Value cv = c.type().isVector() ? c : b.splat(c, width, name + ".c");
    if (isAllTrue(m)) return cv;
    return b.select(m, cv, allFalse(), name);
  }

  /**
   * {@code m AND NOT c} per lane, poison-safe in c's inactive lanes: a lane that is off in m may hold
   * poison in c (a gather's or a guarded load's lanes that did not load, a phi's lanes that did not
   * take the edge), and a select on a poison condition is poison, so m is the select's condition and
   * NOT c only the chosen arm (a {@code select c, false, m} would leak that poison into the mask, and
   * a branch on {@code reduce.or} of it is undefined behaviour LLVM may fold away).
   */
  public Value andNot(Value m, Value c, String name) {
    if (isAllFalse(m)) return m;
    if (!c.type().isVector()) {
      // a uniform condition selects the whole mask (no broadcast of an i1 into every lane)
      return b.select(isAllTrue(m) ? c : frozen(c, name), allFalse(), m, name);
    }
    if (isAllTrue(m)) return b.not(c, name);
    return b.select(m, b.not(c, name + ".not"), allFalse(), name);
  }

  /**
   * A uniform condition {@code c} used to select a partial mask, frozen. Under a partial mask the
   * block may run with no lane active, and then a uniform value computed there need not be defined:
   * the condition of a block clang or the clean-up proved unreachable is {@code poison}, and a value
   * built from lanes that never arrived (a phi's, a gather's under an empty mask) may be too. A
   * select on a poison condition is poison even when both arms are all-false, so the mask (and every
   * mask ORed with it downstream) would be poison, and LLVM may treat a masked store or a branch on
   * it as undefined behaviour. {@code freeze} picks some fixed value there, which is harmless: with
   * no lane active both arms are the empty mask. With a lane active the scalar function computed c
   * for that lane, so c is defined and freeze returns it unchanged.
   */
  public Value frozen(Value c, String name) {
    if (c.isConstantInt()) return c;
    return b.freeze(c, name + ".frozen");
  }

  public Value or(Value a, Value c, String name) {
    if (isAllFalse(a)) return c;
    if (isAllFalse(c)) return a;
    return b.or(a, c, name);
  }

  /**
   * True when any lane of the mask is set: {@code llvm.vector.reduce.or}, or with {@code bitTest} the
   * mask's bits as one integer compared with 0 (the compare named, the bit cast not, as InstCombine leaves them).
   */
  public Value any(Value m, String name) {
    if (isAllTrue(m)) return b.i1(true);
    if (isAllFalse(m)) return b.i1(false);
    if (bitTest) {
      Type iw = b.context().intType(width);
      return b.icmpNe(b.cast(org.packetizer.core.ir.Opcode.BITCAST, m, iw, ""), b.constNull(iw), name);
    }
    Function f = module.intrinsic("llvm.vector.reduce.or", maskType);
    return b.call(f, java.util.List.of(m), name);
  }

  public static boolean isAllTrue(Value m) {
    return m.isAllOnesValue();
  }

  public static boolean isAllFalse(Value m) {
    return m.isConstant() && !m.isConstantExpr() && m.isNullValue();
  }
}
