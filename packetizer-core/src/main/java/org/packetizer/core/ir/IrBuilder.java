package org.packetizer.core.ir;

import static org.bytedeco.llvm.global.LLVM.*;

import java.util.List;
import org.bytedeco.javacpp.PointerPointer;
import org.bytedeco.llvm.LLVM.LLVMBuilderRef;
import org.bytedeco.llvm.LLVM.LLVMValueRef;

/**
 * Builds instructions at an insertion point, plus constants. Owns its native builder: close it.
 * Every method that creates an instruction takes an optional name ("" for none).
 */
public final class IrBuilder implements AutoCloseable {
  private LLVMBuilderRef ref;
  private final LlvmContext ctx;

  public IrBuilder(LlvmContext ctx) {
    this.ctx = ctx;
    this.ref = LLVMCreateBuilderInContext(ctx.ref());
  }

  public LlvmContext context() { return ctx; }

  /** The native builder, for facade-internal use. */
  LLVMBuilderRef rawRef() { return b(); }

  /** The native builder (for code that positions it or builds with the C API directly). */
  public LLVMBuilderRef ref() { return b(); }

  /**
   * Inserts a copy of a scalar instruction (LLVMInstructionClone: same opcode, flags, attributes and
   * operands) at the insertion point; the caller remaps its operands.
   */
  public Value insertClone(Value instruction, String name) {
    if (Ffm.on) {
      Value copy = new Value(Ffm.instructionClone(instruction.id()));
      Ffm.insertIntoBuilderWithName(ba(), copy.id(), name);
      return copy;
    }
    Value copy = Value.of(LLVMInstructionClone(instruction.ref()));
    LLVMInsertIntoBuilderWithName(b(), copy.ref(), name);
    return copy;
  }

  private LLVMBuilderRef b() {
    if (ref == null) throw new IllegalStateException("builder is closed");
    return ref;
  }

  /** The native builder's address, for the java.lang.foreign calls ({@link Ffm}). */
  private long ba() { return b().address(); }

  // ---- positioning ----

  public IrBuilder atEnd(Block block) {
    if (Ffm.on) Ffm.positionBuilderAtEnd(ba(), block.id());
    else LLVMPositionBuilderAtEnd(b(), block.ref());
    return this;
  }

  public IrBuilder before(Value inst) {
    if (Ffm.on) Ffm.positionBuilderBefore(ba(), inst.id());
    else LLVMPositionBuilderBefore(b(), inst.ref());
    return this;
  }

  public Block currentBlock() { return Block.of(LLVMGetInsertBlock(b())); }

  // ---- constants ----

  public Value constInt(Type t, long v) { return (Ffm.on ? new Value(Ffm.constInt(t.id(), v, 1)) : Value.of(LLVMConstInt(t.ref(), v, 1))); }
  public Value i1(boolean v) { return constInt(ctx.i1(), v ? 1 : 0); }
  public Value i32(long v) { return constInt(ctx.i32(), v); }
  public Value i64(long v) { return constInt(ctx.i64(), v); }
  public Value constReal(Type t, double v) { return (Ffm.on ? new Value(Ffm.constReal(t.id(), v)) : Value.of(LLVMConstReal(t.ref(), v))); }
  public Value constNull(Type t) { return (Ffm.on ? new Value(Ffm.constNull(t.id())) : Value.of(LLVMConstNull(t.ref()))); }
  public Value allOnes(Type t) { return Value.of(LLVMConstAllOnes(t.ref())); }
  public Value undef(Type t) { return (Ffm.on ? new Value(Ffm.getUndef(t.id())) : Value.of(LLVMGetUndef(t.ref()))); }
  public Value poison(Type t) { return (Ffm.on ? new Value(Ffm.getPoison(t.id())) : Value.of(LLVMGetPoison(t.ref()))); }

  public Value constVector(List<Value> elems) {
    // (the builder's operand array: LLVM copies the elements; a constant is uniqued in the context)
    if (Ffm.on) return new Value(Ffm.constVector(Ffm.addresses(elems), elems.size()));
    return Value.of(LLVMConstVector(operands(elems), elems.size()));
  }

  /** A constant vector {@code <0, 1, ..., n-1>} of the given integer type. */
  public Value laneIndices(Type intType, int n) {
    Value[] es = new Value[n];
    for (int i = 0; i < n; i++) es[i] = constInt(intType, i);
    return constVector(List.of(es));
  }

