package org.packetizer.core.ir;

import static org.bytedeco.llvm.global.LLVM.*;
import static org.junit.jupiter.api.Assertions.*;

import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.bytedeco.javacpp.PointerPointer;
import org.bytedeco.llvm.LLVM.LLVMBasicBlockRef;
import org.bytedeco.llvm.LLVM.LLVMBuilderRef;
import org.bytedeco.llvm.LLVM.LLVMTypeRef;
import org.bytedeco.llvm.LLVM.LLVMValueRef;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.packetizer.core.toolchain.BundledClang;

/**
 * Every call of the {@code java.lang.foreign} binding ({@link Ffm}, issue 16) against the javacpp call
 * of the same C function, on a module clang compiled from C at -O2 (loops, phis, a switch, an internal
 * {@code fastcc} helper, vectors, negative constants, constant expressions, names): the reading calls
 * on every reachable value, block, use and type; the building calls by building the same function
 * twice, once through each binding, into two copies of the module, whose printed text must be equal.
 * A wrong symbol, argument order or argument type in a binding fails here.
 */
class FfmBindingTest {
  static final String SOURCE = """
      typedef float v4 __attribute__((vector_size(16)));
      int table[8] = { -3, 5, -7, 9, 11, -13, 15, 17 };
      long counts[8];
      static __attribute__((noinline)) float helper(float x, int k) { return x * (float) k + 1.0f; }
      float walk(float *restrict a, int n, int m, v4 v, double d) {
        float s = 0;
        for (int i = 0; i < n; i++) {
          float x = a[i];
          if (x > 0.5f && i != m) s += helper(x, i * -3 + table[i & 7]); else s -= x;
          unsigned u = (unsigned) i;
          if (u < 7u) s *= 2.0f;
        }
        switch (m) { case 1: s += 1; break; case 2: s -= 2; break; case 7: s *= 3; break; }
        v4 w = v * s;
        s += w[2] + (float) table[m & 7] - 4.0f;
        return s + (float) d;
      }
      void hist(const unsigned char *p, int n) { for (int i = 0; i < n; i++) counts[p[i] & 7] += -2; }
      long *slot(int k) { return &counts[3] + k; }
      """;

  static byte[] bitcode;

  @BeforeAll
  static void compile() {
    // (the binding is on unless the run asked for the javacpp path; then there is nothing to compare)
    Assumptions.assumeFalse("false".equalsIgnoreCase(System.getProperty("packetizer.ffm")),
        "SKIPPED LOUDLY: -Dpacketizer.ffm=false: the java.lang.foreign binding is off in this run");
    assertTrue(Ffm.enable(), "the java.lang.foreign binding is off: " + Ffm.status());
    bitcode = BundledClang.locate().compileToBitcode(SOURCE, "ffm.c", List.of("-O2", "-fno-discard-value-names"));
  }

  static long a(org.bytedeco.javacpp.Pointer p) { return p == null ? 0 : p.address(); }

