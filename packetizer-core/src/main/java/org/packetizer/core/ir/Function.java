package org.packetizer.core.ir;

import static org.bytedeco.llvm.global.LLVM.*;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.bytedeco.javacpp.PointerPointer;
import org.bytedeco.llvm.LLVM.LLVMAttributeRef;
import org.bytedeco.llvm.LLVM.LLVMBasicBlockRef;
import org.bytedeco.llvm.LLVM.LLVMValueRef;

/** A function (definition or declaration). */
public final class Function extends Value {
  Function(org.bytedeco.llvm.LLVM.LLVMValueRef ref) { super(ref); }

  Function(long addr) { super(addr); }

  public static Function of(org.bytedeco.llvm.LLVM.LLVMValueRef ref) { return new Function(ref); }

  /** The function's type (not the pointer type of the global). */
  public Type functionType() { return (Ffm.on ? new Type(Ffm.globalGetValueType(addr)) : new Type(LLVMGlobalGetValueType(ref()))); }

  public Type returnType() { return functionType().returnType(); }

  public boolean isDeclaration() { return LLVMIsDeclaration(ref()) != 0; }

  public boolean isVarArg() { return functionType().isVarArg(); }

  public int paramCount() { return Ffm.on ? Ffm.countParams(addr) : LLVMCountParams(ref()); }

  public Value param(int i) { return Ffm.on ? new Value(Ffm.getParam(addr, i)) : new Value(LLVMGetParam(ref(), i)); }

  public List<Value> params() {
    int n = paramCount();
    List<Value> out = new ArrayList<>(n);
    for (int i = 0; i < n; i++) out.add(param(i));
    return out;
  }

