package org.packetizer.core.ir;

import static org.bytedeco.llvm.global.LLVM.*;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.bytedeco.llvm.LLVM.LLVMBasicBlockRef;
import org.bytedeco.llvm.LLVM.LLVMUseRef;
import org.bytedeco.llvm.LLVM.LLVMValueRef;

/**
 * An LLVM value: instruction, argument, constant, global or function. Equality is identity of the
 * native value. Valid while its module is alive.
 */
public class Value {
  /** The native value's address (equality, hashing and the FFM calls use it without the javacpp pointer). */
  final long addr;
  /** The javacpp pointer, made on first use for values the FFM walks found by address. */
  private LLVMValueRef ref;

  Value(LLVMValueRef ref) {
    if (ref == null || ref.isNull()) throw new IllegalArgumentException("null value");
    this.ref = ref;
    this.addr = ref.address();
  }

  /** A value known by its address only (the FFM walks: no javacpp pointer until one is needed). */
  Value(long addr) {
    if (addr == 0) throw new IllegalArgumentException("null value");
    this.addr = addr;
  }

  public static Value of(LLVMValueRef ref) { return new Value(ref); }

  public static Value ofNullable(LLVMValueRef ref) { return ref == null || ref.isNull() ? null : new Value(ref); }

  public LLVMValueRef ref() {
    LLVMValueRef r = ref;
    if (r == null) {
      r = Ffm.value(addr);
      ref = r;
    }
    return r;
  }

  /**
   * A dense number an owner gave this object ({@link #number}), e.g. a function snapshot numbering its
   * instructions: the owner asks {@link #numberIn} first and hashes only values it did not number
   * (issue 16: Value objects are not canonical per address, so this is a cache on one object, never
   * part of equality). Not thread-safe: one packetization owns its snapshot's values.
   */
  private Object numberedBy;
  private int number;

  /** Gives this object the number {@code n} of {@code owner} (replacing any earlier owner's). */
  public void number(Object owner, int n) {
    numberedBy = owner;
    number = n;
  }

  /** The number {@code owner} gave this object, or -1 when it gave none (another object of the same address may have one). */
  public int numberIn(Object owner) { return numberedBy == owner ? number : -1; }

  /** A key identifying the native value (equal for equal values), for maps keyed by identity. */
  public long id() { return addr; }

  public Type type() { return (Ffm.on ? new Type(Ffm.typeOf(addr)) : new Type(LLVMTypeOf(ref()))); }

  public String name() {
    // (LLVMGetValueName2 needs a length out-parameter: a native allocation per call, which javacpp
    // accounts for; names are NUL-terminated, so the one-argument form reads the same string)
    if (Ffm.on) return Ffm.valueName(addr);
    var p = LLVMGetValueName(ref());
    return p == null || p.isNull() ? "" : p.getString();
  }

  public void setName(String name) {
    // (the length is in bytes: javacpp encodes the string as UTF-8, so name.length() would cut a non-ASCII name short)
    byte[] utf8 = name.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    try (org.bytedeco.javacpp.BytePointer p = new org.bytedeco.javacpp.BytePointer(utf8)) {
      LLVMSetValueName2(ref(), p, utf8.length);
    }
  }

  /** Whether this value has a name (without reading it). */
  public boolean hasName() {
    if (Ffm.on) return Ffm.hasName(addr);
    return !name().isEmpty();
  }

  /**
   * Gives this value {@code other}'s name (made unique in this value's function like any name; nothing when
   * {@code other} has none). With the {@code java.lang.foreign} binding on, LLVM's bytes are passed straight back
   * to LLVM.
   */
  public void copyNameFrom(Value other) {
    if (Ffm.on) {
      Ffm.copyValueName(other.addr, addr);
      return;
    }
    String n = other.name();
    if (!n.isEmpty()) setName(n);
  }

  /** "%name" or the printed value for unnamed ones; for messages. */
  public String describe() {
    String n = name();
    if (!n.isEmpty()) return (isGlobalValue() ? "@" : "%") + n;
    String s = print().strip();
    return s.length() > 80 ? s.substring(0, 77) + "..." : s;
  }

