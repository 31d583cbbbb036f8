package org.packetizer.core.ir;

import static org.bytedeco.llvm.global.LLVM.*;

import java.util.ArrayList;
import java.util.List;
import org.bytedeco.javacpp.PointerPointer;
import org.bytedeco.llvm.LLVM.LLVMTypeRef;

/**
 * An LLVM type. Types are uniqued per context, so equality is identity of the native type. Owned by
 * the context; a {@code Type} is valid as long as its context is open.
 */
public final class Type {
  public enum Kind { VOID, HALF, FLOAT, DOUBLE, X86_FP80, FP128, PPC_FP128, LABEL, INTEGER, FUNCTION, STRUCT,
    ARRAY, POINTER, VECTOR, METADATA, TOKEN, SCALABLE_VECTOR, BFLOAT, X86_AMX, TARGET_EXT, OTHER }

  /** The native type's address (equality, hashing and the FFM calls use it without the javacpp pointer). */
  final long addr;
  /** The javacpp pointer, made on first use for types the FFM calls returned by address. */
  private LLVMTypeRef ref;

  Type(LLVMTypeRef ref) {
    if (ref == null || ref.isNull()) throw new IllegalArgumentException("null type");
    this.ref = ref;
    this.addr = ref.address();
  }

  /** A type known by its address only (the FFM calls). */
  Type(long addr) {
    if (addr == 0) throw new IllegalArgumentException("null type");
    this.addr = addr;
  }

  public static Type of(LLVMTypeRef ref) { return new Type(ref); }

  public LLVMTypeRef ref() {
    LLVMTypeRef r = ref;
    if (r == null) {
      r = Ffm.type(addr);
      ref = r;
    }
    return r;
  }

  /** A key identifying the native type (equal for equal types). */
  public long id() { return addr; }

  /**
   * LLVM's type kind plus one, 0 until first asked (issue 16: {@code isComposite}-style questions ask the same
   * object for its kind up to three times; a native type's kind never changes while it lives). Racy but benign:
   * every thread computes the same value.
   */
  private int kindPlusOne;

  public Kind kind() {
    int k = kindPlusOne - 1;
    if (k < 0) {
      k = Ffm.on ? Ffm.getTypeKind(addr) : LLVMGetTypeKind(ref());
      kindPlusOne = k + 1;
    }
    if (k == LLVMVoidTypeKind) return Kind.VOID;
    if (k == LLVMHalfTypeKind) return Kind.HALF;
    if (k == LLVMFloatTypeKind) return Kind.FLOAT;
    if (k == LLVMDoubleTypeKind) return Kind.DOUBLE;
    if (k == LLVMX86_FP80TypeKind) return Kind.X86_FP80;
    if (k == LLVMFP128TypeKind) return Kind.FP128;
    if (k == LLVMPPC_FP128TypeKind) return Kind.PPC_FP128;
    if (k == LLVMLabelTypeKind) return Kind.LABEL;
    if (k == LLVMIntegerTypeKind) return Kind.INTEGER;
    if (k == LLVMFunctionTypeKind) return Kind.FUNCTION;
    if (k == LLVMStructTypeKind) return Kind.STRUCT;
    if (k == LLVMArrayTypeKind) return Kind.ARRAY;
    if (k == LLVMPointerTypeKind) return Kind.POINTER;
    if (k == LLVMVectorTypeKind) return Kind.VECTOR;
    if (k == LLVMMetadataTypeKind) return Kind.METADATA;
    if (k == LLVMTokenTypeKind) return Kind.TOKEN;
    if (k == LLVMScalableVectorTypeKind) return Kind.SCALABLE_VECTOR;
    if (k == LLVMBFloatTypeKind) return Kind.BFLOAT;
    if (k == LLVMX86_AMXTypeKind) return Kind.X86_AMX;
    if (k == LLVMTargetExtTypeKind) return Kind.TARGET_EXT;
    return Kind.OTHER;
  }