  /**
   * Lane k's number times {@code step}, {@code <0, step, 2*step, ...>}: a constant vector, or, when
   * {@code scalableLater} (the packet function will be re-typed to vscale × n lanes), {@code
   * llvm.stepvector} times step, which LLVM keeps as a call (it does not fold the fixed-width form) and
   * which stays right for any number of lanes.
   */
  public Value laneNumbers(LlvmModule module, Type intType, int n, long step, boolean scalableLater) {
    if (!scalableLater) {
      Value[] es = new Value[n];
      for (int i = 0; i < n; i++) es[i] = constInt(intType, i * step);
      return constVector(List.of(es));
    }
    Type vt = intType.vectorOf(n);
    Value lanes = call(module.intrinsic("llvm.stepvector", vt), List.of(), "lane.numbers");
    return step == 1 ? lanes : mul(lanes, splat(constInt(intType, step), n, ""), "lane.offsets");
  }

  // ---- arithmetic ----

  public Value binop(Opcode op, Value a, Value c, String name) {
    if (Ffm.on) return new Value(Ffm.buildBinOp(ba(), op.code(), a.id(), c.id(), name));
    return Value.of(LLVMBuildBinOp(b(), op.code(), a.ref(), c.ref(), name));
  }
  public Value add(Value a, Value c, String n) { return binop(Opcode.ADD, a, c, n); }
  public Value sub(Value a, Value c, String n) { return binop(Opcode.SUB, a, c, n); }
  public Value mul(Value a, Value c, String n) { return binop(Opcode.MUL, a, c, n); }
  public Value and(Value a, Value c, String n) { return binop(Opcode.AND, a, c, n); }
  public Value or(Value a, Value c, String n) { return binop(Opcode.OR, a, c, n); }
  public Value xor(Value a, Value c, String n) { return binop(Opcode.XOR, a, c, n); }
  public Value fadd(Value a, Value c, String n) { return binop(Opcode.FADD, a, c, n); }
  public Value fsub(Value a, Value c, String n) { return binop(Opcode.FSUB, a, c, n); }
  public Value fmul(Value a, Value c, String n) { return binop(Opcode.FMUL, a, c, n); }
  public Value not(Value a, String n) { return (Ffm.on ? new Value(Ffm.buildNot(ba(), a.id(), n)) : Value.of(LLVMBuildNot(b(), a.ref(), n))); }
  public Value fneg(Value a, String n) { return (Ffm.on ? new Value(Ffm.buildFNeg(ba(), a.id(), n)) : Value.of(LLVMBuildFNeg(b(), a.ref(), n))); }

  public Value icmp(int predicate, Value a, Value c, String n) {
    return (Ffm.on ? new Value(Ffm.buildICmp(ba(), predicate, a.id(), c.id(), n)) : Value.of(LLVMBuildICmp(b(), predicate, a.ref(), c.ref(), n)));
  }
  /** LLVM's floating-point predicates, for {@link #fcmp}: ordered greater-or-equal, unordered-or-equal. */
  public static final int FCMP_OGE = LLVMRealOGE, FCMP_UEQ = LLVMRealUEQ;

  public Value fcmp(int predicate, Value a, Value c, String n) {
    return (Ffm.on ? new Value(Ffm.buildFCmp(ba(), predicate, a.id(), c.id(), n)) : Value.of(LLVMBuildFCmp(b(), predicate, a.ref(), c.ref(), n)));
  }

  public Value select(Value cond, Value t, Value f, String n) {
    return (Ffm.on ? new Value(Ffm.buildSelect(ba(), cond.id(), t.id(), f.id(), n)) : Value.of(LLVMBuildSelect(b(), cond.ref(), t.ref(), f.ref(), n)));
  }

  public Value cast(Opcode op, Value v, Type to, String n) {
    return (Ffm.on ? new Value(Ffm.buildCast(ba(), op.code(), v.id(), to.id(), n)) : Value.of(LLVMBuildCast(b(), op.code(), v.ref(), to.ref(), n)));
  }

  public Value freeze(Value v, String n) { return Value.of(LLVMBuildFreeze(b(), v.ref(), n)); }

  public Value sext(Value v, Type to, String n) { return cast(Opcode.SEXT, v, to, n); }

  /** {@code icmp eq a, c}. */
  public Value icmpEq(Value a, Value c, String n) { return icmp(LLVMIntEQ, a, c, n); }

  /** {@code icmp ne a, c}. */
  public Value icmpNe(Value a, Value c, String n) { return icmp(LLVMIntNE, a, c, n); }

  /** {@code select(a > c, a, c)} (signed, or unsigned when {@code unsigned}). */
  public Value max(Value a, Value c, boolean unsigned, String n) {
    return select(icmp(unsigned ? LLVMIntUGT : LLVMIntSGT, a, c, ""), a, c, n);
  }

  /** {@code select(a < c, a, c)} (signed, or unsigned when {@code unsigned}). */
  public Value min(Value a, Value c, boolean unsigned, String n) {
    return select(icmp(unsigned ? LLVMIntULT : LLVMIntSLT, a, c, ""), a, c, n);
  }