  /** The value printed as LLVM assembly (an instruction prints as its whole line). */
  public String print() { return Llvm.takeMessage(LLVMPrintValueToString(ref())); }

  // ---- classification ----

  // (the value's kind is one JNI call returning an int; the LLVMIsA* casts return a javacpp Pointer,
  // an object allocated through JNI per call, only to be tested for null: issue 16's profile)
  /** LLVM's value kind ({@code LLVMGetValueKind}: one of the {@code LLVM...ValueKind} constants). */
  public int valueKind() {
    int k = kindPlusOne - 1;
    if (k < 0) {
      k = Ffm.on ? Ffm.getValueKind(addr) : LLVMGetValueKind(ref());
      kindPlusOne = k + 1;
    }
    return k;
  }

  /**
   * This object's value kind plus one and opcode, kept once asked (issue 16: {@code opcode()} asked the kind
   * and the opcode of the same object again on every call, and the walks ask both several times). Neither
   * changes while the native value lives (LLVM's C API cannot change an instruction's opcode or a value's
   * kind in place); an object of an erased value is invalid anyway. Racy but benign.
   */
  private int kindPlusOne;
  private Opcode opcode;

  public boolean isInstruction() { return valueKind() == LLVMInstructionValueKind; }
  public boolean isArgument() { return valueKind() == LLVMArgumentValueKind; }
  public boolean isConstant() { return (Ffm.on ? Ffm.isConstant(addr) : LLVMIsConstant(ref())) != 0; }
  public boolean isConstantInt() { return valueKind() == LLVMConstantIntValueKind; }
  public boolean isConstantFP() { return valueKind() == LLVMConstantFPValueKind; }
  public boolean isUndef() { return (Ffm.on ? Ffm.isUndef(addr) : LLVMIsUndef(ref())) != 0; }
  public boolean isPoison() { return (Ffm.on ? Ffm.isPoison(addr) : LLVMIsPoison(ref())) != 0; }
  public boolean isGlobalValue() {
    int k = valueKind();
    return k == LLVMFunctionValueKind || k == LLVMGlobalVariableValueKind || k == LLVMGlobalAliasValueKind || k == LLVMGlobalIFuncValueKind;
  }
  public boolean isGlobalVariable() { return valueKind() == LLVMGlobalVariableValueKind; }
  public boolean isFunction() { return valueKind() == LLVMFunctionValueKind; }
  public boolean isConstantExpr() { return valueKind() == LLVMConstantExprValueKind; }
  public boolean isInlineAsm() { return valueKind() == LLVMInlineAsmValueKind; }
  public boolean isMetadataAsValue() { return valueKind() == LLVMMetadataAsValueValueKind; }
  /** Whether this is a basic block used as a value ({@code isa<BasicBlock>}: exactly LLVM's basic-block value kind). */
  public boolean isBasicBlockValue() { return valueKind() == LLVMBasicBlockValueKind; }

  private static boolean isNonNull(LLVMValueRef r) { return r != null && !r.isNull(); }

  public long constIntSExt() { return Ffm.on ? Ffm.constIntGetSExtValue(addr) : LLVMConstIntGetSExtValue(ref()); }
  public long constIntZExt() { return Ffm.on ? Ffm.constIntGetZExtValue(addr) : LLVMConstIntGetZExtValue(ref()); }
  public double constReal() {
    try (var lossy = new org.bytedeco.javacpp.IntPointer(1)) {
      return LLVMConstRealGetDouble(ref(), lossy);
    }
  }

  // ---- instructions ----

  public Opcode opcode() {
    Opcode o = opcode;
    if (o != null) return o;
    int k = valueKind();
    if (k == LLVMInstructionValueKind) o = Opcode.of(Ffm.on ? Ffm.getInstructionOpcode(addr) : LLVMGetInstructionOpcode(ref()));
    else if (k == LLVMConstantExprValueKind) o = Opcode.of(Ffm.on ? Ffm.getConstOpcode(addr) : LLVMGetConstOpcode(ref()));
    else o = Opcode.UNKNOWN;
    opcode = o;
    return o;
  }