  public boolean isVoid() { return kind() == Kind.VOID; }
  public boolean isInteger() { return kind() == Kind.INTEGER; }
  public boolean isInteger(int bits) { return isInteger() && intWidth() == bits; }
  public boolean isFloat() { return kind() == Kind.FLOAT; }
  public boolean isDouble() { return kind() == Kind.DOUBLE; }
  public boolean isHalf() { return kind() == Kind.HALF; }
  /** half, float or double: the floating-point types that become packets ({@code <W x T>}). */
  public boolean isPacketFloat() { Kind k = kind(); return k == Kind.HALF || k == Kind.FLOAT || k == Kind.DOUBLE; }
  public boolean isFloatingPoint() { Kind k = kind(); return k == Kind.FLOAT || k == Kind.DOUBLE || k == Kind.HALF || k == Kind.BFLOAT || k == Kind.X86_FP80 || k == Kind.FP128 || k == Kind.PPC_FP128; }
  public boolean isSized() { return LLVMTypeIsSized(ref()) != 0; }
  public boolean isPointer() { return kind() == Kind.POINTER; }
  public boolean isVector() { return kind() == Kind.VECTOR; }
  public boolean isStruct() { return kind() == Kind.STRUCT; }
  public boolean isArray() { return kind() == Kind.ARRAY; }
  public boolean isFunction() { return kind() == Kind.FUNCTION; }
  public boolean isAggregate() { return isStruct() || isArray(); }
  /** Integer, float, double or pointer: what can be an element of a fixed vector. */
  public boolean isVectorElement() {
    Kind k = kind();
    return k == Kind.INTEGER || k == Kind.FLOAT || k == Kind.DOUBLE || k == Kind.POINTER || k == Kind.HALF || k == Kind.BFLOAT;
  }

  public int intWidth() { return Ffm.on ? Ffm.getIntTypeWidth(addr) : LLVMGetIntTypeWidth(ref()); }

  /** Element type of a vector or array. */
  public Type elementType() { return (Ffm.on ? new Type(Ffm.getElementType(addr)) : new Type(LLVMGetElementType(ref()))); }

  public int vectorSize() { return Ffm.on ? Ffm.getVectorSize(addr) : LLVMGetVectorSize(ref()); }

  public long arrayLength() { return LLVMGetArrayLength2(ref()); }

  /** A fixed vector of {@code n} elements of this type. */
  /** The poison value of this type. */
  public Value poison() { return Value.of(Ffm.on ? Ffm.value(Ffm.getPoison(addr)) : LLVMGetPoison(ref())); }

  public Type vectorOf(int n) { return (Ffm.on ? new Type(Ffm.vectorType(addr, n)) : new Type(LLVMVectorType(ref(), n))); }

  /** A scalable vector of {@code vscale × n} elements of this type ({@code <vscale x n x T>}). */
  public Type scalableVectorOf(int n) { return new Type(LLVMScalableVectorType(ref(), n)); }

  /** An array of {@code n} elements of this type. */
  public Type arrayOf(long n) { return new Type(LLVMArrayType2(ref(), n)); }

  /** The scalar element type: for a vector its element, else itself. */
  public Type scalarType() { return isVector() ? elementType() : this; }

  public List<Type> structElements() {
    int n = LLVMCountStructElementTypes(ref());
    List<Type> out = new ArrayList<>(n);
    for (int i = 0; i < n; i++) out.add(new Type(LLVMStructGetTypeAtIndex(ref(), i)));
    return out;
  }

  public boolean isPackedStruct() { return LLVMIsPackedStruct(ref()) != 0; }

  public boolean isLiteralStruct() { return LLVMIsLiteralStruct(ref()) != 0; }

  public String structName() {
    var p = LLVMGetStructName(ref());
    return p == null || p.isNull() ? "" : p.getString();
  }

  public Type returnType() { return new Type(LLVMGetReturnType(ref())); }

  public boolean isVarArg() { return LLVMIsFunctionVarArg(ref()) != 0; }

  public List<Type> paramTypes() {
    int n = LLVMCountParamTypes(ref());
    if (n == 0) return List.of();
    PointerPointer<LLVMTypeRef> pp = new PointerPointer<>(n);
    try {
      LLVMGetParamTypes(ref(), pp);
      List<Type> out = new ArrayList<>(n);
      for (int i = 0; i < n; i++) out.add(new Type(pp.get(LLVMTypeRef.class, i)));
      return out;
    } finally {
      pp.close();
    }
  }

  public LlvmContext context() { return LlvmContext.borrowed(LLVMGetTypeContext(ref())); }

  @Override public boolean equals(Object o) { return o instanceof Type t && t.addr == addr; }
  @Override public int hashCode() { return Llvm.addressHash(addr); }
  @Override public String toString() { return Llvm.takeMessage(LLVMPrintTypeToString(ref())); }
}