  /** {@code icmp ult a, c} (unsigned less than). */
  public Value icmpUlt(Value a, Value c, String n) { return icmp(LLVMIntULT, a, c, n); }

  /** {@code icmp slt a, c} (signed less than). */
  public Value icmpSlt(Value a, Value c, String n) { return icmp(LLVMIntSLT, a, c, n); }

  /** Inserts an instruction taken out of its block ({@link Value#removeFromParent}) at the insertion point. */
  public void insert(Value instruction) { LLVMInsertIntoBuilder(b(), instruction.ref()); }

  // ---- vectors ----

  public Value extractElement(Value vec, Value idx, String n) {
    return (Ffm.on ? new Value(Ffm.buildExtractElement(ba(), vec.id(), idx.id(), n)) : Value.of(LLVMBuildExtractElement(b(), vec.ref(), idx.ref(), n)));
  }
  public Value extractElement(Value vec, int idx, String n) { return extractElement(vec, i32(idx), n); }
  public Value insertElement(Value vec, Value elem, Value idx, String n) {
    return (Ffm.on ? new Value(Ffm.buildInsertElement(ba(), vec.id(), elem.id(), idx.id(), n)) : Value.of(LLVMBuildInsertElement(b(), vec.ref(), elem.ref(), idx.ref(), n)));
  }
  public Value insertElement(Value vec, Value elem, int idx, String n) { return insertElement(vec, elem, i32(idx), n); }
  public Value shuffle(Value v1, Value v2, Value mask, String n) {
    return (Ffm.on ? new Value(Ffm.buildShuffleVector(ba(), v1.id(), v2.id(), mask.id(), n)) : Value.of(LLVMBuildShuffleVector(b(), v1.ref(), v2.ref(), mask.ref(), n)));
  }

  /** Broadcasts a scalar to a {@code width}-lane vector (insertelement + zero shuffle; constants fold). */
  public Value splat(Value scalar, int width, String n) {
    if (scalar.isConstant() && !scalar.isConstantExpr()) {
      // (constants are uniqued in the context: the same splat is the same value, made once per builder;
      // not splats of pointer constants, which LLVM may destroy with a global's dead constant users)
      SplatKey key = new SplatKey(scalar, width);
      Value known = constSplats.get(key);
      if (known != null) return known;
      Value[] es = new Value[width];
      java.util.Arrays.fill(es, scalar);
      Value v = constVector(List.of(es));
      if (!scalar.type().isPointer()) constSplats.put(key, v);
      return v;
    }
    Value[] pz = splatConstants.computeIfAbsent(new SplatType(scalar.type(), width), k -> {
      Type vt = k.scalar().vectorOf(width);
      return new Value[] {poison(vt), constNull(ctx.i32().vectorOf(width))};
    });
    Value ins = insertElement(pz[0], scalar, 0, n.isEmpty() ? "" : n + ".ins");
    return shuffle(ins, pz[0], pz[1], n);
  }

  private record SplatType(Type scalar, int width) {}

  /** Per scalar type and width: the poison vector and the zero shuffle mask of a broadcast. */
  private final java.util.Map<SplatType, Value[]> splatConstants = new java.util.HashMap<>();

  private record SplatKey(Value scalar, int width) {}

  /** Constant splats made by this builder (issue 16: one constant vector per use was a native array and a JNI call each). */
  private final java.util.Map<SplatKey, Value> constSplats = new java.util.HashMap<>();

  public Value extractValue(Value agg, int idx, String n) { return Value.of(LLVMBuildExtractValue(b(), agg.ref(), idx, n)); }
  public Value insertValue(Value agg, Value v, int idx, String n) { return Value.of(LLVMBuildInsertValue(b(), agg.ref(), v.ref(), idx, n)); }

  // ---- memory ----

  public Value alloca(Type t, String n) { return Value.of(LLVMBuildAlloca(b(), t.ref(), n)); }

  /** {@code alloca t, count} (a dynamic allocation when not in the entry block or count is not constant). */
  public Value arrayAlloca(Type t, Value count, String n) { return Value.of(LLVMBuildArrayAlloca(b(), t.ref(), count.ref(), n)); }

  public Value load(Type t, Value ptr, String n) {
    return (Ffm.on ? new Value(Ffm.buildLoad2(ba(), t.id(), ptr.id(), n)) : Value.of(LLVMBuildLoad2(b(), t.ref(), ptr.ref(), n)));
  }

  public Value load(Type t, Value ptr, int align, String n) {
    Value l = load(t, ptr, n);
    if (align > 0) l.setAlignment(align);
    return l;
  }