  public int numOperands() { return Ffm.on ? Ffm.getNumOperands(addr) : LLVMGetNumOperands(ref()); }

  public Value operand(int i) {
    if (Ffm.on) {
      long a = Ffm.getOperand(addr, i);
      return a == 0 ? null : new Value(a);
    }
    return Value.ofNullable(LLVMGetOperand(ref(), i));
  }

  public List<Value> operands() {
    int n = numOperands();
    List<Value> out = new ArrayList<>(n);
    for (int i = 0; i < n; i++) out.add(operand(i));
    return out;
  }

  public void setOperand(int i, Value v) {
    if (Ffm.on) Ffm.setOperand(addr, i, v.addr);
    else LLVMSetOperand(ref(), i, v.ref());
  }

  /** The instruction's block, if it is an instruction in a block. */
  public Optional<Block> block() {
    if (!isInstruction()) return Optional.empty();
    if (Ffm.on) {
      long p = Ffm.getInstructionParent(addr);
      return p == 0 ? Optional.empty() : Optional.of(new Block(p));
    }
    LLVMBasicBlockRef b = LLVMGetInstructionParent(ref());
    return b == null || b.isNull() ? Optional.empty() : Optional.of(new Block(b));
  }

  /** Users of this value (each user once per use, in use-list order). */
  public List<Value> users() {
    List<Value> out = new ArrayList<>();
    if (Ffm.on) {
      for (long u = Ffm.getFirstUse(addr); u != 0; u = Ffm.getNextUse(u)) out.add(new Value(Ffm.getUser(u)));
      return out;
    }
    for (LLVMUseRef u = LLVMGetFirstUse(ref()); u != null && !u.isNull(); u = LLVMGetNextUse(u)) {
      out.add(new Value(LLVMGetUser(u)));
    }
    return out;
  }

  public boolean hasUses() {
    if (Ffm.on) return Ffm.getFirstUse(addr) != 0;
    LLVMUseRef u = LLVMGetFirstUse(ref());
    return u != null && !u.isNull();
  }

  public void replaceAllUsesWith(Value v) {
    if (Ffm.on) Ffm.replaceAllUsesWith(addr, v.addr);
    else LLVMReplaceAllUsesWith(ref(), v.ref());
  }

  public void eraseFromParent() {
    if (Ffm.on) Ffm.instructionEraseFromParent(addr);
    else LLVMInstructionEraseFromParent(ref());
  }

  public Value nextInstruction() {
    if (Ffm.on) {
      long a = Ffm.getNextInstruction(addr);
      return a == 0 ? null : new Value(a);
    }
    return Value.ofNullable(LLVMGetNextInstruction(ref()));
  }

  /** Takes the instruction out of its block without deleting it (put it back with {@link IrBuilder#insert}). */
  public void removeFromParent() { LLVMInstructionRemoveFromParent(ref()); }

  /** Whether this instruction comes later than {@code earlier} in the same block. */
  public boolean comesAfter(Value earlier) {
    for (Value i = earlier.nextInstruction(); i != null; i = i.nextInstruction()) if (i.equals(this)) return true;
    return false;
  }

  /** The index of the first operand that is {@code v}. */
  public int operandIndexOf(Value v) {
    int n = numOperands();
    long target = v.addr;
    for (int k = 0; k < n; k++) if ((Ffm.on ? Ffm.getOperand(addr, k) : LLVMGetOperand(ref(), k).address()) == target) return k;
    throw new IllegalStateException("operand not found");
  }

  // constants
  /** A null constant (zero, zeroinitializer, null pointer). */
  public boolean isNullValue() { return LLVMIsNull(ref()) != 0; }
  /** A constant (not a constant expression) with every bit set, e.g. {@code splat (i1 true)}. */
  public boolean isAllOnesValue() {
    return isConstant() && !isConstantExpr() && addr == LLVMConstAllOnes(LLVMTypeOf(ref())).address();
  }
  /** Element {@code i} of a constant vector or aggregate, or null when it has none. */
  public Value aggregateElement(int i) { return Value.ofNullable(LLVMGetAggregateElement(ref(), i)); }