  public List<Block> blocks() {
    List<Block> out = new ArrayList<>();
    if (Ffm.on) {
      for (long b = Ffm.getFirstBasicBlock(addr); b != 0; b = Ffm.getNextBasicBlock(b)) out.add(new Block(b));
      return out;
    }
    for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(ref()); b != null && !b.isNull(); b = LLVMGetNextBasicBlock(b)) {
      out.add(new Block(b));
    }
    return out;
  }

  public Block entry() { return (Ffm.on ? new Block(Ffm.getEntryBasicBlock(addr)) : new Block(LLVMGetEntryBasicBlock(ref()))); }

  /** The module the function lives in (borrowed: closing it does nothing). */
  public LlvmModule module() { return LlvmModule.borrow(LLVMGetGlobalParent(ref())); }

  /** Internal linkage: not visible outside its module. */
  public void setInternalLinkage() { LLVMSetLinkage(ref(), LLVMInternalLinkage); }
  public void setExternalLinkage() { LLVMSetLinkage(ref(), LLVMExternalLinkage); }

  public Block appendBlock(String name) {
    return new Block(LLVMAppendBasicBlockInContext(LLVMGetTypeContext(LLVMTypeOf(ref())), ref(), name));
  }

  public int instructionCount() {
    int n = 0;
    if (Ffm.on) {
      for (long b = Ffm.getFirstBasicBlock(addr); b != 0; b = Ffm.getNextBasicBlock(b)) {
        for (long i = Ffm.getFirstInstruction(b); i != 0; i = Ffm.getNextInstruction(i)) n++;
      }
      return n;
    }
    for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(ref()); b != null && !b.isNull(); b = LLVMGetNextBasicBlock(b)) {
      for (LLVMValueRef i = LLVMGetFirstInstruction(b); i != null && !i.isNull(); i = LLVMGetNextInstruction(i)) n++;
    }
    return n;
  }

  public void delete() { LLVMDeleteFunction(ref()); }

  public int linkage() { return LLVMGetLinkage(ref()); }

  public void setLinkage(int linkage) { LLVMSetLinkage(ref(), linkage); }

  public int callingConvention() { return Ffm.on ? Ffm.getFunctionCallConv(addr) : LLVMGetFunctionCallConv(ref()); }

  public void setCallingConvention(int cc) { LLVMSetFunctionCallConv(ref(), cc); }

  /** LLVM's {@code tailcc} (CallingConv::Tail), which the C API has no constant for. */
  private static final int TAIL_CALL_CONV = 18;

  /**
   * The calling convention of a function published for callers outside the module in this function's
   * stead (a packet function, its wrapper): this function's own, except LLVM's optimisation
   * conventions {@code fastcc}, {@code coldcc} and {@code tailcc}, which clang gives {@code static}
   * functions and which no C caller uses: for those the C convention.
   */
  public int publishedCallingConvention() {
    int cc = callingConvention();
    return cc == LLVMFastCallConv || cc == LLVMColdCallConv || cc == TAIL_CALL_CONV ? LLVMCCallConv : cc;
  }

  // ---- attributes (function index) ----

  /** A string attribute of the function ("target-cpu", "target-features", ...), if present. */
  public Optional<String> stringAttribute(String key) {
    LLVMAttributeRef a = LLVMGetStringAttributeAtIndex(ref(), LLVMAttributeFunctionIndex, key, key.length());
    if (a == null || a.isNull()) return Optional.empty();
    try (var len = new org.bytedeco.javacpp.IntPointer(1)) {
      var p = LLVMGetStringAttributeValue(a, len);
      return Optional.of(p == null || p.isNull() ? "" : p.getString());
    }
  }

  public void setStringAttribute(String key, String value) {
    LLVMAttributeRef a = LLVMCreateStringAttribute(LLVMGetTypeContext(LLVMTypeOf(ref())), key, key.length(), value, value.length());
    LLVMAddAttributeAtIndex(ref(), LLVMAttributeFunctionIndex, a);
  }

  public void removeStringAttribute(String key) {
    LLVMRemoveStringAttributeAtIndex(ref(), LLVMAttributeFunctionIndex, key, key.length());
  }

  /** All string attributes of the function index (key -> value). */
  public Map<String, String> stringAttributes() {
    Map<String, String> out = new LinkedHashMap<>();
    int n = LLVMGetAttributeCountAtIndex(ref(), LLVMAttributeFunctionIndex);
    if (n == 0) return out;
    try (PointerPointer<LLVMAttributeRef> pp = new PointerPointer<>(n)) {
      LLVMGetAttributesAtIndex(ref(), LLVMAttributeFunctionIndex, pp);
      for (int i = 0; i < n; i++) {
        LLVMAttributeRef a = pp.get(LLVMAttributeRef.class, i);
        if (LLVMIsStringAttribute(a) == 0) continue;
        try (var len = new org.bytedeco.javacpp.IntPointer(1)) {
          String k = LLVMGetStringAttributeKind(a, len).getString();
          var vp = LLVMGetStringAttributeValue(a, len);
          out.put(k, vp == null || vp.isNull() ? "" : vp.getString());
        }
      }
    }
    return out;
  }

  /** Whether an enum attribute (by name, e.g. "nounwind", "readnone") is on the function. */
  public boolean hasEnumAttribute(String name) {
    int kind = LLVMGetEnumAttributeKindForName(name, name.length());
    if (kind == 0) return false;
    LLVMAttributeRef a = LLVMGetEnumAttributeAtIndex(ref(), LLVMAttributeFunctionIndex, kind);
    return a != null && !a.isNull();
  }

  /** The integer value of an enum attribute on the function (e.g. {@code vscale_range}), if present. */
  public Optional<Long> enumAttributeValue(String name) {
    int kind = LLVMGetEnumAttributeKindForName(name, name.length());
    if (kind == 0) return Optional.empty();
    LLVMAttributeRef a = LLVMGetEnumAttributeAtIndex(ref(), LLVMAttributeFunctionIndex, kind);
    if (a == null || a.isNull()) return Optional.empty();
    return Optional.of(LLVMGetEnumAttributeValue(a));
  }

  /** Sets an integer-valued enum attribute (replacing one of the same kind). */
  public void setEnumAttributeValue(String name, long value) {
    int kind = LLVMGetEnumAttributeKindForName(name, name.length());
    if (kind == 0) throw new IllegalArgumentException("unknown attribute " + name);
    LLVMRemoveEnumAttributeAtIndex(ref(), LLVMAttributeFunctionIndex, kind);
    LLVMAttributeRef a = LLVMCreateEnumAttribute(LLVMGetTypeContext(LLVMTypeOf(ref())), kind, value);
    LLVMAddAttributeAtIndex(ref(), LLVMAttributeFunctionIndex, a);
  }

  public void addEnumAttribute(String name) {
    int kind = LLVMGetEnumAttributeKindForName(name, name.length());
    if (kind == 0) throw new IllegalArgumentException("unknown attribute " + name);
    LLVMAttributeRef a = LLVMCreateEnumAttribute(LLVMGetTypeContext(LLVMTypeOf(ref())), kind, 0);
    LLVMAddAttributeAtIndex(ref(), LLVMAttributeFunctionIndex, a);
  }

  /** Removes an enum attribute (by name) from the function, if it is there. */
  public void removeEnumAttribute(String name) {
    int kind = LLVMGetEnumAttributeKindForName(name, name.length());
    if (kind != 0) LLVMRemoveEnumAttributeAtIndex(ref(), LLVMAttributeFunctionIndex, kind);
  }

  /**
   * Adds a type attribute ({@code sret}, {@code byval}, ...) of type {@code t} to parameter
   * {@code paramIndex} (0-based).
   */
  public void addParamTypeAttribute(int paramIndex, String name, Type t) {
    int kind = LLVMGetEnumAttributeKindForName(name, name.length());
    if (kind == 0) throw new IllegalArgumentException("unknown attribute " + name);
    LLVMAddAttributeAtIndex(ref(), paramIndex + 1, LLVMCreateTypeAttribute(LLVMGetTypeContext(LLVMTypeOf(ref())), kind, t.ref()));
  }

  /** Adds an integer attribute ({@code align} N, ...) to parameter {@code paramIndex} (0-based). */
  public void addParamIntAttribute(int paramIndex, String name, long value) {
    int kind = LLVMGetEnumAttributeKindForName(name, name.length());
    if (kind == 0) throw new IllegalArgumentException("unknown attribute " + name);
    LLVMAddAttributeAtIndex(ref(), paramIndex + 1, LLVMCreateEnumAttribute(LLVMGetTypeContext(LLVMTypeOf(ref())), kind, value));
  }

  /** The memory effects attribute value (LLVM's "memory" attribute int), or -1 when absent. */
  public long memoryEffects() {
    int kind = LLVMGetEnumAttributeKindForName("memory", 6);
    LLVMAttributeRef a = LLVMGetEnumAttributeAtIndex(ref(), LLVMAttributeFunctionIndex, kind);
    return a == null || a.isNull() ? -1 : LLVMGetEnumAttributeValue(a);
  }

  /** Whether the verifier accepts this function alone (no message is built). */
  public boolean isValid() { return LLVMVerifyFunction(ref(), LLVMReturnStatusAction) == 0; }

  /** Verifies this function alone; the verifier's message when broken. */
  public Optional<String> verify() {
    if (LLVMVerifyFunction(ref(), LLVMReturnStatusAction) == 0) return Optional.empty();
    // LLVMVerifyFunction gives no message; verify the module to get one, filtered by nothing.
    return Optional.of("function @" + name() + " is broken");
  }
}
