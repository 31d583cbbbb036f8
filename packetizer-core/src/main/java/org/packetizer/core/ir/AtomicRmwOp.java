package org.packetizer.core.ir;

import static org.bytedeco.llvm.global.LLVM.*;

/** The operation of an {@code atomicrmw} instruction ({@link Value#atomicRmwOp}). */
public enum AtomicRmwOp {
  XCHG, ADD, SUB, AND, NAND, OR, XOR, MAX, MIN, UMAX, UMIN,
  /** Floating-point and the other operations (fadd, fmax, uinc_wrap, ...). */
  OTHER;

  static AtomicRmwOp of(int code) {
    if (code == LLVMAtomicRMWBinOpXchg) return XCHG;
    if (code == LLVMAtomicRMWBinOpAdd) return ADD;
    if (code == LLVMAtomicRMWBinOpSub) return SUB;
    if (code == LLVMAtomicRMWBinOpAnd) return AND;
    if (code == LLVMAtomicRMWBinOpNand) return NAND;
    if (code == LLVMAtomicRMWBinOpOr) return OR;
    if (code == LLVMAtomicRMWBinOpXor) return XOR;
    if (code == LLVMAtomicRMWBinOpMax) return MAX;
    if (code == LLVMAtomicRMWBinOpMin) return MIN;
    if (code == LLVMAtomicRMWBinOpUMax) return UMAX;
    if (code == LLVMAtomicRMWBinOpUMin) return UMIN;
    return OTHER;
  }
}
