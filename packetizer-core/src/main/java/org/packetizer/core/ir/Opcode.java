package org.packetizer.core.ir;

import static org.bytedeco.llvm.global.LLVM.*;

/** LLVM instruction opcodes (LLVMOpcode), with a few predicates the pipeline needs. */
public enum Opcode {
  RET(LLVMRet), BR(LLVMBr), SWITCH(LLVMSwitch), INDIRECTBR(LLVMIndirectBr), INVOKE(LLVMInvoke),
  UNREACHABLE(LLVMUnreachable), CALLBR(LLVMCallBr), FNEG(LLVMFNeg),
  ADD(LLVMAdd), FADD(LLVMFAdd), SUB(LLVMSub), FSUB(LLVMFSub), MUL(LLVMMul), FMUL(LLVMFMul),
  UDIV(LLVMUDiv), SDIV(LLVMSDiv), FDIV(LLVMFDiv), UREM(LLVMURem), SREM(LLVMSRem), FREM(LLVMFRem),
  SHL(LLVMShl), LSHR(LLVMLShr), ASHR(LLVMAShr), AND(LLVMAnd), OR(LLVMOr), XOR(LLVMXor),
  ALLOCA(LLVMAlloca), LOAD(LLVMLoad), STORE(LLVMStore), GEP(LLVMGetElementPtr),
  TRUNC(LLVMTrunc), ZEXT(LLVMZExt), SEXT(LLVMSExt), FPTOUI(LLVMFPToUI), FPTOSI(LLVMFPToSI),
  UITOFP(LLVMUIToFP), SITOFP(LLVMSIToFP), FPTRUNC(LLVMFPTrunc), FPEXT(LLVMFPExt),
  PTRTOINT(LLVMPtrToInt), INTTOPTR(LLVMIntToPtr), BITCAST(LLVMBitCast), ADDRSPACECAST(LLVMAddrSpaceCast),
  ICMP(LLVMICmp), FCMP(LLVMFCmp), PHI(LLVMPHI), CALL(LLVMCall), SELECT(LLVMSelect),
  USEROP1(LLVMUserOp1), USEROP2(LLVMUserOp2), VAARG(LLVMVAArg), EXTRACTELEMENT(LLVMExtractElement),
  INSERTELEMENT(LLVMInsertElement), SHUFFLEVECTOR(LLVMShuffleVector), EXTRACTVALUE(LLVMExtractValue),
  INSERTVALUE(LLVMInsertValue), FREEZE(LLVMFreeze), FENCE(LLVMFence), ATOMICCMPXCHG(LLVMAtomicCmpXchg),
  ATOMICRMW(LLVMAtomicRMW), RESUME(LLVMResume), LANDINGPAD(LLVMLandingPad), CLEANUPRET(LLVMCleanupRet),
  CATCHRET(LLVMCatchRet), CATCHPAD(LLVMCatchPad), CLEANUPPAD(LLVMCleanupPad), CATCHSWITCH(LLVMCatchSwitch),
  UNKNOWN(-1);

  private final int code;
  /** Opcode by LLVM code (dense: the codes are small; a HashMap lookup boxed the code and hashed it per call). */
  private static final Opcode[] BY_CODE;

  static {
    int max = 0;
    for (Opcode o : values()) max = Math.max(max, o.code);
    BY_CODE = new Opcode[max + 1];
    java.util.Arrays.fill(BY_CODE, UNKNOWN);
    for (Opcode o : values()) if (o.code >= 0) BY_CODE[o.code] = o;
  }

  Opcode(int code) { this.code = code; }

  public int code() { return code; }

  public static Opcode of(int code) { return code >= 0 && code < BY_CODE.length ? BY_CODE[code] : UNKNOWN; }

  public boolean isBinary() { return code >= LLVMAdd && code <= LLVMXor; }

  public boolean isCast() { return code >= LLVMTrunc && code <= LLVMAddrSpaceCast; }

  public boolean isTerminator() {
    return this == RET || this == BR || this == SWITCH || this == INDIRECTBR || this == INVOKE || this == UNREACHABLE
        || this == CALLBR || this == RESUME || this == CLEANUPRET || this == CATCHRET || this == CATCHSWITCH;
  }

  /** Integer division or remainder: undefined behaviour on a zero divisor, so inactive lanes need a safe one. */
  public boolean isIntDivRem() { return this == UDIV || this == SDIV || this == UREM || this == SREM; }

  public String mnemonic() { return name().toLowerCase(java.util.Locale.ROOT); }
}