  // shufflevector / insertelement
  public boolean isShuffleVector() { return isNonNull(LLVMIsAShuffleVectorInst(ref())); }
  public boolean isInsertElement() { return isNonNull(LLVMIsAInsertElementInst(ref())); }
  /** The number of elements of a shufflevector's mask; {@link #shuffleMaskValue} reads one. */
  public int shuffleMaskLength() { return LLVMGetNumMaskElements(ref()); }
  public int shuffleMaskValue(int i) { return LLVMGetMaskValue(ref(), i); }
  /** The value {@link #shuffleMaskValue} gives for an undefined (poison) mask element. */
  public static int undefShuffleMaskElement() { return LLVMGetUndefMaskElem(); }

  /** The constant index path of an {@code extractvalue} or {@code insertvalue}. */
  public int[] aggregateIndices() {
    int n = LLVMGetNumIndices(ref());
    org.bytedeco.javacpp.IntPointer ip = LLVMGetIndices(ref());
    int[] out = new int[n];
    for (int i = 0; i < n; i++) out[i] = ip.get(i);
    return out;
  }

  /** Whether the fast-math flags of this instruction allow reassociation. */
  public boolean allowsApproxFunc() { return canUseFastMathFlags() && (fastMathFlags() & LLVMFastMathApproxFunc) != 0; }
  public boolean allowsReassoc() { return canUseFastMathFlags() && (fastMathFlags() & LLVMFastMathAllowReassoc) != 0; }

  // instruction flags (the packet instruction keeps the scalar one's)
  public void setNsw(boolean v) { LLVMSetNSW(ref(), v ? 1 : 0); }
  public void setNuw(boolean v) { LLVMSetNUW(ref(), v ? 1 : 0); }
  public void setExact(boolean v) { LLVMSetExact(ref(), v ? 1 : 0); }
  public void setDisjoint(boolean v) { LLVMSetIsDisjoint(ref(), v ? 1 : 0); }
  public boolean nneg() { return LLVMGetNNeg(ref()) != 0; }
  public void setNneg(boolean v) { LLVMSetNNeg(ref(), v ? 1 : 0); }
  /** Alignment of a load, store, alloca or global. */
  public void setAlignment(int bytes) {
    if (Ffm.on) Ffm.setAlignment(addr, bytes);
    else LLVMSetAlignment(ref(), bytes);
  }

  // calls
  public int instructionCallConv() { return LLVMGetInstructionCallConv(ref()); }
  public void setInstructionCallConv(int cc) {
    if (Ffm.on) Ffm.setInstructionCallConv(addr, cc);
    else LLVMSetInstructionCallConv(ref(), cc);
  }

  /** One entry of clang's {@code !tbaa.struct} on a memory intrinsic: a field's offset, size and TBAA scalar type name. */
  public record TbaaField(long offset, long size, String typeName) { }

  /**
   * The fields clang's {@code !tbaa.struct} lists on this call (struct assignments carry it), or an
   * empty list when it has none or the metadata is not in that form.
   */
  public List<TbaaField> tbaaStruct() {
    List<TbaaField> out = new ArrayList<>();
    String kindName = "tbaa.struct";
    int kind = LLVMGetMDKindIDInContext(LLVMGetTypeContext(LLVMTypeOf(ref())), kindName, kindName.length());
    LLVMValueRef md = LLVMGetMetadata(ref(), kind);
    if (md == null || md.isNull()) return out;
    List<LLVMValueRef> ops = mdOperands(md);
    for (int i = 0; i + 1 < ops.size(); i += 3) {
      LLVMValueRef off = ops.get(i), size = ops.get(i + 1);
      if (off == null || size == null || LLVMIsAConstantInt(off) == null || LLVMIsAConstantInt(size) == null) return new ArrayList<>();
      String type = i + 2 < ops.size() ? tbaaTypeName(ops.get(i + 2)) : "";
      out.add(new TbaaField(LLVMConstIntGetZExtValue(off), LLVMConstIntGetZExtValue(size), type));
    }
    return out;
  }

