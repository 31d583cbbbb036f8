package org.packetizer.core.wrapper;

import org.packetizer.core.ir.Function;
import org.packetizer.core.ir.Opcode;
import org.packetizer.core.ir.Value;

/**
 * The operation costs that both interleave estimates use (the rule's recurrence chains over the scalar loop, and the
 * critical path over a loop-free packet function): an operation's latency, and the issue cost of one lane of an
 * access whose address differs between lanes.
 */
public final class Latency {
  private Latency() {}

  /**
   * Issue cycles of one lane of a load or store whose address differs between lanes (x86 without
   * fast gathers: an extract, a load and an insert, about two slots of four; a hardware gather
   * issues one load per lane on two ports): a loop full of such accesses is bound by them, not by
   * its recurrence.
   */
  public static final double PER_LANE_ACCESS_CYCLES = 0.5;

  /**
   * The latency table's CPU family (eighteenth round, the first Intel host; generic names in the nineteenth): the entries
   * differ where a family's latency differs enough to flip a decision. Only the integer multiply differs so far (vector
   * multiplies of 16, 32 and 64-bit elements, which is what a varying multiply of the scalar loop becomes):
   * <ul>
   *   <li>{@link #INTEL}, Intel's big cores from Haswell to Granite Rapids (incl. the Alder/Raptor Lake P-cores), and
   *       the ISA levels {@code x86-64-v3} / {@code x86-64-v4}, which LLVM schedules with its Haswell and Skylake-server
   *       models: {@code vpmulld} 10 cycles (two uops), {@code vpmullq} 15 (three), {@code vpmullw} 5 (uops.info and
   *       Agner Fog's instruction tables for Haswell, Skylake(-X), Ice Lake, Alder Lake-P; LLVM 20's models alike);</li>
   *   <li>{@link #SANDY_BRIDGE}: the generic names {@code x86-64}, {@code x86-64-v2}, {@code generic} and none
   *       (empty), which LLVM schedules with its Sandy Bridge model, and the cores that model serves by name (Core 2,
   *       Nehalem, Westmere, Sandy/Ivy Bridge): {@code pmulld} / {@code pmullw} 5 (the bundled {@code llvm-mca
   *       -mcpu=x86-64-v2}; Agner Fog's Sandy Bridge figures alike), a 64-bit multiply 7 (no {@code pmullq}: three
   *       {@code pmuludq}, shifts and adds);</li>
   *   <li>{@link #GENERIC} (AMD Zen and every other x86 CPU name): 3 cycles, what the table said before (Zen 4:
   *       {@code vpmulld}/{@code vpmullq}/{@code vpmullw} 3; Zen 1-3 3-4), so znver4's decisions stay;</li>
   *   <li>{@link #ARM}: AArch64 (its own float entries, below).</li>
   * </ul>
   * Checked and left alike (docs/performance.md, eighteenth round): fadd 3 (Haswell 3, Skylake and later 4, Zen 4 3),
   * fmul 4 (Haswell 5, Skylake and later 4, Zen 4 3), FMA 4 (all), integer add/logic/shift 1 (all).
   */
  public enum Family {
    GENERIC("generic x86 (integer multiply 3 cycles, as Zen)"),
    SANDY_BRIDGE("Sandy Bridge (LLVM's model for x86-64, x86-64-v2 and generic: pmulld 5 cycles)"),
    INTEL("Intel from Haswell (vpmulld 10 cycles)"),
    ARM("AArch64");

    private final String text;

    Family(String text) { this.text = text; }

    /** The family's name for a remark. */
    public String describe() { return text; }
  }

  /**
   * The family of {@code cpu} (an LLVM CPU name, empty: generic; null: not known, {@link Family#GENERIC}): the latency
   * table of {@link org.packetizer.core.ir.CpuFamily#of}'s family, which also holds the knobs
   * {@code -Dpacketizer.latency.perCpu} and {@code -Dpacketizer.latency.genericNames}.
   */
  public static Family family(String cpu, boolean arm) {
    return Family.valueOf(org.packetizer.core.ir.CpuFamily.of(cpu, arm).name());
  }

  /** Cycles from operands to result on {@code arm} (true: AArch64, else generic x86). */
  public static double of(Value v, boolean arm) {
    return of(v, arm ? Family.ARM : Family.GENERIC);
  }

  /** Cycles from operands to result for {@code family} (vector and scalar alike). */
  public static double of(Value v, Family family) {
    boolean arm = family == Family.ARM;
    Opcode op = v.opcode();
    boolean dbl = v.type().scalarType().isDouble();
    return switch (op) {
      case FADD, FSUB -> arm ? 2 : 3;
      case FMUL -> arm ? 3 : 4;
      case FDIV -> dbl ? (arm ? 15 : 14) : (arm ? 10 : 11);
      case FREM -> 20;
      case FNEG -> 1;
      case FCMP -> 3;
      case MUL -> multiply(v, family);
      case UDIV, SDIV, UREM, SREM -> 20;
      case LOAD -> 5;
      case SITOFP, UITOFP, FPTOSI, FPTOUI, FPEXT, FPTRUNC -> 4;
      // a phi inside the loop becomes a select in the packet (if-conversion)
      case PHI, SELECT -> 1;
      case CALL -> {
        String callee = v.calledFunction().map(Function::name).orElse("");
        if (callee.startsWith("llvm.sqrt")) yield dbl ? (arm ? 16 : 18) : (arm ? 10 : 12);
        if (callee.startsWith("llvm.fma") || callee.startsWith("llvm.fmuladd")) yield arm ? 4 : 4;
        if (callee.startsWith("llvm.fabs") || callee.startsWith("llvm.copysign")) yield 1;
        if (callee.startsWith("llvm.minnum") || callee.startsWith("llvm.maxnum") || callee.startsWith("llvm.floor")
            || callee.startsWith("llvm.ceil") || callee.startsWith("llvm.trunc") || callee.startsWith("llvm.round")) yield 3;
        yield 20;
      }
      case GEP, BITCAST, TRUNC, ZEXT, SEXT, FREEZE, EXTRACTVALUE, INSERTVALUE -> 1;
      default -> 1;
    };
  }

  /**
   * An integer multiply: {@link org.packetizer.core.ir.CpuFamily#multiplyLatency}'s table for the family (by element
   * width; a 64-bit element as its own instruction, {@code vpmullq}: the rule reads the scalar loop, before the target's
   * features matter); on Intel and LLVM's Sandy Bridge model a multiply by a constant 2^k+1 or 2^k-1 (e.g. 33 of
   * Bernstein's hash) 2, a shift and an add or subtract, as LLVM's x86 back end lowers it.
   */
  private static double multiply(Value v, Family family) {
    if ((family == Family.INTEL || family == Family.SANDY_BRIDGE) && shiftAndAdd(v)) return 2;
    org.packetizer.core.ir.Type t = v.type().scalarType();
    int bits = t.isInteger() ? t.intWidth() : 32;
    return org.packetizer.core.ir.CpuFamily.valueOf(family.name()).multiplyLatency(bits, true);
  }

  /** Whether {@code v} multiplies by a constant 2^k+1 or 2^k-1 (k > 0: a shift and an add or subtract). */
  private static boolean shiftAndAdd(Value v) {
    for (int i = 0; i < 2; i++) {
      Value o = v.operand(i);
      if (o != null && o.isConstantInt() && o.type().intWidth() <= 64) {
        long c = o.constIntZExt();
        if (c > 1 && (Long.bitCount(c + 1) == 1 || Long.bitCount(c - 1) == 1)) return true;
      }
    }
    return false;
  }
}