  @Test
  void everyReadingCallAgreesWithJavacpp() {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.parseBitcode(bitcode, "ffm")) {
      ArrayDeque<Value> work = new ArrayDeque<>();
      Set<Long> seen = new HashSet<>();
      Set<Long> types = new HashSet<>();
      work.addAll(m.globals());
      work.addAll(m.functions());
      int[] met = new int[10];
      while (!work.isEmpty()) {
        Value v = work.pop();
        if (!seen.add(v.id())) continue;
        LLVMValueRef r = v.ref();
        long x = v.id();
        String what = v.print();
        assertEquals(a(LLVMTypeOf(r)), Ffm.typeOf(x), what);
        types.add(Ffm.typeOf(x));
        int kind = LLVMGetValueKind(r);
        assertEquals(kind, Ffm.getValueKind(x), what);
        assertEquals(LLVMIsConstant(r), Ffm.isConstant(x), what);
        assertEquals(LLVMIsUndef(r), Ffm.isUndef(x), what);
        assertEquals(LLVMIsPoison(r), Ffm.isPoison(x), what);
        assertEquals(LLVMValueIsBasicBlock(r), Ffm.valueIsBasicBlock(x), what);
        assertEquals(LLVMGetValueName(r).getString(), Ffm.string(Ffm.getValueName(x)), what);
        assertEquals(LLVMGetValueName(r).getString(), Ffm.valueName(x), what);
        assertEquals(a(LLVMGetFirstUse(r)), Ffm.getFirstUse(x), what);
        for (long u = Ffm.getFirstUse(x); u != 0; u = Ffm.getNextUse(u)) {
          assertEquals(a(LLVMGetNextUse(Ffm.use(u))), Ffm.getNextUse(u), what);
          assertEquals(a(LLVMGetUser(Ffm.use(u))), Ffm.getUser(u), what);
          met[0]++;
        }
        if (kind == LLVMConstantIntValueKind) {
          assertEquals(LLVMConstIntGetSExtValue(r), Ffm.constIntGetSExtValue(x), what);
          assertEquals(LLVMConstIntGetZExtValue(r), Ffm.constIntGetZExtValue(x), what);
          if (LLVMConstIntGetSExtValue(r) != LLVMConstIntGetZExtValue(r)) met[1]++;  // a negative narrow constant
        }
        if (kind == LLVMConstantExprValueKind) {
          assertEquals(LLVMGetConstOpcode(r), Ffm.getConstOpcode(x), what);
          met[2]++;
        }
        if (kind == LLVMFunctionValueKind) {
          assertEquals(a(LLVMGlobalGetValueType(r)), Ffm.globalGetValueType(x), what);
          types.add(Ffm.globalGetValueType(x));
          assertEquals(LLVMGetFunctionCallConv(r), Ffm.getFunctionCallConv(x), what);
          if (Ffm.getFunctionCallConv(x) == LLVMFastCallConv) met[3]++;
          assertEquals(LLVMCountParams(r), Ffm.countParams(x), what);
          for (int i = 0; i < LLVMCountParams(r); i++) {
            assertEquals(a(LLVMGetParam(r, i)), Ffm.getParam(x, i), what);
            work.add(Value.of(LLVMGetParam(r, i)));
          }
          assertEquals(a(LLVMGetFirstBasicBlock(r)), Ffm.getFirstBasicBlock(x), what);
          if (LLVMIsDeclaration(r) == 0) assertEquals(a(LLVMGetEntryBasicBlock(r)), Ffm.getEntryBasicBlock(x), what);
          for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(r); b != null && !b.isNull(); b = LLVMGetNextBasicBlock(b)) {
            long ba = b.address();
            assertEquals(a(LLVMGetNextBasicBlock(b)), Ffm.getNextBasicBlock(ba), what);
            assertEquals(a(LLVMGetBasicBlockTerminator(b)), Ffm.getBasicBlockTerminator(ba), what);
            assertEquals(a(LLVMGetBasicBlockParent(b)), Ffm.getBasicBlockParent(ba), what);
            assertEquals(a(LLVMGetFirstInstruction(b)), Ffm.getFirstInstruction(ba), what);
            assertEquals(LLVMGetBasicBlockName(b).getString(), Ffm.string(Ffm.getBasicBlockName(ba)), what);
            assertEquals(LLVMGetBasicBlockName(b).getString(), Ffm.blockName(ba), what);
            if (!LLVMGetBasicBlockName(b).getString().isEmpty()) met[4]++;
            for (LLVMValueRef i = LLVMGetFirstInstruction(b); i != null && !i.isNull(); i = LLVMGetNextInstruction(i)) work.add(Value.of(i));
          }
        }
        if (kind == LLVMInstructionValueKind) {
          int op = LLVMGetInstructionOpcode(r);
          assertEquals(op, Ffm.getInstructionOpcode(x), what);
          assertEquals(a(LLVMGetNextInstruction(r)), Ffm.getNextInstruction(x), what);
          assertEquals(a(LLVMGetInstructionParent(r)), Ffm.getInstructionParent(x), what);
          if (op == LLVMPHI) {
            assertEquals(LLVMCountIncoming(r), Ffm.countIncoming(x), what);
            for (int k = 0; k < LLVMCountIncoming(r); k++) {
              assertEquals(a(LLVMGetIncomingValue(r, k)), Ffm.getIncomingValue(x, k), what);
              assertEquals(a(LLVMGetIncomingBlock(r, k)), Ffm.getIncomingBlock(x, k), what);
            }
            met[5]++;
          }
          if (LLVMIsATerminatorInst(r) != null) {
            assertEquals(LLVMGetNumSuccessors(r), Ffm.getNumSuccessors(x), what);
            for (int k = 0; k < LLVMGetNumSuccessors(r); k++) assertEquals(a(LLVMGetSuccessor(r, k)), Ffm.getSuccessor(x, k), what);
            if (LLVMGetNumSuccessors(r) > 2) met[6]++;
          }
          if (op == LLVMBr) {
            assertEquals(LLVMIsConditional(r), Ffm.isConditional(x), what);
            if (LLVMIsConditional(r) != 0) assertEquals(a(LLVMGetCondition(r)), Ffm.getCondition(x), what);
          }
          if (op == LLVMICmp) { assertEquals(LLVMGetICmpPredicate(r), Ffm.getICmpPredicate(x), what); met[7]++; }
          if (op == LLVMFCmp) { assertEquals(LLVMGetFCmpPredicate(r), Ffm.getFCmpPredicate(x), what); met[8]++; }
        }
        if (kind == LLVMMetadataAsValueValueKind || kind == LLVMBasicBlockValueKind) continue;
        assertEquals(LLVMGetNumOperands(r), Ffm.getNumOperands(x), what);
        for (int k = 0; k < LLVMGetNumOperands(r); k++) {
          assertEquals(a(LLVMGetOperand(r, k)), Ffm.getOperand(x, k), what);
          if (Ffm.getOperand(x, k) != 0) work.add(Value.of(Ffm.value(Ffm.getOperand(x, k))));
        }
      }
      // the types met, and their elements
      ArrayDeque<Long> tw = new ArrayDeque<>(types);
      Set<Long> tseen = new HashSet<>();
      while (!tw.isEmpty()) {
        long t = tw.pop();
        if (!tseen.add(t)) continue;
        LLVMTypeRef tr = Ffm.type(t);
        int k = LLVMGetTypeKind(tr);
        assertEquals(k, Ffm.getTypeKind(t), Type.of(tr).toString());
        if (k == LLVMIntegerTypeKind) assertEquals(LLVMGetIntTypeWidth(tr), Ffm.getIntTypeWidth(t));
        if (k == LLVMVectorTypeKind || k == LLVMArrayTypeKind) {
          assertEquals(a(LLVMGetElementType(tr)), Ffm.getElementType(t));
          tw.add(Ffm.getElementType(t));
        }
        if (k == LLVMVectorTypeKind) { assertEquals(LLVMGetVectorSize(tr), Ffm.getVectorSize(t)); met[9]++; }
        if (k == LLVMFunctionTypeKind) tw.add(a(LLVMGetReturnType(tr)));
        if (k == LLVMIntegerTypeKind || k == LLVMFloatTypeKind || k == LLVMDoubleTypeKind) {
          assertEquals(a(LLVMVectorType(tr, 4)), Ffm.vectorType(t, 4));
          assertEquals(a(LLVMConstNull(tr)), Ffm.constNull(t));
          assertEquals(a(LLVMGetPoison(tr)), Ffm.getPoison(t));
          assertEquals(a(LLVMGetUndef(tr)), Ffm.getUndef(t));
        }
        if (k == LLVMIntegerTypeKind) assertEquals(a(LLVMConstInt(tr, -5, 1)), Ffm.constInt(t, -5, 1));
        if (k == LLVMFloatTypeKind || k == LLVMDoubleTypeKind) assertEquals(a(LLVMConstReal(tr, -2.75)), Ffm.constReal(t, -2.75));
      }
      for (int k = 0; k < met.length; k++) assertTrue(met[k] > 0, "case " + k + " not met: " + java.util.Arrays.toString(met));
    }
  }

  /** The building calls, on addresses: one implementation per binding. */
  interface Calls {
    void atEnd(long b, long block);
    void before(long b, long inst);
    long constInt(long t, long v);
    long constReal(long t, double v);
    long constNull(long t);
    long poison(long t);
    long undef(long t);
    long constVector(long[] elems);
    long vectorType(long t, int n);
    long binOp(long b, int op, long l, long r, String n);
    long not(long b, long v, String n);
    long fneg(long b, long v, String n);
    long icmp(long b, int p, long l, long r, String n);
    long fcmp(long b, int p, long l, long r, String n);
    long select(long b, long c, long t, long f, String n);
    long cast(long b, int op, long v, long to, String n);
    long extractElement(long b, long vec, long idx, String n);
    long insertElement(long b, long vec, long e, long idx, String n);
    long shuffle(long b, long v1, long v2, long mask, String n);
    long load(long b, long t, long p, String n);
    long store(long b, long v, long p);
    long gep(long b, long t, long p, long[] idx, boolean inBounds, String n);
    long call(long b, long fnTy, long fn, long[] args, String n);
    long phi(long b, long t, String n);
    void addIncoming(long phi, long[] values, long[] blocks);
    long br(long b, long dest);
    long condBr(long b, long c, long t, long f);
    long cloneInsert(long b, long inst, String n);
    void setOperand(long v, int i, long o);
    void setAlignment(long v, int bytes);
    void setCallConv(long v, int cc);
    int functionCallConv(long f);
    void rauw(long v, long w);
    void erase(long v);
  }

  static final class Javacpp implements Calls {
    static LLVMValueRef v(long x) { return Ffm.value(x); }
    static PointerPointer<LLVMValueRef> arr(long[] xs) {
      PointerPointer<LLVMValueRef> pp = new PointerPointer<>(Math.max(1, xs.length));
      for (int i = 0; i < xs.length; i++) pp.put(i, v(xs[i]));
      return pp;
    }
    static LLVMBuilderRef b(long x) { return new LLVMBuilderRef(Ffm.value(x)); }
    public void atEnd(long b, long block) { LLVMPositionBuilderAtEnd(b(b), Ffm.block(block)); }
    public void before(long b, long inst) { LLVMPositionBuilderBefore(b(b), v(inst)); }
    public long constInt(long t, long x) { return a(LLVMConstInt(Ffm.type(t), x, 1)); }
    public long constReal(long t, double x) { return a(LLVMConstReal(Ffm.type(t), x)); }
    public long constNull(long t) { return a(LLVMConstNull(Ffm.type(t))); }
    public long poison(long t) { return a(LLVMGetPoison(Ffm.type(t))); }
    public long undef(long t) { return a(LLVMGetUndef(Ffm.type(t))); }
    public long constVector(long[] es) { try (var pp = arr(es)) { return a(LLVMConstVector(pp, es.length)); } }
    public long vectorType(long t, int n) { return a(LLVMVectorType(Ffm.type(t), n)); }
    public long binOp(long b, int op, long l, long r, String n) { return a(LLVMBuildBinOp(b(b), op, v(l), v(r), n)); }
    public long not(long b, long x, String n) { return a(LLVMBuildNot(b(b), v(x), n)); }
    public long fneg(long b, long x, String n) { return a(LLVMBuildFNeg(b(b), v(x), n)); }
    public long icmp(long b, int p, long l, long r, String n) { return a(LLVMBuildICmp(b(b), p, v(l), v(r), n)); }
    public long fcmp(long b, int p, long l, long r, String n) { return a(LLVMBuildFCmp(b(b), p, v(l), v(r), n)); }
    public long select(long b, long c, long t, long f, String n) { return a(LLVMBuildSelect(b(b), v(c), v(t), v(f), n)); }
    public long cast(long b, int op, long x, long to, String n) { return a(LLVMBuildCast(b(b), op, v(x), Ffm.type(to), n)); }
    public long extractElement(long b, long vec, long idx, String n) { return a(LLVMBuildExtractElement(b(b), v(vec), v(idx), n)); }
    public long insertElement(long b, long vec, long e, long idx, String n) { return a(LLVMBuildInsertElement(b(b), v(vec), v(e), v(idx), n)); }
    public long shuffle(long b, long v1, long v2, long mask, String n) { return a(LLVMBuildShuffleVector(b(b), v(v1), v(v2), v(mask), n)); }
    public long load(long b, long t, long p, String n) { return a(LLVMBuildLoad2(b(b), Ffm.type(t), v(p), n)); }
    public long store(long b, long x, long p) { return a(LLVMBuildStore(b(b), v(x), v(p))); }
    public long gep(long b, long t, long p, long[] idx, boolean inBounds, String n) {
      try (var pp = arr(idx)) {
        return a(inBounds ? LLVMBuildInBoundsGEP2(b(b), Ffm.type(t), v(p), pp, idx.length, n) : LLVMBuildGEP2(b(b), Ffm.type(t), v(p), pp, idx.length, n));
      }
    }
    public long call(long b, long fnTy, long fn, long[] args, String n) {
      try (var pp = arr(args)) { return a(LLVMBuildCall2(b(b), Ffm.type(fnTy), v(fn), pp, args.length, n)); }
    }
    public long phi(long b, long t, String n) { return a(LLVMBuildPhi(b(b), Ffm.type(t), n)); }
    public void addIncoming(long phi, long[] values, long[] blocks) {
      try (var vs = arr(values); var bs = arr(blocks)) {
        LLVMAddIncoming(v(phi), vs, new PointerPointer<LLVMBasicBlockRef>(bs), values.length);
      }
    }
    public long br(long b, long dest) { return a(LLVMBuildBr(b(b), Ffm.block(dest))); }
    public long condBr(long b, long c, long t, long f) { return a(LLVMBuildCondBr(b(b), v(c), Ffm.block(t), Ffm.block(f))); }
    public long cloneInsert(long b, long inst, String n) {
      LLVMValueRef c = LLVMInstructionClone(v(inst));
      LLVMInsertIntoBuilderWithName(b(b), c, n);
      return a(c);
    }
    public void setOperand(long x, int i, long o) { LLVMSetOperand(v(x), i, v(o)); }
    public void setAlignment(long x, int bytes) { LLVMSetAlignment(v(x), bytes); }
    public void setCallConv(long x, int cc) { LLVMSetInstructionCallConv(v(x), cc); }
    public int functionCallConv(long f) { return LLVMGetFunctionCallConv(v(f)); }
    public void rauw(long x, long w) { LLVMReplaceAllUsesWith(v(x), v(w)); }
    public void erase(long x) { LLVMInstructionEraseFromParent(v(x)); }
  }

  static final class Foreign implements Calls {
    public void atEnd(long b, long block) { Ffm.positionBuilderAtEnd(b, block); }
    public void before(long b, long inst) { Ffm.positionBuilderBefore(b, inst); }
    public long constInt(long t, long v) { return Ffm.constInt(t, v, 1); }
    public long constReal(long t, double v) { return Ffm.constReal(t, v); }
    public long constNull(long t) { return Ffm.constNull(t); }
    public long poison(long t) { return Ffm.getPoison(t); }
    public long undef(long t) { return Ffm.getUndef(t); }
    public long constVector(long[] es) { return Ffm.constVector(MemorySegment.ofArray(es), es.length); }
    public long vectorType(long t, int n) { return Ffm.vectorType(t, n); }
    public long binOp(long b, int op, long l, long r, String n) { return Ffm.buildBinOp(b, op, l, r, n); }
    public long not(long b, long v, String n) { return Ffm.buildNot(b, v, n); }
    public long fneg(long b, long v, String n) { return Ffm.buildFNeg(b, v, n); }
    public long icmp(long b, int p, long l, long r, String n) { return Ffm.buildICmp(b, p, l, r, n); }
    public long fcmp(long b, int p, long l, long r, String n) { return Ffm.buildFCmp(b, p, l, r, n); }
    public long select(long b, long c, long t, long f, String n) { return Ffm.buildSelect(b, c, t, f, n); }
    public long cast(long b, int op, long v, long to, String n) { return Ffm.buildCast(b, op, v, to, n); }
    public long extractElement(long b, long vec, long idx, String n) { return Ffm.buildExtractElement(b, vec, idx, n); }
    public long insertElement(long b, long vec, long e, long idx, String n) { return Ffm.buildInsertElement(b, vec, e, idx, n); }
    public long shuffle(long b, long v1, long v2, long mask, String n) { return Ffm.buildShuffleVector(b, v1, v2, mask, n); }
    public long load(long b, long t, long p, String n) { return Ffm.buildLoad2(b, t, p, n); }
    public long store(long b, long v, long p) { return Ffm.buildStore(b, v, p); }
    public long gep(long b, long t, long p, long[] idx, boolean inBounds, String n) {
      return Ffm.buildGep2(b, t, p, MemorySegment.ofArray(idx), idx.length, inBounds, n);
    }
    public long call(long b, long fnTy, long fn, long[] args, String n) { return Ffm.buildCall2(b, fnTy, fn, MemorySegment.ofArray(args), args.length, n); }
    public long phi(long b, long t, String n) { return Ffm.buildPhi(b, t, n); }
    public void addIncoming(long phi, long[] values, long[] blocks) {
      Ffm.addIncoming(phi, MemorySegment.ofArray(values), MemorySegment.ofArray(blocks), values.length);
    }
    public long br(long b, long dest) { return Ffm.buildBr(b, dest); }
    public long condBr(long b, long c, long t, long f) { return Ffm.buildCondBr(b, c, t, f); }
    public long cloneInsert(long b, long inst, String n) {
      long c = Ffm.instructionClone(inst);
      Ffm.insertIntoBuilderWithName(b, c, n);
      return c;
    }
    public void setOperand(long v, int i, long o) { Ffm.setOperand(v, i, o); }
    public void setAlignment(long v, int bytes) { Ffm.setAlignment(v, bytes); }
    public void setCallConv(long v, int cc) { Ffm.setInstructionCallConv(v, cc); }
    public int functionCallConv(long f) { return Ffm.getFunctionCallConv(f); }
    public void rauw(long v, long w) { Ffm.replaceAllUsesWith(v, w); }
    public void erase(long v) { Ffm.instructionEraseFromParent(v); }
  }

  /**
   * Builds {@code @built(i32 %a, float %f, <4 x float> %v, ptr %p)} into the module, every
   * instruction and constant through {@code c}, and returns the module's text.
   */
  static String build(Calls c, String nonAsciiName) {
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.parseBitcode(bitcode, "ffm");
         IrBuilder ib = new IrBuilder(ctx)) {
      Function helper = m.functions().stream().filter(f -> f.name().startsWith("helper")).findFirst().orElseThrow();
      long i32 = ctx.i32().id(), i64 = ctx.i64().id(), i8 = ctx.i8().id(), f32 = ctx.floatType().id();
      long v4f = c.vectorType(f32, 4), v4i = c.vectorType(i32, 4);
      Type fnTy = ctx.functionType(ctx.i32(), List.of(ctx.i32(), ctx.floatType(), Type.of(Ffm.type(v4f)), ctx.ptrType()), false);
      Function f = m.addFunction("built", fnTy);
      long a = f.param(0).id(), x = f.param(1).id(), v = f.param(2).id(), p = f.param(3).id();
      long entry = f.appendBlock("entry").id(), yes = f.appendBlock("yes").id(), no = f.appendBlock("no").id(),
          join = f.appendBlock("join").id();
      long b = ib.ref().address();
      c.atEnd(b, entry);
      long sum = c.binOp(b, LLVMAdd, a, c.constInt(i32, -5), "sum");
      long diff = c.binOp(b, LLVMSub, c.constInt(i32, 7), sum, "diff");
      long tmp = c.binOp(b, LLVMMul, diff, diff, "tmp");
      long inv = c.not(b, tmp, "inv");
      long neg = c.fneg(b, x, "neg");
      long lt = c.icmp(b, LLVMIntSLT, sum, inv, "lt");
      long ge = c.fcmp(b, LLVMRealOGE, neg, c.constReal(f32, 2.5), "ge");
      long sel = c.select(b, lt, sum, inv, "sel");
      long sel2 = c.select(b, lt, c.poison(i32), sum, "sel2");
      long wide = c.cast(b, LLVMSExt, sel, i64, "wide");
      long e2 = c.extractElement(b, v, c.constInt(i32, 2), "e2");
      long ins = c.insertElement(b, v, neg, c.constInt(i32, 1), "ins");
      long ins0 = c.insertElement(b, c.constNull(v4f), c.undef(f32), c.constInt(i32, 3), "ins0");
      long sh = c.shuffle(b, ins, ins0, c.constVector(new long[] {c.constInt(i32, 3), c.constInt(i32, 4), c.constInt(i32, 1), c.constInt(i32, 7)}), "sh");
      long ld = c.load(b, i32, p, "ld");
      c.setAlignment(ld, 4);
      long st = c.store(b, sel2, p);
      c.setAlignment(st, 8);
      long g1 = c.gep(b, i32, p, new long[] {wide}, true, "g1");
      long g2 = c.gep(b, i8, g1, new long[] {c.constInt(i64, 3)}, false, nonAsciiName);
      c.store(b, c.extractElement(b, sh, c.constInt(i32, 0), "sh0"), g2);
      c.store(b, c.binOp(b, LLVMAdd, c.constVector(new long[] {c.constInt(i32, -1), c.constInt(i32, 0), c.constInt(i32, 8), c.constInt(i32, 9)}), c.constNull(v4i), "vsum"), g1);
      long call = c.call(b, helper.functionType().id(), helper.id(), new long[] {e2, sum}, "call");
      c.setCallConv(call, c.functionCallConv(helper.id()));
      c.store(b, call, g2);
      c.condBr(b, ge, yes, no);
      c.atEnd(b, yes);
      c.br(b, join);
      c.atEnd(b, no);
      c.br(b, join);
      c.atEnd(b, join);
      long phi = c.phi(b, i32, "ph");
      c.addIncoming(phi, new long[] {sum, inv}, new long[] {yes, no});
      long phi2 = c.phi(b, v4i, "ph2");
      c.addIncoming(phi2, new long[] {c.constNull(v4i)}, new long[] {yes});
      c.addIncoming(phi2, new long[] {c.poison(v4i)}, new long[] {no});
      LLVMBuildRet(ib.ref(), Ffm.value(phi));
      c.before(b, ld);
      long copy = c.cloneInsert(b, ld, "ld.copy");
      c.setOperand(st, 0, copy);
      c.rauw(tmp, diff);
      c.erase(tmp);
      assertEquals(java.util.Optional.empty(), m.verify(), f.print());
      return m.toIr();
    }
  }

  @Test
  void everyBuildingCallBuildsWhatJavacppBuilds() {
    String viaJavacpp = build(new Javacpp(), "g2.\u00e9");
    String viaFfm = build(new Foreign(), "g2.\u00e9");
    assertTrue(viaJavacpp.contains("define i32 @built"), viaJavacpp);
    assertEquals(viaJavacpp, viaFfm);
  }

  @Test
  void namesOfEveryLengthAndNonAsciiAgreeWithJavacpp() {
    // Value.name and Block.name read the length LLVM reports (LLVMGetValueName2), not up to a NUL byte:
    // empty, one byte, long, multi-byte UTF-8 and quoted names, of values, parameters, blocks and globals
    String longName = "v" + "x".repeat(300);
    String ir = "@\"gl\u00f6bal\" = global i32 0\n"
        + "define i32 @f(i32 %a, i32 %\"p\u00e4r\") {\n"
        + "e:\n  %0 = add i32 %a, 1\n  %q = add i32 %0, 2\n  %" + longName + " = add i32 %q, 3\n"
        + "  %\"sp ace\u20ac\" = add i32 %" + longName + ", %\"p\u00e4r\"\n  br label %\"bl\u00f6ck.\u6f22\"\n"
        + "\"bl\u00f6ck.\u6f22\":\n  ret i32 %\"sp ace\u20ac\"\n}\n";
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.parseIr(ir, "names")) {
      List<String> seen = new ArrayList<>();
      Function f = m.function("f").orElseThrow();
      for (Value p : f.params()) seen.add(p.name());
      for (Block b : f.blocks()) {
        assertEquals(LLVMGetBasicBlockName(b.ref()).getString(), b.name());
        assertEquals(LLVMGetBasicBlockName(b.ref()).getString(), Ffm.blockName(b.id()));
        seen.add(b.name());
        for (Value i : b.instructions()) {
          assertEquals(LLVMGetValueName(i.ref()).getString(), i.name());
          assertEquals(LLVMGetValueName(i.ref()).getString(), Ffm.valueName(i.id()));
          seen.add(i.name());
        }
      }
      for (Value g : m.globals()) seen.add(g.name());
      assertEquals(List.of("a", "p\u00e4r", "e", "", "q", longName, "sp ace\u20ac", "", "bl\u00f6ck.\u6f22", "", "gl\u00f6bal"), seen);
    }
  }

  @Test
  void namesSetFromJavaKeepEveryByte() {
    // Value.setName hands LLVM the UTF-8 bytes and their count (the count of chars cut a non-ASCII name short),
    // and a module loaded under a non-ASCII file name keeps its whole identifier
    String ir = "define i32 @f(i32 %a, i32 %b) {\ne:\n  %s = add i32 %a, %b\n  ret i32 %s\n}\n";
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.parseIr(ir, "donn\u00e9es-\u6f22.ll")) {
      Function f = m.function("f").orElseThrow();
      List<String> names = List.of("p\u00e4r", "\u6f22\u5b57\u20ac", "sum.\u00f6\u00f6\u00f6\u00f6");
      List<Value> values = List.of(f.params().get(0), f.params().get(1), f.blocks().get(0).instructions().get(0));
      for (int i = 0; i < names.size(); i++) values.get(i).setName(names.get(i));
      for (int i = 0; i < names.size(); i++) assertEquals(names.get(i), values.get(i).name());
      assertTrue(m.toIr().contains("; ModuleID = 'donn\u00e9es-\u6f22.ll'"), m.toIr());
    }
  }

  @Test
  void namesCopiedNativeToNativeAgreeWithJavacpp() {
    // FunctionCloner copies the scalar copy's names with Value/Block.copyNameFrom (LLVM's bytes back to LLVM,
    // issue 16) and Preparer asks Value.hasName: the clone's names read through javacpp are the original's, for
    // empty, long, quoted and multi-byte names (and numbered values stay unnamed)
    String longName = "v" + "x".repeat(300);
    String ir = "define i32 @f(i32 %a, i32 %\"p\u00e4r\") {\n"
        + "e:\n  %0 = add i32 %a, 1\n  %q = add i32 %0, 2\n  %" + longName + " = add i32 %q, 3\n"
        + "  %\"sp ace\u20ac\" = add i32 %" + longName + ", %\"p\u00e4r\"\n  br label %\"bl\u00f6ck.\u6f22\"\n"
        + "\"bl\u00f6ck.\u6f22\":\n  %ph = phi i32 [ %\"sp ace\u20ac\", %e ]\n  ret i32 %ph\n}\n";
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.parseIr(ir, "names")) {
      Function f = m.function("f").orElseThrow();
      Function g = FunctionCloner.cloneInModule(m, f, "g");
      List<String> original = new ArrayList<>();
      List<String> copied = new ArrayList<>();
      for (Function fn : List.of(f, g)) {
        List<String> out = fn == f ? original : copied;
        for (Block b : fn.blocks()) {
          out.add(LLVMGetBasicBlockName(b.ref()).getString());
          for (Value i : b.instructions()) {
            String n = LLVMGetValueName(i.ref()).getString();
            assertEquals(!n.isEmpty(), i.hasName(), n);
            out.add(n);
          }
        }
      }
      assertEquals(List.of("e", "", "q", longName, "sp ace\u20ac", "", "bl\u00f6ck.\u6f22", "ph", ""), original);
      assertEquals(original, copied);
      assertTrue(m.verify().isEmpty(), () -> m.verify().get());
    }
  }

  @Test
  void theFacadeUsesTheBinding() {
    assertTrue(Ffm.on);
    // the facade's own calls (Block.instructions, Value.users, IrBuilder) with the binding on agree
    // with a walk through javacpp: the same instruction list, users and names
    try (LlvmContext ctx = LlvmContext.create(); LlvmModule m = ctx.parseBitcode(bitcode, "ffm")) {
      for (Function f : m.functions()) {
        List<Long> viaFacade = new ArrayList<>();
        for (Block b : f.blocks()) for (Value i : b.instructions()) viaFacade.add(i.id());
        List<Long> viaJavacpp = new ArrayList<>();
        for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(f.ref()); b != null && !b.isNull(); b = LLVMGetNextBasicBlock(b)) {
          for (LLVMValueRef i = LLVMGetFirstInstruction(b); i != null && !i.isNull(); i = LLVMGetNextInstruction(i)) viaJavacpp.add(i.address());
        }
        assertEquals(viaJavacpp, viaFacade, f.name());
        assertEquals(viaJavacpp.size(), f.instructionCount(), f.name());
      }
    }
  }
}