  private static List<LLVMValueRef> mdOperands(LLVMValueRef md) {
    List<LLVMValueRef> out = new ArrayList<>();
    if (md == null || md.isNull() || LLVMIsAMDNode(md) == null) return out;
    int n = LLVMGetMDNodeNumOperands(md);
    if (n == 0) return out;
    try (org.bytedeco.javacpp.PointerPointer<LLVMValueRef> pp = new org.bytedeco.javacpp.PointerPointer<>(n)) {
      LLVMGetMDNodeOperands(md, pp);
      for (int i = 0; i < n; i++) {
        LLVMValueRef v = new LLVMValueRef(pp.get(i));
        out.add(v.isNull() ? null : v);
      }
    }
    return out;
  }

  /** The name of a TBAA access tag's scalar type ({@code !{!type, !type, i64 0}}, type {@code !{!"name", ...}}). */
  private static String tbaaTypeName(LLVMValueRef tag) {
    List<LLVMValueRef> t = mdOperands(tag);
    if (t.isEmpty() || t.getFirst() == null) return "";
    List<LLVMValueRef> n = mdOperands(t.getFirst());
    if (n.isEmpty() || n.getFirst() == null || LLVMIsAMDString(n.getFirst()) == null) return "";
    int[] len = new int[1];
    org.bytedeco.javacpp.BytePointer bp = LLVMGetMDString(n.getFirst(), len);
    if (bp == null || bp.isNull()) return "";
    String str = bp.getString();
    return str.substring(0, Math.min(len[0], str.length()));
  }

  /** Whether this global variable is constant. */
  public boolean isGlobalConstant() { return isGlobalVariable() && LLVMIsGlobalConstant(ref()) != 0; }

  /** Whether this global value has extern_weak linkage (its address may be null). */
  public boolean hasExternalWeakLinkage() { return isGlobalValue() && LLVMGetLinkage(ref()) == LLVMExternalWeakLinkage; }

  /**
   * Whether this global value's definition here is the one the program uses: external, internal,
   * private, available_externally or an ODR linkage (not weak, linkonce, common or extern_weak, whose
   * definition another module may replace with different contents).
   */
  public boolean hasExactDefinition() {
    if (!isGlobalValue()) return false;
    int l = LLVMGetLinkage(ref());
    return l == LLVMExternalLinkage || l == LLVMInternalLinkage || l == LLVMPrivateLinkage || l == LLVMAvailableExternallyLinkage
        || l == LLVMLinkOnceODRLinkage || l == LLVMWeakODRLinkage;
  }

  /** A global variable's initializer. */
  public Optional<Value> initializer() { return isGlobalVariable() ? Optional.ofNullable(Value.ofNullable(LLVMGetInitializer(ref()))) : Optional.empty(); }

  /** A call site's function-level string attribute. */
  public Optional<String> callSiteStringAttribute(String key) {
    org.bytedeco.llvm.LLVM.LLVMAttributeRef a = LLVMGetCallSiteStringAttribute(ref(), LLVMAttributeFunctionIndex, key, key.length());
    if (a == null || a.isNull()) return Optional.empty();
    try (org.bytedeco.javacpp.IntPointer len = new org.bytedeco.javacpp.IntPointer(1)) {
      org.bytedeco.javacpp.BytePointer p = LLVMGetStringAttributeValue(a, len);
      return Optional.of(p == null || p.isNull() ? "" : p.getString());
    }
  }

  /** Sets (replaces) a call site's function-level string attribute. */
  public void setCallSiteStringAttribute(String key, String value) {
    org.bytedeco.llvm.LLVM.LLVMAttributeRef a = LLVMCreateStringAttribute(LLVMGetTypeContext(LLVMTypeOf(ref())), key, key.length(),
        value, value.length());
    LLVMRemoveCallSiteStringAttribute(ref(), LLVMAttributeFunctionIndex, key, key.length());
    LLVMAddCallSiteAttribute(ref(), LLVMAttributeFunctionIndex, a);
  }

