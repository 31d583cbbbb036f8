package org.packetizer.core.driver;

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

  /** Cycles from operands to result (typical of current x86 and AArch64 cores; vector and scalar alike). */
  static double of(Value v, boolean arm) {
    Opcode op = v.opcode();
    boolean dbl = v.type().scalarType().isDouble();
    return switch (op) {
      case FADD, FSUB -> arm ? 2 : 3;
      case FMUL -> arm ? 3 : 4;
      case FDIV -> dbl ? (arm ? 15 : 14) : (arm ? 10 : 11);
      case FREM -> 20;
      case FNEG -> 1;
      case FCMP -> 3;
      case MUL -> 3;
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
}