  public Value store(Value v, Value ptr) {
    return (Ffm.on ? new Value(Ffm.buildStore(ba(), v.id(), ptr.id())) : Value.of(LLVMBuildStore(b(), v.ref(), ptr.ref())));
  }

  public Value store(Value v, Value ptr, int align) {
    Value s = store(v, ptr);
    if (align > 0) s.setAlignment(align);
    return s;
  }

  /** {@code loadOrStore} made atomic with monotonic (relaxed) ordering: no data race between threads, no fence. */
  public Value relaxed(Value loadOrStore) {
    LLVMSetOrdering(loadOrStore.ref(), LLVMAtomicOrderingMonotonic);
    return loadOrStore;
  }

  public Value gep(Type sourceElementType, Value ptr, List<Value> indices, boolean inBounds, String n) {
    if (Ffm.on) return new Value(Ffm.buildGep2(ba(), sourceElementType.id(), ptr.id(), Ffm.addresses(indices), indices.size(), inBounds, n));
    PointerPointer<LLVMValueRef> pp = operands(indices);
    return Value.of(inBounds
        ? LLVMBuildInBoundsGEP2(b(), sourceElementType.ref(), ptr.ref(), pp, indices.size(), n)
        : LLVMBuildGEP2(b(), sourceElementType.ref(), ptr.ref(), pp, indices.size(), n));
  }

  // ---- control flow ----

  public Value phi(Type t, String n) { return (Ffm.on ? new Value(Ffm.buildPhi(ba(), t.id(), n)) : Value.of(LLVMBuildPhi(b(), t.ref(), n))); }

  public Value br(Block target) { return (Ffm.on ? new Value(Ffm.buildBr(ba(), target.id())) : Value.of(LLVMBuildBr(b(), target.ref()))); }

  public Value condBr(Value cond, Block ifTrue, Block ifFalse) {
    return (Ffm.on ? new Value(Ffm.buildCondBr(ba(), cond.id(), ifTrue.id(), ifFalse.id())) : Value.of(LLVMBuildCondBr(b(), cond.ref(), ifTrue.ref(), ifFalse.ref())));
  }

  public Value ret(Value v) { return Value.of(LLVMBuildRet(b(), v.ref())); }

  public Value retVoid() { return Value.of(LLVMBuildRetVoid(b())); }

  public Value unreachable() { return Value.of(LLVMBuildUnreachable(b())); }

  // ---- calls ----

  public Value call(Function f, List<Value> args, String n) { return call(f.functionType(), f, args, n); }

  /**
   * A call. A direct call gets its callee's calling convention: a call whose convention differs from
   * the callee's is undefined behaviour, which the clean-up passes turn into {@code unreachable}
   * (LLVMBuildCall2 always builds a C-convention call, and clang gives internal helpers {@code fastcc}).
   * An indirect call keeps the C convention; its caller sets the right one.
   */
  public Value call(Type fnType, Value callee, List<Value> args, String n) {
    String name = fnType.returnType().isVoid() ? "" : n;
    if (Ffm.on) {
      Value call = new Value(Ffm.buildCall2(ba(), fnType.id(), callee.id(), Ffm.addresses(args), args.size(), name));
      if (callee.isFunction()) Ffm.setInstructionCallConv(call.id(), Ffm.getFunctionCallConv(callee.id()));
      return call;
    }
    PointerPointer<LLVMValueRef> pp = operands(args);
    Value call = Value.of(LLVMBuildCall2(b(), fnType.ref(), callee.ref(), pp, args.size(), name));
    if (callee.isFunction()) LLVMSetInstructionCallConv(call.ref(), LLVMGetFunctionCallConv(callee.ref()));
    return call;
  }

  /** Operand array reused by this builder's GEPs and calls (LLVM copies the operands). */
  private PointerPointer<LLVMValueRef> operandArray;

  private PointerPointer<LLVMValueRef> operands(List<Value> vs) {
    int n = Math.max(1, vs.size());
    if (operandArray == null || operandArray.capacity() < n) {
      if (operandArray != null) operandArray.close();
      operandArray = new PointerPointer<>(Math.max(16, n));
    }
    for (int i = 0; i < vs.size(); i++) operandArray.put(i, vs.get(i).ref());
    return operandArray;
  }

  static PointerPointer<LLVMValueRef> values(List<Value> vs) {
    PointerPointer<LLVMValueRef> pp = new PointerPointer<>(Math.max(1, vs.size()));
    for (int i = 0; i < vs.size(); i++) pp.put(i, vs.get(i).ref());
    return pp;
  }

  @Override
  public void close() {
    if (ref != null) LLVMDisposeBuilder(ref);
    ref = null;
    if (operandArray != null) operandArray.close();
    operandArray = null;
  }
}