  // phi
  public int incomingCount() { return Ffm.on ? Ffm.countIncoming(addr) : LLVMCountIncoming(ref()); }
  public Value incomingValue(int i) { return Ffm.on ? new Value(Ffm.getIncomingValue(addr, i)) : new Value(LLVMGetIncomingValue(ref(), i)); }
  public Block incomingBlock(int i) { return (Ffm.on ? new Block(Ffm.getIncomingBlock(addr, i)) : new Block(LLVMGetIncomingBlock(ref(), i))); }
  /** Adds the incoming pairs (values.get(k), blocks.get(k)) to this phi at once. */
  public void addIncoming(List<Value> values, List<Block> blocks) {
    // (LLVMAddIncoming adds the pairs one by one in order: a call per pair through the native stack
    // costs less than two native arrays allocated and freed per phi)
    int k = values.size();
    if (blocks.size() != k) throw new IllegalArgumentException(k + " incoming values but " + blocks.size() + " blocks");
    if (Ffm.on) {
      // (one call: heap arrays of the addresses, read in place by the critical downcall)
      if (k > 0) Ffm.addIncoming(addr, Ffm.addresses(values), Ffm.blockAddresses(blocks), k);
      return;
    }
    for (int j = 0; j < k; j++) LLVMAddIncoming(ref(), values.get(j).ref(), blocks.get(j).ref(), 1);
  }

  public void addIncoming(Value v, Block b) {
    // (the by-pointer-pointer overload passes one pair through the native stack: no two native
    // arrays allocated and freed per incoming edge)
    if (Ffm.on) Ffm.addIncoming(addr, java.lang.foreign.MemorySegment.ofArray(new long[] {v.addr}),
        java.lang.foreign.MemorySegment.ofArray(new long[] {b.id()}), 1);
    else LLVMAddIncoming(ref(), v.ref(), b.ref(), 1);
  }

  // terminators
  public boolean isConditional() { return (Ffm.on ? Ffm.isConditional(addr) : LLVMIsConditional(ref())) != 0; }
  public Value condition() { return Ffm.on ? new Value(Ffm.getCondition(addr)) : new Value(LLVMGetCondition(ref())); }
  public int numSuccessors() { return Ffm.on ? Ffm.getNumSuccessors(addr) : LLVMGetNumSuccessors(ref()); }
  public Block successor(int i) { return (Ffm.on ? new Block(Ffm.getSuccessor(addr, i)) : new Block(LLVMGetSuccessor(ref(), i))); }
  public void setSuccessor(int i, Block b) { LLVMSetSuccessor(ref(), i, b.ref()); }

  // compares
  public int icmpPredicate() { return Ffm.on ? Ffm.getICmpPredicate(addr) : LLVMGetICmpPredicate(ref()); }

  /** Whether this integer compare is {@code eq} / {@code ne}. */
  public boolean isICmpEq() { return icmpPredicate() == LLVMIntEQ; }
  public boolean isICmpNe() { return icmpPredicate() == LLVMIntNE; }
  /** Whether this integer compare is {@code slt}. */
  public boolean isICmpSlt() { return icmpPredicate() == LLVMIntSLT; }

  /** Whether this integer compare is an equality or an unsigned one ({@code eq ne ult ule ugt uge}). */
  public boolean isICmpEqualityOrUnsigned() {
    int p = icmpPredicate();
    return p == LLVMIntEQ || p == LLVMIntNE || p == LLVMIntULT || p == LLVMIntULE || p == LLVMIntUGT || p == LLVMIntUGE;
  }

  /** The type of the value a global variable or function holds (its "value type"). */
  public Type globalValueType() { return (Ffm.on ? new Type(Ffm.globalGetValueType(addr)) : new Type(LLVMGlobalGetValueType(ref()))); }

  /** Deletes a global variable (no uses left). */
  public void deleteGlobal() { LLVMDeleteGlobal(ref()); }
  public int fcmpPredicate() { return Ffm.on ? Ffm.getFCmpPredicate(addr) : LLVMGetFCmpPredicate(ref()); }

  // memory
  public Type allocatedType() { return new Type(LLVMGetAllocatedType(ref())); }
  public Type gepSourceElementType() { return new Type(LLVMGetGEPSourceElementType(ref())); }
  public boolean isInBounds() { return LLVMIsInBounds(ref()) != 0; }
  public int alignment() { return LLVMGetAlignment(ref()); }
  public boolean isVolatile() { return LLVMGetVolatile(ref()) != 0; }
  public boolean isAtomic() { return LLVMIsAtomic(ref()) != 0; }

  /** The operation of an {@code atomicrmw}. */
  public AtomicRmwOp atomicRmwOp() { return AtomicRmwOp.of(LLVMGetAtomicRMWBinOp(ref())); }

  /** The constant indices of an {@code extractvalue} or {@code insertvalue}. */
  public int[] indices() {
    int n = LLVMGetNumIndices(ref());
    org.bytedeco.javacpp.IntPointer p = LLVMGetIndices(ref());
    int[] out = new int[n];
    for (int i = 0; i < n; i++) out[i] = p.get(i);
    return out;
  }

  // calls
  public Type calledFunctionType() { return new Type(LLVMGetCalledFunctionType(ref())); }
  public Value calledOperand() { return new Value(LLVMGetCalledValue(ref())); }
  public int numArgOperands() { return LLVMGetNumArgOperands(ref()); }
  /** The called function when the callee is a function (not a pointer or inline asm). */
  public Optional<Function> calledFunction() {
    Value c = calledOperand();
    return c.isFunction() ? Optional.of(new Function(c.addr)) : Optional.empty();
  }

  // flags
  /** Copies the return, parameter and function attributes of call site {@code from} to this call. */
  public void copyCallSiteAttributesFrom(Value from) {
    int nargs = from.numArgOperands();
    for (int idx = -1; idx <= nargs; idx++) {
      int at = idx == -1 ? LLVMAttributeFunctionIndex : idx;
      int n = LLVMGetCallSiteAttributeCount(from.ref(), at);
      if (n == 0) continue;
      try (org.bytedeco.javacpp.PointerPointer<org.bytedeco.llvm.LLVM.LLVMAttributeRef> attrs =
          new org.bytedeco.javacpp.PointerPointer<>(n)) {
        LLVMGetCallSiteAttributes(from.ref(), at, attrs);
        for (int i = 0; i < n; i++) LLVMAddCallSiteAttribute(ref(), at, new org.bytedeco.llvm.LLVM.LLVMAttributeRef(attrs.get(i)));
      }
    }
  }

  /** Whether a call has the enum attribute {@code name} (e.g. "returns_twice") at the call site or on its direct callee. */
  public boolean callHasFunctionAttribute(String name) {
    int kind = LLVMGetEnumAttributeKindForName(name, name.length());
    if (kind == 0) return false;
    org.bytedeco.llvm.LLVM.LLVMAttributeRef a = LLVMGetCallSiteEnumAttribute(ref(), LLVMAttributeFunctionIndex, kind);
    if (a != null && !a.isNull()) return true;
    return calledFunction().map(f -> f.hasEnumAttribute(name)).orElse(false);
  }

  public boolean canUseFastMathFlags() { return LLVMCanValueUseFastMathFlags(ref()) != 0; }
  public int fastMathFlags() { return LLVMGetFastMathFlags(ref()); }
  public void setFastMathFlags(int f) { LLVMSetFastMathFlags(ref(), f); }
  public boolean nsw() { return LLVMGetNSW(ref()) != 0; }
  public boolean nuw() { return LLVMGetNUW(ref()) != 0; }
  public boolean isDisjoint() { return LLVMGetIsDisjoint(ref()) != 0; }
  public boolean isExact() { return LLVMGetExact(ref()) != 0; }

  @Override public boolean equals(Object o) { return o instanceof Value v && v.addr == addr; }
  @Override public int hashCode() { return Llvm.addressHash(addr); }
  @Override public String toString() { return describe(); }
}
